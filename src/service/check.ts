import { LRUCache } from 'lru-cache'
import type { Evidence } from '../model/fact.js'
import { signalPeripheral } from '../model/signals.js'
import { countTokens } from '../model/tokens.js'
import { CheckParams as CheckSchema, MAX_ENTRIES, type CheckParams, type CheckResponse, type Finding } from '../schemas/check.js'
import { decodeFact } from '../store/fact-body.js'
import { erratumApplies, type ErratumRevisions } from '../store/revisions.js'
import type { FactRow, ReleaseStore } from '../store/types.js'
import type { TargetChoice } from './catalog-index.js'
import { ServiceError } from './errors.js'
import { canonicalRevision, type HardwareFacts, type ReleaseReader, type TopicResolution } from './facts.js'
import { readAll } from './read-all.js'
import { packagePin, packagePins, signalOn, type PackagePin, type PackagePins } from './pins.js'

/**
 * A configuration check (issue 28): pin assignments, DMA channels, operating point and silicon
 * revision of one part, checked against its facts (pins, dma, electrical, errata, clocks), each
 * read whole through the service's one reader (readAll) from the target the part resolves to for
 * that topic, as /v1/context resolves it. Every finding carries the evidence of the facts it rests
 * on; the answer is bounded by max_tokens like /v1/context, errors first.
 */

const DEFAULT_MAX_TOKENS = 4000
const DEFAULT_CANDIDATES = 10
const CHECK_PARAM_KEYS = Object.keys(CheckSchema.properties)

type Severity = Finding['severity']
type Code = Finding['code']
type CheckTopic = NonNullable<Finding['topic']>

const SEVERITY: Record<Code, Severity> = {
  PIN_NOT_IN_PACKAGE: 'error',
  SIGNAL_NOT_ON_PIN: 'error',
  PIN_CONFLICT: 'error',
  DMA_NOT_AVAILABLE: 'error',
  DMA_CONFLICT: 'error',
  OUT_OF_LIMITS: 'error',
  ERRATUM_APPLIES: 'warning',
  NOT_COVERED: 'warning',
  CLOCK_ENABLE: 'info',
  SIGNAL_PINS: 'info',
  PIN_OK: 'info',
  DMA_OK: 'info',
  WITHIN_LIMITS: 'info'
}
const RANK: Record<Severity, number> = { error: 0, warning: 1, info: 2 }

export interface AssignEntry {
  /** `SIGNAL:PIN` (or `SIGNAL:`), upper-cased: how findings name it. */
  text: string
  signal: string
  pin: string | undefined
}
export interface DmaEntry {
  text: string
  signal: string
  controller: string
  channel: number
}
export interface CheckInputs {
  assign: AssignEntry[]
  dma: DmaEntry[]
}

const SIGNAL = /^[A-Z0-9][A-Z0-9_+\-./]*$/
const PIN = /^[A-Z0-9][A-Z0-9_+\-./]*$/
/** A GPIO pad name (`PA9`, `PC2_C`): a pin of the part that a package may leave unbonded. */
const GPIO_NAME = /^P[A-Z]\d{1,2}(?:_C)?$/
/** `DMA2_CH7`, `DMA1_Stream3`, `BDMA_CH0`, `GPDMA1_C5`: a controller and a channel (stream) number. */
const CHANNEL = /^([A-Z]*DMA\d*)_(?:CH|C|STREAM|S)?(\d{1,3})$/

/** Comma-separated entries, blanks dropped; at most MAX_ENTRIES, none twice. */
function entries(list: string | undefined, param: 'assign' | 'dma'): string[] {
  if (list === undefined) return []
  const out = list.split(',').map((x) => x.trim().toUpperCase()).filter((x) => x !== '')
  if (out.length === 0) throw new ServiceError('INVALID_ENTRY', `${param} lists no entries.`, param)
  if (out.length > MAX_ENTRIES) throw new ServiceError('TOO_MANY_ENTRIES', `${param} lists ${out.length} entries; at most ${MAX_ENTRIES} are allowed.`, param)
  const seen = new Set<string>()
  out.forEach((e, i) => {
    if (seen.has(e)) throw new ServiceError('INVALID_ENTRY', `${param} entry ${i + 1} ("${e}") is listed twice.`, param)
    seen.add(e)
  })
  return out
}

/** `assign` and `dma` parsed; a malformed entry is a Problem quoting it. */
export function parseInputs(p: Pick<CheckParams, 'assign' | 'dma'>): CheckInputs {
  const bad = (param: string, i: number, e: string, form: string) => new ServiceError('INVALID_ENTRY', `${param} entry ${i + 1} ("${e}") is not of the form ${form}.`, param)
  const assign = entries(p.assign, 'assign').map((e, i): AssignEntry => {
    const [signal = '', pin, ...rest] = e.split(':').map((x) => x.trim())
    if (rest.length || pin === undefined || !SIGNAL.test(signal) || (pin !== '' && !PIN.test(pin))) throw bad('assign', i, e, 'SIGNAL:PIN (USART1_TX:PA9), or SIGNAL: to ask for its pins')
    return { text: `${signal}:${pin}`, signal, pin: pin === '' ? undefined : pin }
  })
  const dma = entries(p.dma, 'dma').map((e, i): DmaEntry => {
    const [signal = '', ch = '', ...rest] = e.split(':').map((x) => x.trim())
    const m = CHANNEL.exec(ch)
    if (rest.length || !SIGNAL.test(signal) || !m) throw bad('dma', i, e, 'SIGNAL:CHANNEL (USART1_TX:DMA2_CH7)')
    return { text: `${signal}:${ch}`, signal, controller: m[1]!, channel: Number(m[2]) }
  })
  return { assign, dma }
}

/** Evidence of several facts, each item once, in first-seen order. */
function evidenceOf(...lists: Evidence[][]): Evidence[] {
  const seen = new Set<string>()
  const out: Evidence[] = []
  for (const e of lists.flat()) {
    const k = `${e.sourceSha256}\0${e.locator}`
    if (!seen.has(k)) seen.add(k), out.push(e)
  }
  return out
}

const finding = (code: Code, inputs: string[], message: string, evidence: Evidence[], more: Partial<Finding> = {}): Finding => ({ severity: SEVERITY[code], code, inputs, message, evidence, ...more })

/** What a check could not check: a warning where the request asked for it, info where the check adds it on its own (errata, clocks). */
const notCovered = (topic: CheckTopic, inputs: string[], message: string, asked: boolean): Finding => ({ ...finding('NOT_COVERED', inputs, message, [], { topic }), severity: asked ? 'warning' : 'info' })

const pinOf = (p: PackagePin, signal: string) => ({ pin: p.name, position: p.position, af: p.af.get(signal) ?? null, ...(p.remap ? { remap: p.remap } : {}) })
const afText = (p: PackagePin, signal: string) => (p.af.has(signal) ? `${p.name}/AF${p.af.get(signal)}` : p.name)

/**
 * Pins findings: each entry against the package's pins, then pads assigned twice. An entry whose
 * pin carries its signal needs only that pin (`pins` may hold only those, see Check.pinsFor);
 * any other needs them all.
 */
export function pinFindings(assign: AssignEntry[], pins: PackagePins, pkg: string): Finding[] {
  const out: Finding[] = []
  const placed: Array<{ entry: AssignEntry; pin: PackagePin }> = []
  for (const [i, entry] of assign.entries()) {
    const pin = entry.pin === undefined ? undefined : pins.byName.get(entry.pin)
    // Entries are upper-cased; a pin lists a signal as its source spells it (`I2S2_ext_SD`).
    const own = pin && signalOn(pin, entry.signal)
    if (own) {
      placed.push({ entry: { ...entry, signal: own }, pin })
      continue
    }
    const a = { ...entry, signal: pins.signalSpelling.get(entry.signal) ?? entry.signal }
    const carriers = pins.bySignal.get(a.signal)
    if (!carriers) {
      // Signals of the same peripheral, or of the same function on another one (`USART9_TX` → `USART1_TX`).
      const [head, ...fn] = a.signal.split('_')
      const near = [...pins.bySignal.keys()].filter((s) => s.startsWith(`${head}_`) || (fn.length > 0 && s.endsWith(`_${fn.join('_')}`))).sort().slice(0, 8)
      throw new ServiceError('UNKNOWN_SIGNAL', `assign entry ${i + 1} ("${a.text}"): no pin of package ${pkg} carries ${a.signal}${near.length ? `; signals like it: ${near.join(', ')}` : ''}.`, 'assign')
    }
    const list = carriers.map((p) => pinOf(p, a.signal))
    const where = `${a.signal} is on ${carriers.map((p) => afText(p, a.signal)).join(', ')}`
    if (a.pin === undefined) out.push(finding('SIGNAL_PINS', [a.text], `${where} in ${pkg}.`, evidenceOf(...carriers.map((p) => p.evidence)), { pins: list }))
    else if (pin) out.push(finding('SIGNAL_NOT_ON_PIN', [a.text], `${a.pin} does not carry ${a.signal} in ${pkg}; ${where}.`, evidenceOf(pin.evidence, ...carriers.map((p) => p.evidence)), { pins: list }))
    else if (GPIO_NAME.test(a.pin)) out.push(finding('PIN_NOT_IN_PACKAGE', [a.text], `${a.pin} is not a pin of package ${pkg}; ${where}.`, evidenceOf(...carriers.map((p) => p.evidence)), { pins: list }))
    else throw new ServiceError('UNKNOWN_PIN', `assign entry ${i + 1} ("${a.text}"): ${a.pin} is not a pin of package ${pkg}, nor a GPIO name.`, 'assign')
  }
  const used = new Map<string, typeof placed>()
  for (const x of placed) for (const pos of x.pin.positions) used.set(pos, [...(used.get(pos) ?? []), x])
  const conflicted = new Set<AssignEntry>()
  for (const [pos, on] of used) {
    if (on.length < 2 || on.some((x) => conflicted.has(x.entry))) continue
    on.forEach((x) => conflicted.add(x.entry))
    const names = [...new Set(on.map((x) => x.pin.name))]
    const why = names.length > 1 ? `${names.join(' and ')} share pad ${pos} (${on.map((x) => x.pin.remap).find(Boolean) ?? 'remap'}): only one of them can be used` : `${names[0]} is assigned ${on.length} times`
    out.push(finding('PIN_CONFLICT', on.map((x) => x.entry.text), `${why} (${on.map((x) => x.entry.signal).join(', ')}).`, evidenceOf(...on.map((x) => x.pin.evidence)), { pins: on.map((x) => pinOf(x.pin, x.entry.signal)) }))
  }
  for (const { entry, pin } of placed) {
    if (conflicted.has(entry)) continue
    const remap = pin.remap ? `, with SYSCFG remap ${pin.remap} (its pad is shared)` : ''
    const af = pin.af.has(entry.signal) ? `: alternate function ${pin.af.get(entry.signal)}` : ': not an alternate function (no AF number)'
    out.push(finding('PIN_OK', [entry.text], `${entry.signal} on ${pin.name} (pin ${pin.position})${af}${remap}.`, pin.evidence, { pins: [pinOf(pin, entry.signal)] }))
  }
  return out
}

/** A fact as a check reads it: name, value and evidence (its stored body parsed). */
interface Read {
  name: string
  value: Record<string, unknown>
  evidence: Evidence[]
}
const parse = (rows: readonly FactRow[]): Read[] => rows.map((r) => decodeFact(r.body))

/** Units a limit fact may give, to the unit of its parameter (V, °C, Hz). */
const SCALE: Record<string, number> = { V: 1, mV: 1e-3, '°C': 1, Hz: 1, kHz: 1e3, MHz: 1e6 }
/** Each operating-point parameter and the limit facts (src/model electrical names) that bound it. */
const LIMITS = [
  { param: 'vdd', unit: 'V', names: ['supply.vdd.min', 'supply.vdd.max'] },
  { param: 'temperature', unit: '°C', names: ['temperature.ambient.min', 'temperature.ambient.max'] },
  { param: 'sysclk', unit: 'Hz', names: ['clock.cpu.max'] }
] as const

/** vdd, temperature and sysclk against the part's limits: the limit exceeded, or those met. */
export function limitFindings(p: Pick<CheckParams, 'vdd' | 'temperature' | 'sysclk'>, electrical: Read[]): Finding[] {
  const out: Finding[] = []
  const byName = new Map(electrical.map((f) => [f.name, f]))
  for (const { param, unit, names } of LIMITS) {
    const given = p[param]
    if (given === undefined) continue
    const input = `${param}=${given}`
    const checks = names.flatMap((name) => {
      const f = byName.get(name)
      const v = f?.value as { value: number; unit: string } | undefined
      const scale = v && SCALE[v.unit]
      if (!f || !v || scale === undefined) return []
      const bound = name.endsWith('.min') ? ('min' as const) : ('max' as const)
      const limit = { parameter: param, given: given / scale, limit: name, bound, value: v.value, unit: v.unit }
      return [{ f, limit, broken: bound === 'min' ? given < v.value * scale : given > v.value * scale }]
    })
    if (checks.length === 0) {
      out.push(notCovered('electrical', [input], `This release has no ${names.join(' or ')} limit for this part: ${param} is not checked.`, true))
      continue
    }
    for (const c of checks.filter((x) => x.broken))
      out.push(finding('OUT_OF_LIMITS', [input], `${param} ${c.limit.given} ${c.limit.unit} is ${c.limit.bound === 'min' ? 'below' : 'above'} ${c.limit.limit} = ${c.limit.value} ${c.limit.unit}.`, c.f.evidence, { limits: [c.limit] }))
    if (checks.every((x) => !x.broken))
      out.push(finding('WITHIN_LIMITS', [input], `${param} ${given} ${unit} is within ${checks.map((c) => `${c.limit.limit} = ${c.limit.value} ${c.limit.unit}`).join(', ')}.`, evidenceOf(...checks.map((c) => c.f.evidence)), { limits: checks.map((c) => c.limit) }))
  }
  return out
}

interface DmaOptionValue {
  controller: string
  channel?: number | null
  request?: number | null
  /** Without a channel: the channels that can take the request (`DMA1_CH0`). */
  channels?: string[]
}

/** DMA entries against the signals' DMA options (dma facts `USART1.TX`); a channel given twice is a conflict whatever the facts. */
export function dmaFindings(dma: DmaEntry[], facts: Read[] | undefined): Finding[] {
  const out: Finding[] = []
  const bySignal = new Map((facts ?? []).map((f) => [f.name.replaceAll('.', '_').toUpperCase(), f]))
  const byChannel = new Map<string, DmaEntry[]>()
  for (const d of dma) {
    const ch = `${d.controller}_CH${d.channel}`
    byChannel.set(ch, [...(byChannel.get(ch) ?? []), d])
  }
  for (const [ch, on] of byChannel)
    if (on.length > 1) out.push(finding('DMA_CONFLICT', on.map((d) => d.text), `${ch} is given to ${on.map((d) => d.signal).join(' and ')}: one channel serves one request at a time.`, []))
  if (!facts) return out
  for (const d of dma) {
    const f = bySignal.get(d.signal)
    if (!f) {
      out.push(finding('DMA_NOT_AVAILABLE', [d.text], `No DMA request of this part is ${d.signal}.`, []))
      continue
    }
    const options = ((f.value.options ?? []) as DmaOptionValue[]).map((o) => ({ controller: o.controller, channel: o.channel ?? null, request: o.request ?? null, ...(o.channels ? { channels: o.channels } : {}) }))
    const name = `${d.controller}_CH${d.channel}`
    const ok = options.filter((o) =>
      o.channel !== null ? o.controller.toUpperCase() === d.controller && o.channel === d.channel : o.channels ? o.channels.some((c) => c.toUpperCase() === name) : o.controller.toUpperCase() === d.controller
    )
    const list = options.map((o) => `${o.controller}${o.channel === null ? '' : `_CH${o.channel}`}${o.request === null ? '' : ` (request ${o.request})`}`).join(', ')
    out.push(
      ok.length
        ? finding('DMA_OK', [d.text], `${d.signal} on ${d.controller}_CH${d.channel}${ok[0]!.request === null ? '' : `, request ${ok[0]!.request}`}.`, f.evidence, { dma: ok })
        : finding('DMA_NOT_AVAILABLE', [d.text], `${d.signal} cannot use ${d.controller}_CH${d.channel}; it can use ${list || 'no channel'}.`, f.evidence, { dma: options })
    )
  }
  return out
}

/**
 * The peripheral instances a configuration uses, each with the entries that use it, in the order
 * of the entries: by the pin data's rule for a signal (signalPeripheral, over the instances the
 * part's clock and DMA facts name), and the GPIO port of each assigned pin the part has clock facts of.
 */
export function peripheralsInUse(inputs: CheckInputs, instances: ReadonlySet<string>): Map<string, string[]> {
  const used = new Map<string, string[]>()
  const use = (p: string | undefined, entry: string) => {
    if (p === undefined) return
    const l = used.get(p) ?? []
    if (!l.includes(entry)) l.push(entry)
    used.set(p, l)
  }
  for (const a of inputs.assign) {
    use(signalPeripheral(a.signal, instances), a.text)
    const port = a.pin && GPIO_NAME.test(a.pin) ? `GPIO${a.pin[1]}` : undefined
    if (port && instances.has(port)) use(port, a.text)
  }
  for (const d of inputs.dma) use(signalPeripheral(d.signal, instances), d.text)
  return used
}

interface ErratumValue extends ErratumRevisions {
  handling?: Array<{ handling: string; module: string | null; comment: string | null }>
  workaroundInMdk?: boolean
  workaroundEnabledByDefault?: boolean
  module?: string
  title?: string
}

/** `UARTE0` → `uarte`; `nrfx_uarte`, `nrf_uarte_hal`, `nrfy_twim` → `uarte`, `uarte`, `twim`; `I2C` → `i2c`. */
const peripheralKey = (p: string) => p.toLowerCase().replace(/\d+$/, '')
const moduleKey = (m: string) => m.toLowerCase().replace(/^nrf[xy]?_/, '').replace(/_hal$/, '')
const concerns = (module: string, peripheral: string) => {
  const m = moduleKey(module)
  const p = peripheralKey(peripheral)
  return m === p || m.startsWith(`${p}_`)
}

/** The revisions an erratum applies to (null: the source does not narrow it by revision), and whether it applies to `revision`. */
function applicability(v: ErratumValue, revision: string | undefined): { revisions: string[] | null; applies: boolean } {
  if (!v.revisions) return { revisions: null, applies: true }
  const revisions = v.revisions.filter((r) => r.applies).map((r) => r.code)
  if (revision === undefined) return { revisions, applies: revisions.length > 0 || v.appliesToUnlistedRevisions === true }
  return { revisions, applies: erratumApplies(v, revision) }
}

/** What the source says about an erratum's workaround: the errata matrix's rows and the MDK's part. */
function workaround(v: ErratumValue): string | null {
  const rows = (v.handling ?? []).filter((h) => h.comment || h.module).map((h) => `${h.handling}${h.module ? ` in ${h.module}` : ''}${h.comment ? `: ${h.comment}` : ''}`)
  if (v.workaroundInMdk) rows.push(`the MDK implements the workaround${v.workaroundEnabledByDefault === false ? ' (not enabled by default)' : ''}`)
  return rows.length ? rows.join('; ') : null
}

/**
 * Errata of the silicon revision (every revision's when none is given) that concern the
 * peripherals in use, by the module the source names; without peripherals in use, every erratum of
 * the revision. Errata whose source names no module cannot be matched: one finding lists them.
 */
export function errataFindings(errata: Read[], used: Map<string, string[]>, revision: string | undefined, revisionInput: string[]): Finding[] {
  const out: Finding[] = []
  const unmatched: string[] = []
  for (const f of errata) {
    const v = f.value as ErratumValue
    const { revisions, applies } = applicability(v, revision)
    if (!applies) continue
    const modules = [...new Set([v.module, ...(v.handling ?? []).map((h) => h.module)].filter((m): m is string => typeof m === 'string'))]
    const inUse = [...used].filter(([p]) => modules.some((m) => concerns(m, p)))
    if (used.size > 0 && modules.length === 0) {
      unmatched.push(f.name)
      continue
    }
    if (used.size > 0 && inUse.length === 0) continue
    const erratum = { id: f.name, title: v.title ?? null, module: modules.join(', ') || null, workaround: workaround(v), revisions }
    const when = revision !== undefined ? `revision ${revision}` : revisions ? `revisions ${revisions.join(', ') || 'not listed'}${v.appliesToUnlistedRevisions ? ' and those the source does not list' : ''} (revision unknown)` : 'this device'
    const inputs = [...new Set(inUse.flatMap(([, e]) => e)), ...revisionInput]
    out.push(finding('ERRATUM_APPLIES', inputs, `${f.name}${erratum.title ? ` (${erratum.title})` : ''} applies to ${when}${inUse.length ? `, concerning ${inUse.map(([p]) => p).join(', ')}` : ''}.`, f.evidence, { erratum }))
  }
  if (unmatched.length)
    out.push(notCovered('errata', [...new Set([...used.values()].flat()), ...revisionInput], `${unmatched.length} errata of ${revision !== undefined ? `revision ${revision}` : 'this part'} name no module, so whether they concern the peripherals in use is not known: ${unmatched.join(', ')}.`, false))
  return out
}

interface ClockValue {
  busClock?: unknown
  kernelClock?: unknown
  enable?: unknown
  reset?: unknown
}
const text = (v: unknown) => (typeof v === 'string' ? v : null)

/** The enable bit (and clocks) each peripheral in use needs, from the part's clock facts (named by peripheral). */
export function clockFindings(clocks: Read[], used: Map<string, string[]>): { findings: Finding[]; without: string[] } {
  const byName = new Map(clocks.map((f) => [f.name, f]))
  const findings: Finding[] = []
  const without: string[] = []
  for (const [peripheral, inputs] of used) {
    const f = byName.get(peripheral)
    if (!f) {
      without.push(peripheral)
      continue
    }
    const v = f.value as ClockValue
    const clock = { peripheral, enable: text(v.enable), reset: text(v.reset), busClock: text(v.busClock), kernelClock: text(v.kernelClock) }
    findings.push(finding('CLOCK_ENABLE', inputs, `${peripheral} needs ${clock.enable ?? 'its clock enabled (the source names no enable bit)'}${clock.busClock ? ` (bus clock ${clock.busClock})` : ''}.`, f.evidence, { clock }))
  }
  return { findings, without }
}

/** The topics a request needs: each check's, for the inputs it has. */
function neededTopics(p: CheckParams, inputs: CheckInputs): CheckTopic[] {
  const entries = inputs.assign.length + inputs.dma.length > 0
  const out: CheckTopic[] = []
  if (inputs.assign.length) out.push('pins')
  if (inputs.dma.length) out.push('dma')
  if (p.vdd !== undefined || p.temperature !== undefined || p.sysclk !== undefined) out.push('electrical')
  if (entries || p.silicon_revision !== undefined) out.push('errata')
  if (entries) out.push('clocks')
  return out
}

type Resolved = { res: TopicResolution; choice?: TargetChoice }

/** The inputs a topic is read for, as findings name them. */
function inputsOf(topic: CheckTopic, p: CheckParams, inputs: CheckInputs): string[] {
  const values = LIMITS.flatMap(({ param }) => (p[param] === undefined ? [] : [`${param}=${p[param]}`]))
  const revision = p.silicon_revision === undefined ? [] : [`silicon_revision=${p.silicon_revision}`]
  const entries = [...inputs.assign.map((a) => a.text), ...inputs.dma.map((d) => d.text)]
  return { pins: inputs.assign.map((a) => a.text), dma: inputs.dma.map((d) => d.text), electrical: values, errata: [...entries, ...revision], clocks: entries }[topic]
}

export class Check {
  /** Each package's pins indexed, and each target's facts of the other topics, read once: a release is immutable, and most checks ask about few parts. */
  private readonly pinIndexes = new LRUCache<string, PackagePins>({ max: 256 })
  /** Pins read by name, by package (only pins the package has: a name it has not sends the check to the whole index). */
  private readonly namedPins = new LRUCache<string, Map<string, PackagePin>>({ max: 256 })
  private readonly topicFacts = new LRUCache<string, Read[]>({ max: 1024 })

  constructor(private readonly facts: HardwareFacts) {}

  /** The answer as JSON text, from the service's answer cache when it was made before. */
  async check(p: CheckParams, reader?: ReleaseReader | null): Promise<string> {
    const inputs = parseInputs(p)
    return this.facts.answer('check', CHECK_PARAM_KEYS, p, reader, (store) => this.checkIn(store, p, inputs), (body) => body)
  }

  /**
   * The pins the entries need: the package's pins read by name (kept, as a release is immutable)
   * while every entry names a pin that carries its signal, which is all a valid configuration
   * needs; the whole package indexed as soon as one does not (its finding lists the pins that
   * carry the signal). The findings are the same either way.
   */
  private async pinsFor(store: ReleaseStore, choice: TargetChoice, assign: AssignEntry[]): Promise<PackagePins> {
    const key = `${store.manifest.id}\0${choice.target.key}\0${choice.package ?? ''}`
    let pins = this.pinIndexes.get(key)
    if (pins) return pins
    let named = this.namedPins.get(key)
    if (!named) this.namedPins.set(key, (named = new Map()))
    const unread = [...new Set(assign.flatMap((a) => (a.pin !== undefined && !named!.has(a.pin) ? [a.pin] : [])))]
    for (const r of unread.length ? await readAll(store, choice, 'pins', unread, []) : []) {
      const pin = packagePin(r)
      // The store matches names case-insensitively; entries name pins as the package does.
      if (unread.includes(pin.name)) named.set(pin.name, pin)
    }
    const byName = new Map<string, PackagePin>()
    for (const a of assign) {
      const pin = a.pin === undefined ? undefined : named.get(a.pin)
      if (!pin || !signalOn(pin, a.signal)) {
        this.pinIndexes.set(key, (pins = packagePins(await readAll(store, choice, 'pins', [], []))))
        this.namedPins.delete(key)
        return pins
      }
      byName.set(pin.name, pin)
    }
    return { byName, bySignal: new Map(), signalSpelling: new Map() }
  }

  private async checkIn(store: ReleaseStore, p: CheckParams, inputs: CheckInputs): Promise<string> {
    const ix = this.facts.index(store)
    const maxTokens = p.max_tokens ?? DEFAULT_MAX_TOKENS
    const { key, matches } = ix.match(p.part)
    const head = (status: CheckResponse['status'], more: Partial<CheckResponse> = {}) => ({
      release: store.manifest.id,
      part: p.part,
      status,
      valid: null,
      ...(matches.length === 1 ? { resolvedPart: { name: matches[0]!.entity.name, kind: matches[0]!.entity.kind } } : {}),
      pinsTarget: null,
      counts: { error: 0, warning: 0, info: 0 },
      ...more
    })
    if (matches.length === 0) return budgeted(head('not_found'), [], maxTokens, { suggestions: ix.suggestions(key) }, ['Unknown part: nothing checked.'])
    const entities = matches.map((m) => m.entity)
    const resolved = new Map<CheckTopic, Resolved>(neededTopics(p, inputs).map((t) => [t, this.facts.topicResolution(ix, entities, t, DEFAULT_CANDIDATES, p.package)]))
    for (const [topic, { res }] of resolved)
      if (res.status === 'ambiguous')
        return budgeted(head('ambiguous'), [], maxTokens, { candidates: [...res.candidates], candidateCount: res.candidateCount, hint: res.hint }, [
          `Ambiguous part for ${topic}: nothing checked; the candidates are the document targets to choose from (never chosen for you).`
        ])
    const read = async (topic: CheckTopic): Promise<Read[] | undefined> => {
      const choice = resolved.get(topic)?.choice
      if (!choice) return undefined
      const key = `${store.manifest.id}\0${choice.target.key}\0${topic}`
      let facts = this.topicFacts.get(key)
      if (!facts) this.topicFacts.set(key, (facts = parse(await readAll(store, choice, topic, [], []))))
      return facts
    }
    const pinsChoice = resolved.get('pins')?.choice
    const [pins, dma, electrical, errata, clocks] = await Promise.all([pinsChoice && this.pinsFor(store, pinsChoice, inputs.assign), read('dma'), read('electrical'), read('errata'), read('clocks')])
    const instances = new Set([...(clocks ?? []).map((f) => f.name), ...(dma ?? []).map((f) => f.name.split('.')[0]!)])
    const used = peripheralsInUse(inputs, instances)
    const revision = p.silicon_revision === undefined ? undefined : canonicalRevision(p.silicon_revision)
    const clockCheck = clocks && clockFindings(clocks, used)
    const findings = [
      ...(pins ? pinFindings(inputs.assign, pins, pinsChoice!.package ?? pinsChoice!.target.device) : []),
      ...(inputs.dma.length ? dmaFindings(inputs.dma, dma) : []),
      ...(electrical ? limitFindings(p, electrical) : []),
      ...(errata ? errataFindings(errata, used, revision, p.silicon_revision === undefined ? [] : [`silicon_revision=${p.silicon_revision}`]) : []),
      ...(clockCheck?.findings ?? []),
      ...[...resolved].filter(([, r]) => !r.choice).map(([topic, { res }]) => notCovered(topic, inputsOf(topic, p, inputs), notCoveredReason(topic, res), topic !== 'clocks' && (topic !== 'errata' || revision !== undefined)))
    ].sort((a, b) => RANK[a.severity] - RANK[b.severity])
    const counts = { error: 0, warning: 0, info: 0 }
    for (const f of findings) counts[f.severity]++
    const valid = counts.error > 0 ? false : findings.some((f) => f.code === 'NOT_COVERED' && f.severity === 'warning') ? null : true
    const pinsTarget = pinsChoice ? { key: pinsChoice.target.key, device: pinsChoice.target.device, ...(pinsChoice.package ? { package: pinsChoice.package } : {}), source: { path: pinsChoice.target.sourcePath, sha256: pinsChoice.target.sourceSha256 } } : null
    const notes = clockCheck?.without.length ? [`No clock facts for ${clockCheck.without.join(', ')}: no enable bit listed for them.`] : []
    if (p.silicon_revision !== undefined && errata?.every((f) => !(f.value as ErratumValue).revisions)) notes.push('This part\'s errata are not narrowed by silicon revision in the source: silicon_revision changes nothing.')
    return budgeted({ ...head('checked'), valid, pinsTarget, counts }, findings, maxTokens, {}, notes)
  }
}

function notCoveredReason(topic: CheckTopic, res: TopicResolution): string {
  const what = { pins: 'the pin assignments are not checked', dma: 'the DMA assignments are checked only against each other', electrical: 'the values are not checked', errata: 'no errata are listed', clocks: 'no enable bits are listed' }[topic]
  const why = res.status === 'not_covered' || res.status === 'source_failed' ? res.reason : `No ${topic} facts for this part.`
  return `${why.replace(/\.$/, '')}: ${what}.`
}

/** Each evidence item's JSON and tokens, kept with the item: the facts they belong to are cached and immutable. */
const evidenceJson = new WeakMap<Evidence, { json: string; tokens: number }>()
const EVIDENCE_MEMBER = countTokens(',"evidence":[]}')

/**
 * A finding's JSON and an upper bound of its tokens: its own members counted, its evidence items
 * (most of its text, and the same items check after check) counted once each; joined at
 * punctuation, the pieces never tokenize into more than their counts add up to.
 */
function counted(f: Finding): { json: string; tokens: number } {
  const { evidence, ...own } = f
  const head = JSON.stringify(own).slice(0, -1)
  const items = evidence.map((e) => {
    let x = evidenceJson.get(e)
    if (!x) {
      const json = JSON.stringify(e)
      evidenceJson.set(e, (x = { json, tokens: countTokens(json) }))
    }
    return x
  })
  return { json: `${head},"evidence":[${items.map((x) => x.json).join(',')}]}`, tokens: pieceTokens(head) + EVIDENCE_MEMBER + items.reduce((n, x) => n + x.tokens + 1, 0) }
}

/**
 * Tokens of a piece of an answer by its JSON: a finding's own members, an answer's head and tail.
 * The same pieces recur check after check (`USART1_TX:PA9` is PIN_OK, AF 7; a part's head and the
 * page of a full answer), so each is counted once.
 */
const pieceCounts = new LRUCache<string, number>({ max: 20_000 })
function pieceTokens(text: string): number {
  let n = pieceCounts.get(text)
  if (n === undefined) pieceCounts.set(text, (n = countTokens(text)))
  return n
}

type Extra = Pick<CheckResponse, 'candidates' | 'candidateCount' | 'hint' | 'suggestions'>
type Page = CheckResponse['page']

/**
 * The answer within max_tokens, counted over the whole response as /v1/context counts it: the head
 * (up to `findings`), each finding alone plus one token per comma, and the tail (page, candidates,
 * notes); joined at punctuation, the parts never tokenize into more than their counts add up to.
 * Findings are cut from the end (errors come first), an ambiguous answer's candidates likewise;
 * `page.neededMaxTokens` says what lists them all. A budget too small for the answer without
 * findings is a Problem naming max_tokens.
 */
function budgeted(head: object, findings: Finding[], maxTokens: number, extra: Extra, notes: string[]): string {
  const headStr = JSON.stringify(head).slice(0, -1) + ',"findings":['
  const headTokens = pieceTokens(headStr)
  const each = findings.map(counted)
  const bodies = each.map((x) => x.json)
  const sizes = each.map((x) => x.tokens + 1)
  const tail = (page: Page, more: string[]) => {
    const x = JSON.stringify(extra)
    const all = [...notes, ...more]
    return `],"page":${JSON.stringify(page)}${x.length > 2 ? ',' + x.slice(1, -1) : ''}${all.length ? `,"notes":${JSON.stringify(all)}` : ''}}`
  }
  const page = (returned: number, needed: number | null): Page => ({
    returned,
    total: findings.length,
    maxTokens,
    tokens: maxTokens,
    truncatedBy: needed === null ? null : 'max_tokens',
    budgetTooSmall: returned === 0 && findings.length > 0,
    neededMaxTokens: needed
  })
  const tailTokens = (p: Page, more: string[]) => pieceTokens(tail(p, more))
  const cutNote = (n: number, needed: number) => `max_tokens=${maxTokens} leaves room for ${n} of the ${findings.length} findings (errors first): max_tokens=${needed} lists them all.`
  // With every finding, and room for a max_tokens of more digits.
  const whole = headTokens + tailTokens(page(findings.length, null), []) + sizes.reduce((a, b) => a + b, 0)
  let n = bodies.length
  if (whole > maxTokens) {
    // Room for the findings: the budget less the head and the largest tail (cut, with a five-digit budget named).
    let used = headTokens + tailTokens(page(findings.length, 99_999), [cutNote(findings.length, 99_999)])
    n = 0
    while (n < bodies.length && used + sizes[n]! <= maxTokens) used += sizes[n++]!
  }
  let p = page(n, null)
  let more: string[] = []
  if (n < bodies.length) {
    const needed = whole + 3
    p = page(n, needed)
    more = [cutNote(n, needed)]
  }
  const listed = extra.candidates?.length ?? 0
  for (;;) {
    const total = headTokens + tailTokens(p, more) + sizes.slice(0, n).reduce((a, b) => a + b, 0)
    if (total <= maxTokens) {
      p.tokens = total
      return headStr + bodies.slice(0, n).join(',') + tail(p, more)
    }
    if (!extra.candidates?.length) throw new ServiceError('INVALID_PARAMETER', `max_tokens=${maxTokens} cannot hold even this answer without findings (${total} tokens); raise max_tokens.`, 'max_tokens')
    if (p.neededMaxTokens === null) p = { ...p, truncatedBy: 'max_tokens', neededMaxTokens: total + 3 }
    extra.candidates.pop()
    more = [`max_tokens=${maxTokens} leaves room for ${extra.candidates.length} of these ${listed} candidates (candidateCount counts all): max_tokens=${p.neededMaxTokens} lists the ${listed}.`]
  }
}

const instances = new WeakMap<HardwareFacts, Check>()

/** The configuration check over this service (one per HardwareFacts, so REST and MCP share its pin indexes). */
export function checkOf(facts: HardwareFacts): Check {
  let c = instances.get(facts)
  if (!c) instances.set(facts, (c = new Check(facts)))
  return c
}
