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

/**
 * Display name of a device: as its source writes it, except Nordic's, which the SVDs write in
 * lower case (`nrf52840`) and the MDK in upper case (`NRF52840`): Nordic writes its parts `nRF52840`;
 * a register file named `<family>_registers` (Nuvoton's `NUC1xx_registers`) names `<family>`; and a
 * trailing file version (Artery's `AT32F421xx_v2`) is no part of the name.
 * `vendor` is a vendor id of vendors.json.
 */
export function displayName(device: string, vendor: string | undefined): string {
  if (vendor === 'nordic' && /^nrf/i.test(device)) return 'nRF' + device.slice(3).toUpperCase()
  return device.replace(/_registers$/i, '').replace(/_v[0-9]+$/, '')
}

/**
 * The name an SVD's file gives its device when the device's own name is not a part name but a
 * generator's (`fu740.svd` holds `sifive_hifive_unmatched_a00`): the file name, when the device
 * name does not contain it and it has a digit. Otherwise none.
 */
export function fileAlias(t: Pick<DocumentTarget, 'device' | 'sourcePath'>): string | undefined {
  const base = (t.sourcePath.split('/').pop() ?? '').replace(/\.(svd|xml)$/i, '')
  const key = normalizeKey(base)
  return /[0-9]/.test(base) && key.length >= 4 && !normalizeKey(t.device).includes(key) && !key.includes(normalizeKey(t.device).replace(/REGISTERS$/, '')) ? base : undefined
}

/**
 * A device whose name is its series name (`nrf52` in `<series>nrf52</series>`, `psoc63`) names the
 * series, not one part: the catalog finds it by that name unless a curation alias says which part
 * it describes.
 */
export function namesItsSeries(t: DocumentTarget): boolean {
  return t.identity?.series !== undefined && normalizeKey(t.identity.series) === normalizeKey(t.device)
}
