import { posix } from 'node:path'
import type { CatalogPart, DocumentTarget, Evidence, FactDraft, FactScope, ParseProblem } from '../../src/model/fact.js'
import { parseXml, XmlParseError, type XmlElement } from '../xml.js'
import { SourceLines } from './evidence.js'
import { decodeArtifact, readGpioModes, type GpioModesFile, type GpioPinModes, type Stm32Remap } from './stm32-gpio.js'
import { expandRefName, pinBaseName, signalPeripheral } from './stm32-names.js'
import { emptyResult, type AdapterResult, type LoadedArtifact, type SourceAdapter } from './types.js'

export { expandRefName, pinBaseName, signalPeripheral } from './stm32-names.js'

const MCU_KIND = 'stm32-pin-data-mcu'
const GPIO_KIND = 'stm32-pin-data-gpio-modes'

/**
 * ST's open pin data (STM32_open_pin_data): one MCU file per RefName and package gives the
 * `pins` and `electrical` facts and the selector catalog; the GPIO modes file it names adds
 * AF numbers (or, for STM32F1, AFIO remap blocks) per pin and signal.
 */
export const stm32Adapter: SourceAdapter = {
  name: 'stm32-pin-data',
  // 2: target identity; SVD address evidence and array dims; PINREMAP signals; nrf54h headers.
  version: '2',
  kinds: [MCU_KIND, GPIO_KIND],
  parse(artifacts: readonly LoadedArtifact[]): AdapterResult {
    const result = emptyResult()
    const gpioByPath = new Map<string, LoadedArtifact>()
    const mcus: LoadedArtifact[] = []
    for (const a of artifacts) {
      if (a.kind === GPIO_KIND) gpioByPath.set(a.path, a)
      else if (a.kind === MCU_KIND) mcus.push(a)
    }
    mcus.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
    const build: Build = { gpioByPath, gpioCache: new Map(), keys: new Set(), ioModesCache: new Map(), result }
    for (const mcu of mcus) {
      try {
        parseMcu(mcu, build)
      } catch (err) {
        // Never throw: anything unexpected about one file is that file's problem.
        result.problems.push({ file: mcu.path, reason: `unexpected error: ${(err as Error).message}` })
      }
    }
    // GPIO modes files no MCU file names (70 of 90 in the corpus) yield no facts, but every
    // inventoried source is still read once, so a broken one is reported rather than passed over.
    for (const [path, a] of gpioByPath) if (!build.gpioCache.has(path)) readGpioModes(a, result.problems)
    return result
  },
  /**
   * Runs of MCU files (in path order) naming the same GPIO modes file, at most UNIT_MCUS each,
   * every run with that modes file; then each modes file no MCU file names on its own. So one
   * changed MCU file re-parses its run only, and a worker holds one run. A modes file shared by
   * several runs reports its problems in each: the build keeps the first of identical problems.
   * A RefName given by two runs is the build's cross-unit check (a target given twice).
   */
  units(artifacts: readonly LoadedArtifact[]): LoadedArtifact[][] {
    const gpioByPath = new Map<string, LoadedArtifact>()
    const mcus: LoadedArtifact[] = []
    for (const a of artifacts) {
      if (a.kind === GPIO_KIND) gpioByPath.set(a.path, a)
      else if (a.kind === MCU_KIND) mcus.push(a)
    }
    mcus.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
    const groups: LoadedArtifact[][] = []
    const named = new Set<string>()
    let run: { gpio: string | undefined; mcus: LoadedArtifact[] } | undefined
    const close = () => {
      if (!run) return
      const gpio = run.gpio === undefined ? undefined : gpioByPath.get(run.gpio)
      groups.push(gpio ? [...run.mcus, gpio] : run.mcus)
      run = undefined
    }
    for (const mcu of mcus) {
      const path = gpioModesPathOf(mcu)
      const gpio = path !== undefined && gpioByPath.has(path) ? path : undefined
      if (gpio !== undefined) named.add(gpio)
      if (!run || run.gpio !== gpio || run.mcus.length === UNIT_MCUS) close()
      if (!run) run = { gpio, mcus: [] }
      run.mcus.push(mcu)
    }
    close()
    for (const [path, a] of gpioByPath) if (!named.has(path)) groups.push([a])
    return groups
  }
}

/** MCU files per parse unit: enough that re-reading the shared modes file (~3× an MCU file) costs little. */
const UNIT_MCUS = 32

const GPIO_IP = /<IP\s[^>]*?\bName="GPIO"[^>]*>/
const VERSION_ATTR = /\bVersion="([^"]*)"/

/**
 * The GPIO modes file an MCU file names, found without parsing it (units are formed on the main
 * thread before any parse). Should this scan ever miss a file parse would find, the unit lacks
 * that modes file and parse reports it as not in the inventory, in full builds and re-indexes alike.
 */
function gpioModesPathOf(mcu: LoadedArtifact): string | undefined {
  const ip = GPIO_IP.exec(mcu.content.toString('latin1'))
  const version = ip ? VERSION_ATTR.exec(ip[0])?.[1] : undefined
  return version ? gpioModesPath(mcu.path, version) : undefined
}

function gpioModesPath(mcuPath: string, version: string): string {
  return posix.join(posix.dirname(mcuPath), 'IP', `GPIO-${version}_Modes.xml`)
}

/** State shared by all MCU files of one parse call. */
interface Build {
  gpioByPath: ReadonlyMap<string, LoadedArtifact>
  /** Many MCU files share one GPIO modes file: each is parsed at most once, on first use. */
  gpioCache: Map<string, GpioModesFile | undefined>
  keys: Set<string>
  /** IOModes attribute → list: a few distinct values shared by ~11k pins, split once per build. */
  ioModesCache: Map<string, string[]>
  result: AdapterResult
}

/** A pad the pin reaches only through a SYSCFG remap (`<Pin Variant=…>`), with that pad's signals. */
interface PinVariant {
  position: string
  label: string
  variant: string
  signals: string[]
}

/** What every pins fact of one MCU file shares. */
interface McuContext {
  key: string
  pkg: string
  /** One scope object for all pins facts of the file: they are read, never mutated. */
  pinScope: FactScope
  instances: ReadonlySet<string>
  gpio: GpioModesFile | undefined
  /** Why alternate functions are unknown for every pin of the file, when they are. */
  noAlternateFunctions?: string
  ev: (line: number, path: string) => Evidence
  ioModesCache: Map<string, string[]>
}

function parseMcu(artifact: LoadedArtifact, build: Build): void {
  const { keys, result } = build
  const file = artifact.path
  const problems = result.problems
  const text = decodeArtifact(artifact)
  let root: XmlElement
  try {
    root = parseXml(text)
  } catch (err) {
    problems.push({ file, line: err instanceof XmlParseError ? err.line : undefined, reason: `not well-formed XML: ${(err as Error).message}` })
    return
  }
  const head = mcuHead(root, file, problems, keys)
  if (!head) return
  const { refName, pkg, parts, key } = head
  const lines = new SourceLines(text)
  const src = { sourceSha256: artifact.sha256, sourcePath: file }
  const ev = (line: number, path: string): Evidence => ({
    sourceSha256: artifact.sha256,
    sourcePath: file,
    locator: flat(`line ${line}: ${path}`),
    excerpt: flat(lines.excerpt(line))
  })

  const target: DocumentTarget = { key, topics: ['pins', 'electrical'], device: refName, ...src, packages: [pkg] }
  if (root.attrs.Line) target.description = root.attrs.Line
  result.targets.push(target)

  const sections = mcuSections(root, file, problems)
  const maxFrequency = sections.frequency ? numberOf(sections.frequency.text, file, sections.frequency.line, 'Frequency', problems) : undefined
  for (const part of catalogParts(root, head, sections, { src, maxFrequency }, file, problems)) result.parts.push(part)
  electricalFacts(sections, { key, scope: { device: refName, parts }, maxFrequency, file, ev }, result)
  const { gpio, missing } = gpioModesOf(root, sections.gpioIp, file, build)
  const ctx: McuContext = { key, pkg, pinScope: { device: refName, parts, package: pkg }, instances: sections.instances, gpio, ev, ioModesCache: build.ioModesCache, ...(missing ? { noAlternateFunctions: missing } : {}) }
  for (const [name, entries] of sections.pinGroups) result.facts.push(pinFact(name, entries, ctx))
}

/** What names an MCU file's target: its RefName, package and selector parts; undefined (a problem said why) when it cannot be one. */
function mcuHead(root: XmlElement, file: string, problems: ParseProblem[], keys: Set<string>): { refName: string; pkg: string; parts: string[]; key: string } | undefined {
  const refName = root.attrs.RefName
  const pkg = root.attrs.Package
  if (root.name !== 'Mcu' || !refName || !pkg) {
    problems.push({ file, line: root.line, reason: 'expected an <Mcu> root element with RefName and Package attributes' })
    return undefined
  }
  const parts = expandRefName(refName)
  if (!parts) {
    problems.push({ file, line: root.line, reason: `cannot expand RefName ${refName} into selector parts` })
    return undefined
  }
  const key = 'stm32:' + refName
  if (keys.has(key)) {
    problems.push({ file, line: root.line, reason: `RefName ${refName} already given by another file; skipped` })
    return undefined
  }
  keys.add(key)
  return { refName, pkg, parts, key }
}

/** The root's children each section needs, collected in one pass. */
interface McuSections {
  flash: XmlElement[]
  ram: XmlElement[]
  pinGroups: Map<string, XmlElement[]>
  instances: Set<string>
  core?: XmlElement
  frequency?: XmlElement
  voltage?: XmlElement
  current?: XmlElement
  temperature?: XmlElement
  gpioIp?: XmlElement
}

function mcuSections(root: XmlElement, file: string, problems: ParseProblem[]): McuSections {
  const s: McuSections = { flash: [], ram: [], pinGroups: new Map(), instances: new Set() }
  for (const el of root.children) {
    switch (el.name) {
      case 'Pin': {
        const label = el.attrs.Name
        if (!label || !el.attrs.Position) {
          problems.push({ file, line: el.line, reason: '<Pin> without Name or Position; skipped' })
          break
        }
        const base = pinBaseName(label)
        const group = s.pinGroups.get(base)
        if (group) group.push(el)
        else s.pinGroups.set(base, [el])
        break
      }
      case 'IP':
        if (el.attrs.InstanceName) s.instances.add(el.attrs.InstanceName)
        if (el.attrs.Name === 'GPIO') s.gpioIp ??= el
        break
      case 'Flash':
        s.flash.push(el)
        break
      case 'Ram':
        s.ram.push(el)
        break
      case 'Core':
        s.core ??= el
        break
      case 'Frequency':
        s.frequency ??= el
        break
      case 'Voltage':
        s.voltage ??= el
        break
      case 'Current':
        s.current ??= el
        break
      case 'Temperature':
        s.temperature ??= el
        break
    }
  }
  return s
}

/**
 * The catalog's selector parts of the file. It lists one <Flash> per alternative in order; <Ram> is
 * either one per alternative or a single value all alternatives share (e.g. STM32G0/G4/L0/L4, F103, H743).
 */
function catalogParts(
  root: XmlElement,
  head: { refName: string; pkg: string; parts: string[]; key: string },
  s: McuSections,
  { src, maxFrequency }: { src: Pick<CatalogPart, 'sourceSha256' | 'sourcePath'>; maxFrequency: number | undefined },
  file: string,
  problems: ParseProblem[]
): CatalogPart[] {
  const family = root.attrs.Family
  const line = root.attrs.Line
  const flashKb = sizesPerPart(s.flash, head.parts.length, 'Flash', file, root.line, problems)
  const ramKb = sizesPerPart(s.ram, head.parts.length, 'Ram', file, root.line, problems)
  const core = s.core
  if (!family || !line || !core || core.text === '') {
    problems.push({ file, line: root.line, reason: 'missing Family, Line or <Core>: no catalog parts' })
    return []
  }
  if (!flashKb || !ramKb) return []
  return head.parts.map((name, i) => ({
    name,
    refName: head.refName,
    family,
    line,
    package: head.pkg,
    flashKb: flashKb[i] as number,
    ramKb: ramKb[i] as number,
    core: core.text,
    target: head.key,
    ...src,
    ...(maxFrequency !== undefined ? { maxFrequencyMhz: maxFrequency } : {})
  }))
}

/** Electrical facts: one per attribute present; nothing for an absent one. */
function electricalFacts(s: McuSections, c: { key: string; scope: FactScope; maxFrequency: number | undefined; file: string; ev: McuContext['ev'] }, result: AdapterResult): void {
  const electrical = (el: XmlElement | undefined, attr: string, name: string, unit: string): void => {
    const raw = el?.attrs[attr]
    if (!el || raw === undefined) return
    const value = numberOf(raw, c.file, el.line, `${el.name} ${attr}`, result.problems)
    if (value === undefined) return
    result.facts.push({ target: c.key, topic: 'electrical', name, value: { value, unit }, scope: c.scope, evidence: [c.ev(el.line, `/Mcu/${el.name}/@${attr}`)] })
  }
  electrical(s.voltage, 'Min', 'supply.vdd.min', 'V')
  electrical(s.voltage, 'Max', 'supply.vdd.max', 'V')
  electrical(s.temperature, 'Min', 'temperature.ambient.min', '°C')
  electrical(s.temperature, 'Max', 'temperature.ambient.max', '°C')
  if (s.frequency && c.maxFrequency !== undefined) {
    result.facts.push({
      target: c.key,
      topic: 'electrical',
      name: 'clock.cpu.max',
      value: { value: c.maxFrequency, unit: 'MHz' },
      scope: c.scope,
      evidence: [c.ev(s.frequency.line, '/Mcu/Frequency')]
    })
  }
  // ST's MCU selector gives the run current per MHz; the file does not say so itself.
  electrical(s.current, 'Run', 'current.run', 'µA/MHz')
  electrical(s.current, 'Lowest', 'current.lowest', 'µA')
}

/** The file's GPIO modes file; missing or unreadable → pins still come, without AF numbers, and a problem says so (`missing`: why). */
function gpioModesOf(root: XmlElement, gpioIp: XmlElement | undefined, file: string, build: Build): { gpio?: GpioModesFile; missing?: string } {
  const problems = build.result.problems
  const noAf = (line: number, why: string) => {
    problems.push({ file, line, reason: `${why}: pins given without alternate functions` })
    return { missing: why }
  }
  if (!gpioIp?.attrs.Version) return noAf(root.line, 'no <IP Name="GPIO" Version=...>')
  const gpioPath = gpioModesPath(file, gpioIp.attrs.Version)
  const gpioArtifact = build.gpioByPath.get(gpioPath)
  if (!gpioArtifact) return noAf(gpioIp.line, `GPIO modes file ${gpioPath} is not in the inventory`)
  if (!build.gpioCache.has(gpioPath)) build.gpioCache.set(gpioPath, readGpioModes(gpioArtifact, problems))
  const gpio = build.gpioCache.get(gpioPath)
  return gpio ? { gpio } : noAf(gpioIp.line, `GPIO modes file ${gpioPath} is unreadable`)
}

/**
 * One pins fact for all pins sharing a base name in this package (VDD ×N, or PA9 plus its
 * `PA9 [PA11]` remap variant). Positions, signals and evidence follow file order — in the corpus
 * ascending position (numbers, then BGA row letters and column numbers) — except that remap
 * variants come last.
 * Written with plain arrays and loops: it runs ~13k times per corpus build and the sets are tiny.
 */
function pinFact(name: string, group: XmlElement[], ctx: McuContext): FactDraft {
  const { gpio } = ctx
  // The pin's own pad first, pads it reaches only through a SYSCFG remap (Variant=…) after it,
  // so `label`/`position` describe PA9 itself even where BGA order lists the remapped ball first.
  const entries = group.length > 1 && group.some((el) => el.attrs.Variant) ? group.filter((el) => !el.attrs.Variant).concat(group.filter((el) => el.attrs.Variant)) : group
  const first = entries[0] as XmlElement
  const positions: string[] = []
  const signals: string[] = []
  const labels: string[] = []
  const evidence: Evidence[] = []
  let gpioEvidence: Evidence[] | undefined
  let variants: PinVariant[] | undefined
  // A remap variant's signals are its pad's alone: they are not the pin's own pad's signals.
  const hasOwn = entries.some((el) => !el.attrs.Variant)
  const afs: { af: number; signal: string }[] = []
  const remaps: Stm32Remap[] = []
  let ioModes: string[] | undefined
  for (const el of entries) {
    const label = el.attrs.Name as string
    const position = el.attrs.Position as string
    if (!positions.includes(position)) positions.push(position)
    // One MCU evidence entry per distinct label: VDD ×10 needs one, PA9 + `PA9 [PA11]` two.
    if (!labels.includes(label)) {
      labels.push(label)
      evidence.push(ctx.ev(el.line, `/Mcu/Pin[Name=${label}]`))
    }
    const variant = el.attrs.Variant ? { position, label, variant: el.attrs.Variant, signals: [] as string[] } : undefined
    if (variant) (variants ??= []).push(variant)
    const into = variant && hasOwn ? variant.signals : signals
    const start = into.length
    let eventOut = false
    for (const s of el.children) {
      const sig = s.attrs.Name
      if (s.name !== 'Signal' || !sig) continue
      if (variant && !variant.signals.includes(sig) && into !== variant.signals) variant.signals.push(sig)
      if (!into.includes(sig)) into.push(sig)
      if (sig === 'GPIO' && s.attrs.IOModes) {
        const modes = splitModes(s.attrs.IOModes, ctx.ioModesCache)
        ioModes ??= modes
        eventOut = modes.includes('EVENTOUT')
      }
    }
    const modes = gpio?.pins.get(label)
    if (!modes) continue
    // The modes file serves a whole line (F405/F407/F415/F417 share one); keep only signals this
    // MCU lists on the pin, plus EVENTOUT where its GPIO signal offers that mode. `own` is this
    // entry's signals: those it added to `signals` plus any an earlier entry already had.
    const own = start === 0 ? into : signalsOf(el)
    if (addAlternateFunctions(modes, own, eventOut, afs, remaps)) (gpioEvidence ??= []).push(gpioEvidenceOf(gpio as GpioModesFile, modes))
  }
  const value = pinValue(first, ctx, positions, signals, ioModes, afs, remaps, variants)
  const fact: FactDraft = { target: ctx.key, topic: 'pins', name, value, scope: ctx.pinScope, evidence: gpioEvidence ? evidence.concat(gpioEvidence) : evidence }
  const peripherals = pinPeripherals(signals, variants, ctx.instances)
  if (peripherals) fact.peripherals = peripherals
  return fact
}

/**
 * Adds to `afs` and `remaps` the modes file's entries for a signal of `own` (or EVENTOUT, where
 * the pin's GPIO signal offers that mode), each once; true when the entry used any of them.
 */
function addAlternateFunctions(modes: GpioPinModes, own: readonly string[], eventOut: boolean, afs: { af: number; signal: string }[], remaps: Stm32Remap[]): boolean {
  let used = false
  for (const a of modes.afs) {
    if (!(own.includes(a.signal) || (eventOut && a.signal === 'EVENTOUT'))) continue
    used = true
    if (!afs.some((b) => b.af === a.af && b.signal === a.signal)) afs.push(a)
  }
  for (const r of modes.remaps) {
    if (!(own.includes(r.signal) || (eventOut && r.signal === 'EVENTOUT'))) continue
    used = true
    if (!remaps.includes(r)) remaps.push(r)
  }
  return used
}

/** The value of a pins fact, from what `pinFact` gathered over the group's entries. */
function pinValue(
  first: XmlElement,
  ctx: McuContext,
  positions: string[],
  signals: string[],
  ioModes: string[] | undefined,
  afs: { af: number; signal: string }[],
  remaps: Stm32Remap[],
  variants: PinVariant[] | undefined
): Record<string, unknown> {
  // Datasheet AF tables read by AF number.
  if (afs.length > 1) afs.sort((a, b) => a.af - b.af || (a.signal < b.signal ? -1 : a.signal > b.signal ? 1 : 0))
  const value: Record<string, unknown> = {
    label: first.attrs.Name,
    package: ctx.pkg,
    position: positions[0],
    positions,
    type: first.attrs.Type ?? '',
    signals
  }
  if (ioModes) value.ioModes = ioModes
  // Without a readable modes file the AF numbers are unknown, not empty: leave them out.
  if (ctx.gpio) {
    value.alternateFunctions = afs
    if (ctx.gpio.usesRemapBlocks) value.remaps = remaps
  } else if (ctx.noAlternateFunctions) {
    // Said on every such pin, so a reader never takes the missing list for "no alternate function".
    value.alternateFunctionsUnknown = ctx.noAlternateFunctions
  }
  if (variants) value.variants = variants
  return value
}

/** Sorted peripherals of the pin's signals and its remap variants' signals; undefined when none. */
function pinPeripherals(signals: string[], variants: PinVariant[] | undefined, instances: ReadonlySet<string>): string[] | undefined {
  let peripherals: string[] | undefined
  for (const sig of variants ? signals.concat(...variants.map((v) => v.signals)) : signals) {
    const p = signalPeripheral(sig, instances)
    if (p && !(peripherals ??= []).includes(p)) peripherals.push(p)
  }
  return peripherals?.sort()
}

function splitModes(raw: string, cache: Map<string, string[]>): string[] {
  let modes = cache.get(raw)
  if (!modes) cache.set(raw, (modes = raw.split(',')))
  return modes
}

function signalsOf(el: XmlElement): string[] {
  const out: string[] = []
  for (const s of el.children) if (s.name === 'Signal' && s.attrs.Name) out.push(s.attrs.Name)
  return out
}

/** Evidence into the GPIO modes file, built once per GPIO_Pin however many MCU files share it. */
function gpioEvidenceOf(gpio: GpioModesFile, modes: GpioPinModes): Evidence {
  return (modes.evidence ??= {
    sourceSha256: gpio.artifact.sha256,
    sourcePath: gpio.artifact.path,
    locator: `line ${modes.line}: /IP/GPIO_Pin[Name=${modes.name}]`,
    excerpt: gpio.lines.excerpt(modes.line)
  })
}

/**
 * Built strings (template literals, SourceLines.excerpt's join/replace) are rope-like cons strings
 * in V8: ~20 heap objects per excerpt, kept alive with the facts and traced by every GC. Reading a
 * character flattens the rope in place, leaving one flat string.
 */
function flat(s: string): string {
  s.charCodeAt(0)
  return s
}

function numberOf(raw: string, file: string, line: number, what: string, problems: ParseProblem[]): number | undefined {
  const n = raw.trim() === '' ? NaN : Number(raw)
  if (Number.isFinite(n)) return n
  problems.push({ file, line, reason: `${what} is not a number: ${JSON.stringify(raw)}` })
  return undefined
}

/** Sizes (KB) per selector part, from one element per part or one shared by all. */
function sizesPerPart(
  els: XmlElement[],
  partCount: number,
  what: string,
  file: string,
  rootLine: number,
  problems: ParseProblem[]
): number[] | undefined {
  if (els.length !== partCount && els.length !== 1) {
    problems.push({
      file,
      line: els[0]?.line ?? rootLine,
      reason: `${els.length} <${what}> elements for ${partCount} selector parts (expected 1 or ${partCount}): no catalog parts`
    })
    return undefined
  }
  const sizes: number[] = []
  for (const el of els) {
    const n = numberOf(el.text, file, el.line, what, problems)
    if (n === undefined) return undefined
    sizes.push(n)
  }
  return sizes.length === partCount ? sizes : new Array<number>(partCount).fill(sizes[0] as number)
}
