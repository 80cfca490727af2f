import type { DocumentTarget } from '../../src/model/fact.js'
import { normalizeKey } from '../../src/model/text.js'

/**
 * Naming rules: how a source's own identity (SVD `<name>`/`<vendor>`, pin-data RefName and
 * selector parts, errata device macros) becomes part names. Each rule gives its reason, which the
 * catalog carries with every mapping it derives. Kept apart from the catalog builder so tests can
 * pin the rules down one by one.
 */

/**
 * Core suffixes of SVDs that describe one core of a multi-core device: `STM32H745_CM4`,
 * `nrf5340_network`, `nrf54l15_flpr`, `ESP32-C6-LP`, `LPC55S69_cm33_core0`.
 */
const CORE_SUFFIX = /^(.+?)[_-](application|network|flpr|ppr|cm0p|cm4|cm7|cm33_core\d|cm33|lp|ulp)$/i

export function coreOf(device: string): { chip: string; core: string } | undefined {
  const m = CORE_SUFFIX.exec(device)
  return m ? { chip: m[1]!, core: m[2]! } : undefined
}

/**
 * Whether an SVD device name covers a selector part: the name (without a core suffix) is a
 * prefix of the part name, where a lowercase `x` on either side stands for any one character
 * (`STM32L4x6` covers `STM32L476RGTx`; `STM32GBK1CBT6` covers `STM32GBK1CBTx`). Returns the number
 * of wildcard positions used (the lower, the more specific), or -1 when it does not cover the part.
 */
export function svdCovers(device: string, part: string): number {
  const pattern = coreOf(device)?.chip ?? device
  if (pattern.length > part.length || pattern.length < 6) return -1
  let wild = 0
  for (let i = 0; i < pattern.length; i++) {
    const a = pattern[i]!
    const b = part[i]!
    if (a === 'x' || b === 'x') wild++
    else if (a.toUpperCase() !== b.toUpperCase()) return -1
  }
  return wild
}

export const SVD_COVERS_REASON = (device: string, part: string, line: string | undefined, wild: number): string =>
  `SVD device ${device} covers ${part}${line ? ` (line ${line})` : ''}: ` +
  (coreOf(device) ? `${device} without its core suffix is ${coreOf(device)!.chip}, ` : '') +
  (wild > 0 ? 'each lowercase x in the SVD device name stands for one character of the part name' : 'the part name starts with the SVD device name')

type Vendor = 'st' | 'nordic' | 'microchip' | 'silabs' | 'nxp' | 'espressif' | 'other'

export function vendorOf(t: Pick<DocumentTarget, 'identity' | 'key'>): Vendor {
  const v = t.identity?.vendor ?? ''
  if (/STMicro/i.test(v) || t.key.startsWith('stm32:')) return 'st'
  if (/Nordic/i.test(v)) return 'nordic'
  if (/Microchip|Atmel/i.test(v)) return 'microchip'
  if (/Silicon Lab/i.test(v)) return 'silabs'
  if (/NXP/i.test(v)) return 'nxp'
  if (/Espressif/i.test(v)) return 'espressif'
  return 'other'
}

/**
 * Display name of a device: as its source writes it, except Nordic's, which the SVDs write in
 * lower case (`nrf52840`) and the MDK in upper case (`NRF52840`): Nordic writes its parts `nRF52840`.
 */
export function displayName(device: string, vendor: Vendor): string {
  return vendor === 'nordic' && /^nrf/i.test(device) ? 'nRF' + device.slice(3).toUpperCase() : device
}

/**
 * A device whose name is its series name (`nrf52` in `<series>nrf52</series>`) names the series,
 * not one part: it is not a part name of its own (a curation alias says which part it describes).
 */
export function namesItsSeries(t: DocumentTarget): boolean {
  return t.identity?.series !== undefined && normalizeKey(t.identity.series) === normalizeKey(t.device)
}

export interface OrderingRule {
  stem: string
  suffix: string
  reason: string
}

/** ST: selector part `STM32F407VGTx` → `STM32F407VGT6`, `…T7`, `…T6TR`; a tail after the x stays (`…TxN` → `…T6N`). */
export function stOrdering(part: string): OrderingRule | undefined {
  const i = part.lastIndexOf('x')
  if (i <= 5) return undefined
  const tail = normalizeKey(part.slice(i + 1))
  return {
    stem: normalizeKey(part.slice(0, i)),
    suffix: `[0-9]${tail}(?:TR)?`,
    reason: `ST ordering code: the selector part ${part} with its temperature-range digit in place of the x${tail ? `, then ${tail}` : ''}, optionally TR (tape and reel)`
  }
}

/**
 * Ordering codes of devices named by an SVD or an errata header, per vendor. The stem is the
 * device name; the suffix what the vendor's ordering information appends to it.
 */
export function deviceOrdering(name: string, vendor: Vendor, variants?: string[]): OrderingRule | undefined {
  const stem = normalizeKey(name)
  switch (vendor) {
    case 'microchip':
      return {
        stem,
        suffix: '[A-Z][A-Z]T?',
        reason: `Microchip SAM ordering code: ${name}, '-', package letter, temperature-range letter, optionally T (tape and reel), e.g. ${name}-AU`
      }
    case 'nordic': {
      // The two letters after the package code are the build variant the MDK names NRFxxxxx_XX<vv>.
      const vv = [...new Set((variants ?? []).map((v) => /_XX([A-Z]{2})$/.exec(v)?.[1]).filter((x): x is string => x !== undefined))]
      return {
        stem,
        suffix: `[A-Z]{2}${vv.length > 0 ? `(?:${vv.join('|')})` : '[A-Z]{2}'}(?:R7?)?`,
        reason:
          `Nordic ordering code: ${displayName(name, vendor)}, '-', two-letter package code, two-letter variant` +
          (vv.length > 0 ? ` (${vv.join(', ')}: the MDK's ${variants!.join(', ')})` : '') +
          `, optionally -R or -R7 (reel), e.g. ${displayName(name, vendor)}-QI${vv[0] ?? 'AA'}`
      }
    }
    case 'silabs':
      return {
        stem,
        suffix: '(?:[GIN][A-Z]?(?:QFN|QFP|TQFP|BGA|CSP|WLCSP)[0-9]{2,3}|[A-D])?R?',
        reason: `Silicon Labs ordering code: ${name}, then temperature grade, revision and package (e.g. G-E-QFN64), or a revision letter, optionally R (reel)`
      }
    case 'nxp':
      return {
        stem,
        suffix: '(?:M[0-9]{3})?[JVC](?:[0-9]{3})?[A-Z]{2,3}[0-9]{0,3}R?',
        reason: `NXP ordering code: ${name}, optional Mnnn option code, temperature letter (J, V, C), optional flash size, package code (e.g. BD64, VLH), optionally R (reel)`
      }
    case 'espressif':
      return {
        stem,
        suffix: '(?:F[NH][0-9]{1,2}|R[0-9]{1,2}V?|FN[0-9]R[0-9]|D0WD(?:Q6)?(?:V3)?|D0WDR2V3|S0WD|U4WDH)',
        reason: `Espressif chip ordering code: ${name} followed by its in-package flash (FN4, FH4) or PSRAM (R8) code, e.g. ${name}FH4`
      }
    default:
      return undefined
  }
}
