/**
 * `pins` of modm-devices STM32 files: a fact per GPIO pin of a package, with the signals and
 * alternate functions modm's `<driver name="gpio">` gives that pin (`<gpio port="a" pin="9">`,
 * `<signal af="7" driver="usart" instance="1" name="tx"/>`).
 *
 * One file describes many identifiers; its `<package>`, `<gpio>` and `<signal>` elements apply to
 * some of them by their `device-*` filters (identifiers.ts). Identifiers that see the same package
 * element and the same signals share one target, so a target maps to exactly the part numbers with
 * that package and that signal set (STM32F407VGT6 and STM32F407VGT7 share one; STM32F405VGT6,
 * without Ethernet, has another).
 *
 * Signals are spelled as ST's pin data spells them, driver and instance upper-cased + `_` + name
 * (`usart` 1 `tx` → `USART1_TX`; `i2s` 2 `ext_sd` → `I2S2_ext_SD`), so the sources can be
 * compared. Where modm names otherwise, a comparison shows it (STM32F407VGTx LQFP100: 78 of 82
 * pins agree with ST's): modm names the debug port's AF0 per signal (`SYS_JTMS`, `SYS_SWDIO`)
 * where ST writes one (`SYS_JTMS-SWDIO`: PA13, PA14, PB3), and Ethernet's `rcc_crs_dv`
 * (`ETH_RCC_CRS_DV`, PA7) is ST's `ETH_CRS_DV`.
 */
import type { DocumentTarget, FactDraft, ParseProblem } from '../../../src/model/fact.js'
import type { XmlElement } from '../../xml.js'
import type { SourceLines } from '../evidence.js'
import { pinBaseName } from '../stm32-names.js'
import { filtersOf, matches, type Identifier } from './identifiers.js'

type Filters = [string, string[]][]

/** A device file as the emit stages cite it: its stem (`stm32f4-05_07_15_17`) names its targets. */
export interface Source {
  stem: string
  path: string
  sha256: string
  text: SourceLines
}

interface Located {
  line: number
  /** Element path for the locator: `/modm/device/driver[name=gpio]/gpio[port=a][pin=9]/signal[af=7]`. */
  path: string
  /** Its own `device-*` filters and its ancestors'. */
  filters: Filters
}

interface Signal extends Located {
  signal: string
  /** `USART1`: the driver and instance, upper-cased. */
  peripheral: string
  af?: number
}

interface Package extends Located {
  name: string
  pins: Array<{ position: string; name: string; line: number }>
  /** Its GPIO pins' names (`PA9` of `PA9 [PA11]`), file order. */
  gpios: Set<string>
}

interface PinData {
  /** Signal-bearing `<gpio>` elements by GPIO name (`PA9`), file order. */
  gpios: Map<string, Array<Located & { signals: Signal[] }>>
  packages: Package[]
  /** The `<gpio>` and `<signal>` elements with a `device-*` filter, by GPIO name: what tells one identifier's pins from another's. */
  conditioned: Array<Located & { gpio: string }>
}

/** A GPIO port pin (`PA9`); `PC2_C`, the H7's analog-switch pad, is not one (as stm32-data/pins.ts). */
const GPIO = /^P[A-Z]\d+$/

/** `usart` 1 `tx` → `USART1_TX`: ST's pin data spelling (see the file comment for where modm differs). */
export function stSignal(s: Readonly<Record<string, string>>): { peripheral: string; signal: string } {
  const peripheral = `${(s.driver ?? '').toUpperCase()}${s.instance ?? ''}`
  const name = (s.name ?? '').toUpperCase()
  // The I2S full-duplex extension is ST's lower-case `ext` (`I2S2_ext_SD`) in every pin data file.
  return { peripheral, signal: `${peripheral}_${name.replace(/^EXT_/, 'ext_')}` }
}

/** The `<gpio>` and `<package>` elements of the device's gpio drivers, with their filters. */
function readPinData(device: XmlElement, file: string, problems: ParseProblem[]): PinData {
  const out: PinData = { gpios: new Map(), packages: [], conditioned: [] }
  const at = (parent: Located, el: XmlElement, path: string, gpio?: string): Located => {
    const loc = { line: el.line, path: `${parent.path}/${path}`, filters: parent.filters.concat(filtersOf(el)) }
    if (gpio !== undefined && loc.filters.length) out.conditioned.push({ ...loc, gpio })
    return loc
  }
  const root: Located = { line: device.line, path: '/modm/device', filters: filtersOf(device) }
  for (const driverEl of device.children) {
    if (driverEl.name !== 'driver' || driverEl.attrs.name !== 'gpio') continue
    const driver = at(root, driverEl, 'driver[name=gpio]')
    for (const el of driverEl.children) {
      if (el.name === 'gpio') {
        const name = `P${(el.attrs.port ?? '').toUpperCase()}${el.attrs.pin ?? ''}`
        const gpio = at(driver, el, `gpio[port=${el.attrs.port}][pin=${el.attrs.pin}]`, name)
        const signals: Signal[] = []
        for (const s of el.children) {
          if (s.name !== 'signal') continue
          const af = s.attrs.af
          if (af !== undefined && !/^\d+$/.test(af)) {
            problems.push({ file, line: s.line, reason: `signal with af "${af}", not an AF number; left out` })
            continue
          }
          const { peripheral, signal } = stSignal(s.attrs)
          signals.push({ ...at(gpio, s, `signal[${signal}]`, name), signal, peripheral, ...(af !== undefined ? { af: Number(af) } : {}) })
        }
        out.gpios.set(name, [...(out.gpios.get(name) ?? []), { ...gpio, signals }])
      } else if (el.name === 'package') {
        const pins = el.children.filter((p) => p.name === 'pin').map((p) => ({ position: p.attrs.position ?? '', name: p.attrs.name ?? '', line: p.line }))
        const gpios = new Set(pins.map((p) => pinBaseName(p.name)).filter((n) => GPIO.test(n)))
        out.packages.push({ ...at(driver, el, `package[name=${el.attrs.name}]`), name: el.attrs.name ?? '', pins, gpios })
      }
    }
  }
  return out
}

/**
 * The pins targets of a file and their facts; returns each identifier's target. Identifiers are
 * grouped by the package element and the conditioned elements they see: a group is one target,
 * named by the file and its first identifier (`modm:stm32f4-05_07_15_17:pins:stm32f407vgt6`).
 */
export function modmPinTargets(
  device: XmlElement,
  ids: ReadonlyArray<{ name: string; id: Identifier }>,
  src: Source,
  out: { targets: DocumentTarget[]; facts: FactDraft[]; problems: ParseProblem[] }
): Map<string, string> {
  const data = readPinData(device, src.path, out.problems)
  const groups = new Map<string, { pkg: Package; names: string[]; id: Identifier }>()
  const targetOf = new Map<string, string>()
  // Conditioned elements of pins a package does not have make no difference to its facts.
  const telling = new Map(data.packages.map((p) => [p, data.conditioned.filter((e) => p.gpios.has(e.gpio))]))
  for (const { name, id } of ids) {
    const pkgs = data.packages.filter((p) => matches(p.filters, id))
    if (pkgs.length !== 1) {
      if (pkgs.length > 1) out.problems.push({ file: src.path, line: pkgs[1]!.line, reason: `identifier ${name} matches packages ${pkgs.map((p) => p.name).join(', ')}; which it has is not clear, no pins for it` })
      continue
    }
    const seen = `${pkgs[0]!.line}|${telling.get(pkgs[0]!)!.filter((e) => matches(e.filters, id)).map((e) => e.line).join(',')}`
    const g = groups.get(seen) ?? { pkg: pkgs[0]!, names: [], id }
    groups.set(seen, g)
    g.names.push(name)
  }
  for (const { pkg, names, id } of groups.values()) {
    const key = `modm:${src.stem}:pins:${names[0]}`
    const facts = packageFacts(data, pkg, id, key, { device: src.stem, parts: names, package: pkg.name }, src)
    if (facts.length === 0) continue
    out.targets.push({ key, topics: ['pins'], device: src.stem, sourceSha256: src.sha256, sourcePath: src.path, packages: [pkg.name], description: `modm-devices ${src.stem}: the ${pkg.name} pins of ${names.join(', ')}` })
    for (const f of facts) out.facts.push(f)
    for (const n of names) targetOf.set(n, key)
  }
  return targetOf
}

/** A fact per GPIO pin of one package, with the signals an identifier of the group sees. */
function packageFacts(data: PinData, pkg: Package, id: Identifier, key: string, scope: FactDraft['scope'], src: Source): FactDraft[] {
  const ev = (e: Located) => ({ sourceSha256: src.sha256, sourcePath: src.path, locator: `line ${e.line}: ${e.path}`, excerpt: src.text.excerpt(e.line, 1) })
  // Positions by GPIO name, in file order: `PA11 [PA9]` is PA11's pad (as ST's notation).
  const byName = new Map<string, Package['pins']>()
  for (const p of pkg.pins) {
    const name = pinBaseName(p.name)
    if (pkg.gpios.has(name)) byName.set(name, [...(byName.get(name) ?? []), p])
  }
  const out: FactDraft[] = []
  for (const [name, pads] of byName) {
    const gpios = (data.gpios.get(name) ?? []).filter((g) => matches(g.filters, id))
    const signals = gpios.flatMap((g) => g.signals.filter((s) => matches(s.filters, id)))
    const afs = [...new Map(signals.filter((s) => s.af !== undefined).map((s) => [`${s.af} ${s.signal}`, { af: s.af!, signal: s.signal }])).values()]
    // Read by AF number, as ST's pin data and the datasheets' tables are.
    afs.sort((a, b) => a.af - b.af || (a.signal < b.signal ? -1 : a.signal > b.signal ? 1 : 0))
    const positions = [...new Set(pads.map((p) => p.position))]
    const value = { label: pads[0]!.name, package: pkg.name, position: positions[0]!, positions, type: 'I/O', signals: [...new Set(signals.map((s) => s.signal))].sort(), alternateFunctions: afs }
    const evidence = [...pads.map((p) => ev({ line: p.line, path: `${pkg.path}/pin[position=${p.position}]`, filters: [] })), ...gpios.map(ev), ...signals.filter((s) => s.af !== undefined).map(ev)]
    const peripherals = [...new Set(signals.map((s) => s.peripheral))].sort()
    out.push({ target: key, topic: 'pins', name, value, scope, evidence, ...(peripherals.length ? { peripherals } : {}) })
  }
  return out
}
