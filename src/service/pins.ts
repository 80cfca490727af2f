import type { Evidence } from '../model/fact.js'
import { LazyFact } from '../store/fact-body.js'
import type { FactRow } from '../store/types.js'

/** A pin of one package as its pins fact (src/schemas/facts.ts PinValue) gives it. */
export interface PackagePin {
  /** Fact name: the pad's GPIO name (`PA11`), or the whole label of a non-GPIO pin (`VDD`). */
  name: string
  /** As the package lists it: `PA11 [PA9]`. */
  label: string
  position: string
  positions: string[]
  /** Every signal of the pin, its alternate functions' among them. */
  signals: string[]
  /** AF number by signal; empty when the source gives none (then `afUnknown` may say why). */
  af: ReadonlyMap<string, number>
  /** SYSCFG remap variant (`PINREMAP`) under which this name is on its pad. */
  remap?: string
  evidence: Evidence[]
}

/** One package's pins by name and by signal, each signal's pins ordered by label, then position. */
export interface PackagePins {
  byName: ReadonlyMap<string, PackagePin>
  bySignal: ReadonlyMap<string, readonly PackagePin[]>
  /** Each signal as the source spells it (`I2S2_ext_SD`), by its upper-cased name. */
  signalSpelling: ReadonlyMap<string, string>
}

/** The members of a pins fact's value read here. */
interface PinValue {
  label: string
  position: string
  positions?: string[]
  signals?: string[]
  alternateFunctions?: Array<{ af: number; signal: string }>
  variants?: Array<{ label: string; variant: string }>
}

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

/** One pins fact (its stored body) as a pin of its package. */
export function packagePin(r: FactRow): PackagePin {
  // The evidence (most of a body) is parsed only for the pins a finding cites.
  const f = new LazyFact(r.body)
  const v = f.value as unknown as PinValue
  const af = new Map((v.alternateFunctions ?? []).map((a) => [a.signal, a.af]))
  const remap = v.variants?.find((x) => x.label === v.label)?.variant
  return {
    name: f.name,
    label: v.label,
    position: v.position,
    positions: v.positions ?? [v.position],
    signals: [...new Set([...(v.signals ?? []), ...af.keys()])],
    af,
    get evidence() {
      return f.evidence
    },
    ...(remap ? { remap } : {})
  }
}

/** The pin's own spelling of a signal given upper-cased (`I2S2_EXT_SD` → `I2S2_ext_SD`), if it carries it. */
export const signalOn = (pin: PackagePin, upper: string): string | undefined => pin.signals.find((s) => s.toUpperCase() === upper)

/** The pins facts of one package (their stored bodies), indexed. */
export function packagePins(rows: readonly FactRow[]): PackagePins {
  const byName = new Map<string, PackagePin>()
  const bySignal = new Map<string, PackagePin[]>()
  for (const r of rows) {
    const pin = packagePin(r)
    byName.set(pin.name, pin)
    for (const s of pin.signals) {
      let l = bySignal.get(s)
      if (!l) bySignal.set(s, (l = []))
      l.push(pin)
    }
  }
  for (const l of bySignal.values()) l.sort((x, y) => byText(x.label, y.label) || byText(x.position, y.position))
  return { byName, bySignal, signalSpelling: new Map([...bySignal.keys()].map((s) => [s.toUpperCase(), s])) }
}
