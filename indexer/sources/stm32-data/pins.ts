/**
 * Emit stage of an stm32-data chip file's `pins` facts: a fact per GPIO pin of each package entry
 * (`packages[i]`, e.g. `STM32F407VGTx`, LQFP100), with the alternate functions the chip's
 * peripherals give that pin (`cores[].peripherals[].pins[{pin, signal, af}]`).
 *
 * Each package entry is a target of its own (`stm32-data:STM32F407VGTx`), as ST's pin data has a
 * file per package: so a part number is given the pins of its package only, and the chip's own name
 * (every package it comes in) none, as in ST's data.
 *
 * Signals are spelled as ST's pin data spells them, peripheral + `_` + signal (`USART1_TX`), so the
 * two sources can be compared. Where ST spells one systematically otherwise, it is spelled ST's way
 * (see stSpelling). Differences left as they are, which a comparison shows: ST names Ethernet
 * signals per interface (`ETH_MII_TXD0`, `ETH_RMII_TXD0`), stm32-data once (`ETH_TXD0`); ST's
 * microcontroller clock output is `RCC_MCO` or `RCC_MCO1` where stm32-data writes `RCC_MCO_1`;
 * QUADSPI's `BK1_NCS` is ST's `QUADSPI_NCS`. stm32-data gives no EVENTOUT and no debug port
 * (`SYS_JTMS-SWDIO`) alternate function.
 */
import type { Evidence, FactDraft } from '../../../src/model/fact.js'
import type { Chip, ChipPackage } from './chip.js'

/** A GPIO port pin (`PA9`). `PC2_C`, the H7's analog-switch pad, is not one: no type can be told for it. */
const GPIO = /^P[A-Z]\d+$/

/**
 * ST writes the one instance of these without its number in most lines (F3, F4, H7: `HRTIM_EEV1`,
 * `SPDIFRX_IN0`), with it in others (G4: `HRTIM1_EEV1`; some H7 files: `SPDIFRX1_IN1`): the most
 * common spelling is taken, and the others show as disagreements.
 */
const UNNUMBERED = new Set(['HRTIM1', 'SPDIFRX1'])

/** A signal as ST's pin data spells it. */
export function stSpelling(peripheral: string, signal: string): string {
  // SPI2's I2S function is ST's I2S2: `I2S2_CK`, `I2S2_ext_SD`.
  const spi = /^SPI(\d+)$/.exec(peripheral)
  if (spi && signal.startsWith('I2S_')) return `I2S${spi[1]}_${signal.slice(4)}`
  // A signal named as its peripheral is the peripheral's name alone (`CEC`).
  if (signal === peripheral) return signal
  return `${UNNUMBERED.has(peripheral) ? peripheral.replace(/\d+$/, '') : peripheral}_${signal}`
}

interface PinSignal {
  signal: string
  peripheral: string
  af?: number
  ptr: string
  entry: unknown
}

/** What the emit stage needs of the adapter: evidence of a member, and where to report a bad one. */
export interface PinEmit {
  evidence: (ptr: string, value: unknown) => Evidence
  bad: (ptr: string, what: string) => void
}

/** Every core's peripheral pin entries, by pin: a multi-core chip lists its peripherals per core, the first core's entry is kept. */
function signalsByPin(chip: Chip, e: PinEmit): Map<string, PinSignal[]> {
  const out = new Map<string, PinSignal[]>()
  chip.cores.forEach((core, i) =>
    (core.peripherals ?? []).forEach((p, j) =>
      (p.pins ?? []).forEach((q, k) => {
        const ptr = `/cores/${i}/peripherals/${j}/pins/${k}`
        if (typeof q?.pin !== 'string' || typeof q.signal !== 'string' || (q.af !== undefined && !Number.isInteger(q.af))) return e.bad(ptr, 'a pin entry without a pin, a signal and a whole AF number')
        const signal = stSpelling(p.name, q.signal)
        const list = out.get(q.pin) ?? []
        out.set(q.pin, list)
        if (!list.some((s) => s.signal === signal && s.af === q.af)) list.push({ signal, peripheral: p.name, ...(q.af !== undefined ? { af: q.af } : {}), ptr, entry: q })
      })
    )
  )
  return out
}

/** The pins facts of each package entry, by its target key. */
export function packagePinFacts(chip: Chip, keyOf: (pkg: ChipPackage) => string, e: PinEmit): FactDraft[] {
  const bySignal = signalsByPin(chip, e)
  const out: FactDraft[] = []
  chip.packages.forEach((pkg, i) => {
    const key = keyOf(pkg)
    const scope = { device: chip.name, parts: [pkg.name], package: pkg.package }
    // Pins by GPIO name, in file order: a pad the SYSCFG remap shares (`["PA11", "PA9"]`) is a position of both.
    const pins = new Map<string, { positions: string[]; ptrs: Array<[string, unknown]> }>()
    ;(Array.isArray(pkg.pins) ? pkg.pins : []).forEach((pin, j) => {
      const ptr = `/packages/${i}/pins/${j}`
      if (typeof pin?.position !== 'string' || !Array.isArray(pin.signals)) return e.bad(ptr, 'a package pin without a position and signals')
      for (const name of pin.signals) {
        if (typeof name !== 'string' || !GPIO.test(name)) continue
        const p = pins.get(name) ?? { positions: [], ptrs: [] }
        pins.set(name, p)
        if (!p.positions.includes(pin.position)) p.positions.push(pin.position)
        p.ptrs.push([ptr, pin])
      }
    })
    for (const [name, p] of pins) {
      const signals = bySignal.get(name) ?? []
      const afs = signals.filter((s) => s.af !== undefined).map((s) => ({ af: s.af!, signal: s.signal }))
      // Read by AF number, as ST's pin data and the datasheets' tables are.
      afs.sort((a, b) => a.af - b.af || (a.signal < b.signal ? -1 : a.signal > b.signal ? 1 : 0))
      const value = { label: name, package: pkg.package, position: p.positions[0]!, positions: p.positions, type: 'I/O', signals: [...new Set(signals.map((s) => s.signal))].sort(), alternateFunctions: afs }
      const evidence = [...p.ptrs.map(([ptr, v]) => e.evidence(ptr, v)), ...signals.map((s) => e.evidence(s.ptr, s.entry))]
      const peripherals = [...new Set(signals.map((s) => s.peripheral))].sort()
      out.push({ target: key, topic: 'pins', name, value, scope, evidence, ...(peripherals.length ? { peripherals } : {}) })
    }
  })
  return out
}
