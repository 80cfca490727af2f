import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { CORPUS_INVENTORY } from '../helpers/corpus-release.js'

/**
 * An independent reader of the golden facts' values: each fact is checked against the source
 * bytes its evidence points at (artifact by sha256, element by line), with just enough of the SVD
 * (registers, interrupts), STM32 pin-data and Nordic errata formats, written from the formats, not
 * from the adapters.
 * The golden snapshots then pin values that were once shown right, not only unchanged.
 */

interface Evidence {
  sourceSha256: string
  sourcePath: string
  locator: string
}
export interface GoldenFact {
  topic: string
  name: string
  value: Record<string, any>
  scope: { package?: string }
  evidence: Evidence[]
}

interface Source {
  text: string
  /** Character offset of the start of each line (1-based line n starts at lineStart[n - 1]). */
  lineStart: number[]
}
const sources = new Map<string, Source>()

/** The artifact, after checking its bytes against the evidence's sha256. */
function source(e: Evidence): Source {
  let s = sources.get(e.sourcePath)
  if (!s) {
    const bytes = readFileSync(join(CORPUS_INVENTORY, e.sourcePath))
    const text = bytes.toString('utf8')
    const lineStart = [0]
    for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) lineStart.push(i + 1)
    s = { text, lineStart }
    sources.set(e.sourcePath, s)
    if (createHash('sha256').update(bytes).digest('hex') !== e.sourceSha256) throw new Error(`${e.sourcePath}: sha256 differs from the evidence`)
  }
  return s
}

/** The located line's offset, and what the locator names after the line number. */
function located(e: Evidence): { s: Source; at: number; path: string } {
  const m = /^line (\d+): (.*)$/.exec(e.locator)
  if (!m) throw new Error(`locator without a line: ${e.locator}`)
  const s = source(e)
  return { s, at: s.lineStart[Number(m[1]) - 1]!, path: m[2]! }
}

/** The element that starts at the located line (`<name …>` … `</name>`, or self-closing). */
function element(e: Evidence, name: string): string {
  const { s, at } = located(e)
  const start = s.text.indexOf(`<${name}`, at)
  const lineEnd = s.text.indexOf('\n', at)
  if (start < 0 || start > lineEnd) throw new Error(`${e.locator}: no <${name}> on that line`)
  const open = s.text.indexOf('>', start)
  if (s.text[open - 1] === '/') return s.text.slice(start, open + 1)
  return s.text.slice(start, s.text.indexOf(`</${name}>`, start) + name.length + 3)
}

const child = (xml: string, tag: string) => new RegExp(`<${tag}>\\s*([\\s\\S]*?)\\s*</${tag}>`).exec(xml)?.[1]
const attr = (xml: string, name: string) => new RegExp(`\\s${name}="([^"]*)"`).exec(xml)?.[1]
const num = (s: string | undefined) => (s === undefined ? undefined : Number(s.replace(/^#/, '0b').toLowerCase().replace(/^0b([01]+)$/, (_, b: string) => String(parseInt(b, 2)))))
const hex = (n: number, digits: number) => '0x' + n.toString(16).toUpperCase().padStart(digits, '0')
/** An SVD element's own part, without its nested registers, fields or clusters. */
const own = (xml: string) =>
  xml
    .replace(/<registers>[\s\S]*<\/registers>/, '')
    .replace(/<fields>[\s\S]*?<\/fields>/g, '')
    .replace(/<enumeratedValues>[\s\S]*?<\/enumeratedValues>/g, '')

/** The SVD `dim` index a fact's name segment stands for in an element named with `%s`. */
function dimIndex(pattern: string, segment: string, elem: string): number {
  if (!pattern.includes('%s')) {
    if (pattern !== segment) throw new Error(`name ${segment} is not the element's ${pattern}`)
    return 0
  }
  const [pre, post] = pattern.replace('[%s]', '%s').split('%s') as [string, string]
  if (!segment.startsWith(pre) || !segment.endsWith(post)) throw new Error(`name ${segment} does not fit ${pattern}`)
  const label = segment.slice(pre.length, segment.length - post.length)
  const dimIdx = child(elem, 'dimIndex')
  const labels = dimIdx ? (/^(\d+)-(\d+)$/.test(dimIdx) ? range(dimIdx) : dimIdx.split(',')) : range(`0-${Number(child(elem, 'dim')) - 1}`)
  const k = labels.indexOf(label)
  if (k < 0) throw new Error(`${segment}: ${label} is not among the dim labels of ${pattern}`)
  return k
}
function range(r: string): string[] {
  const [a, b] = r.split('-').map(Number) as [number, number]
  return Array.from({ length: b - a + 1 }, (_, i) => String(a + i))
}

/** The offsets of the `<cluster>`s enclosing a position of an SVD text (their dim index from the name). */
function clusterOffset(s: Source, at: number, names: string[]): number {
  const stack: number[] = []
  for (const m of s.text.slice(0, at).matchAll(/<(\/?)cluster>/g)) {
    if (m[1]) stack.pop()
    else stack.push(m.index)
  }
  let offset = 0
  stack.forEach((start, i) => {
    const c = s.text.slice(start, s.text.indexOf('\n', s.text.indexOf('<addressOffset>', start)))
    offset += num(child(c, 'addressOffset'))! + dimIndex(child(c, 'name')!, names[i]!, c) * (num(child(c, 'dimIncrement')) ?? 0)
  })
  return offset
}

type Checked = string[]

function checkRegister(f: GoldenFact): Checked {
  const segs = f.name.split('.')
  const regEv = f.evidence.find((e) => /\/register\[name=.*\]$/.test(e.locator))!
  const reg = own(element(regEv, 'register'))
  const k = dimIndex(child(reg, 'name')!, segs.at(-1)!, reg)
  const { s, at } = located(regEv)
  const offset = clusterOffset(s, at, segs.slice(1, -1)) + num(child(reg, 'addressOffset'))! + k * (num(child(reg, 'dimIncrement')) ?? 0)
  const base = num(child(element(f.evidence.find((e) => e.locator.endsWith('/baseAddress'))!, 'baseAddress'), 'baseAddress'))!
  const out: Checked = []
  expectEq(f, 'offset', num(f.value.offset), offset, out)
  expectEq(f, 'address', f.value.address, hex(base + offset, 8), out)
  const size = num(child(reg, 'size'))
  if (size !== undefined) expectEq(f, 'size', f.value.size, size, out)
  const reset = num(child(reg, 'resetValue'))
  if (reset !== undefined) expectEq(f, 'resetValue', num(f.value.resetValue), reset, out)
  const access = child(reg, 'access')
  if (access !== undefined) expectEq(f, 'access', f.value.access, access, out)
  return out
}

function checkField(f: GoldenFact): Checked {
  const fieldEv = f.evidence.find((e) => /\/field\[name=.*\]$/.test(e.locator))!
  const field = own(element(fieldEv, 'field'))
  const k = dimIndex(child(field, 'name')!, f.name.split('.').at(-1)!, field)
  let lsb: number
  let width: number
  const range = child(field, 'bitRange')
  if (range) {
    const [msb, l] = /\[(\d+):(\d+)\]/.exec(range)!.slice(1).map(Number) as [number, number]
    lsb = l
    width = msb - l + 1
  } else if (child(field, 'lsb') !== undefined) {
    lsb = num(child(field, 'lsb'))!
    width = num(child(field, 'msb'))! - lsb + 1
  } else {
    lsb = num(child(field, 'bitOffset'))!
    width = num(child(field, 'bitWidth')) ?? 1
  }
  const out: Checked = []
  expectEq(f, 'bitOffset', f.value.bitOffset, lsb + k * (num(child(field, 'dimIncrement')) ?? 0), out)
  expectEq(f, 'bitWidth', f.value.bitWidth, width, out)
  const access = child(field, 'access')
  if (access !== undefined) expectEq(f, 'access', f.value.access, access, out)
  return out
}

function checkPeripheral(f: GoldenFact): Checked {
  const p = own(element(f.evidence[0]!, 'peripheral'))
  const out: Checked = []
  expectEq(f, 'baseAddress', num(f.value.baseAddress), num(child(p, 'baseAddress')), out)
  expectEq(f, 'derivedFrom', f.value.derivedFrom ?? undefined, attr(p, 'derivedFrom'), out)
  return out
}

function checkPin(f: GoldenFact): Checked {
  const pins = f.evidence.filter((e) => e.locator.includes('/Mcu/Pin[')).map((e) => element(e, 'Pin'))
  const pin = pins[0]!
  const out: Checked = []
  expectEq(f, 'label', f.value.label, attr(pin, 'Name'), out)
  expectEq(f, 'position', f.value.position, attr(pin, 'Position'), out)
  // A pin name may stand at several positions (VDD, VSS): every <Pin> of each evidenced name counts.
  const file = source(f.evidence[0]!).text
  const names = new Set(pins.map((p) => attr(p, 'Name')))
  const positions = [...file.matchAll(/<Pin\b[^>]*>/g)].filter((m) => names.has(attr(m[0], 'Name'))).map((m) => attr(m[0], 'Position'))
  expectEq(f, 'positions', [...f.value.positions].sort(), [...new Set(positions)].sort(), out)
  expectEq(f, 'type', f.value.type, attr(pin, 'Type'), out)
  const signals = [...pin.matchAll(/<Signal\b[^>]*?\sName="([^"]+)"/g)].map((m) => m[1]!)
  expectEq(f, 'signals', [...(f.value.signals ?? [])].sort(), [...new Set(signals)].sort(), out)
  // The GPIO signal's IOModes (EVENTOUT among them) are the pin's modes besides its signals.
  const ioModes = /<Signal IOModes="([^"]*)" Name="GPIO"/.exec(pin)?.[1]?.split(',') ?? []
  if (f.value.ioModes) expectEq(f, 'ioModes', f.value.ioModes, ioModes, out)
  const gpio = f.evidence.find((e) => e.locator.includes('/GPIO_Pin['))
  if (gpio) {
    // The modes file lists the AFs of every MCU with this GPIO block; this pin has those of its own signals and modes.
    const own = new Set([...signals, ...ioModes])
    const afs = [...element(gpio, 'GPIO_Pin').matchAll(/<PinSignal Name="([^"]+)">[\s\S]*?GPIO_AF(\d+)_[\s\S]*?<\/PinSignal>/g)].filter((m) => own.has(m[1]!)).map((m) => `${m[2]} ${m[1]}`)
    expectEq(f, 'alternateFunctions', f.value.alternateFunctions.map((a: { af: number; signal: string }) => `${a.af} ${a.signal}`).sort(), [...new Set(afs)].sort(), out)
  }
  return out
}

function checkElectrical(f: GoldenFact): Checked {
  const e = f.evidence[0]!
  const steps = located(e).path.split('/').filter(Boolean)
  const last = steps.at(-1)!
  const out: Checked = []
  if (last.startsWith('@')) expectEq(f, 'value', f.value.value, Number(attr(element(e, steps.at(-2)!), last.slice(1))), out)
  else expectEq(f, 'value', f.value.value, Number(child(element(e, last), last)), out)
  return out
}

function checkErratum(f: GoldenFact): Checked {
  const e = f.evidence[0]!
  const m = /^line \d+: (\w+)\(\) › if \(var1 == (0x[0-9A-Fa-f]+)\)$/.exec(e.locator)!
  const { s, at } = located(e)
  const fnStart = s.text.lastIndexOf(`bool ${m[1]}(void)`, at)
  // The if's block: from its brace to the matching one (or its one statement without braces).
  const brace = s.text.indexOf('{', at)
  let block = s.text.slice(at, s.text.indexOf(';', at) + 1)
  if (/^\s*$/.test(s.text.slice(s.text.indexOf(')', at) + 1, brace))) {
    let depth = 0
    let i = brace
    do depth += s.text[i] === '{' ? 1 : s.text[i] === '}' ? -1 : 0
    while (depth > 0 && ++i < s.text.length)
    block = s.text.slice(at, i + 1)
  }
  const out: Checked = []
  if (fnStart < 0) throw new Error(`${f.name}: ${m[1]} is not defined before ${e.locator}`)
  expectEq(f, 'function', f.value.function, m[1], out)
  expectEq(f, 'number', f.value.number, Number(/_(\d+)$/.exec(m[1]!)![1]), out)
  expectEq(f, 'partCode', f.value.partCode?.toLowerCase(), m[2]!.toLowerCase(), out)
  if (!block.includes(`if (var1 == ${m[2]})`)) throw new Error(`${e.locator}: not at that block`)
  const cases = [...block.matchAll(/case (0x[0-9A-Fa-f]+)ul:\s*return (true|false);/g)].map((c) => ({ code: '0x' + c[1]!.slice(2).toUpperCase().padStart(2, '0'), applies: c[2] === 'true' }))
  const dflt = /default:\s*return (true|false);/.exec(block)?.[1]
  if (cases.length > 0 || dflt !== undefined) {
    const norm = (rs: Array<{ code: string; applies: boolean }>) => rs.map((r) => `${r.code.toUpperCase()} ${r.applies}`)
    expectEq(f, 'revisions', norm(f.value.revisions), norm(cases), out)
    expectEq(f, 'appliesToUnlistedRevisions', f.value.appliesToUnlistedRevisions, dflt === 'true', out)
  }
  return out
}

/** An SVD `<interrupt>`: its name, value and start, and the peripheral that lists it. */
interface Declared {
  peripheral: string
  name: string
  value: number | undefined
  at: number
}
const declarations = new Map<Source, Declared[]>()
/** Every `<interrupt>` of an SVD text, in file order. */
function svdInterrupts(s: Source): Declared[] {
  let out = declarations.get(s)
  if (out) return out
  out = []
  for (const p of s.text.matchAll(/<peripheral\b[^>]*>[\s\S]*?<\/peripheral>/g)) {
    // The peripheral's own <name> may follow its interrupts (RP2040): read it without them.
    const peripheral = child(own(p[0]).replace(/<interrupt>[\s\S]*?<\/interrupt>/g, ''), 'name')!
    for (const m of p[0].matchAll(/<interrupt>[\s\S]*?<\/interrupt>/g)) out.push({ peripheral, name: child(m[0], 'name')!, value: num(child(m[0], 'value')), at: p.index + m.index })
  }
  declarations.set(s, out)
  return out
}

function checkInterrupt(f: GoldenFact): Checked {
  const e = f.evidence[0]!
  const { s, at } = located(e)
  const start = s.text.indexOf('<interrupt>', at)
  const here = svdInterrupts(s).find((d) => d.at === start)
  const path = /\/peripheral\[name=([^\]]+)\]\/interrupt\[name=([^\]]+)\]$/.exec(e.locator)
  if (!here || start > s.text.indexOf('\n', at)) throw new Error(`${e.locator}: no <interrupt> on that line`)
  if (!path || path[1] !== here.peripheral || path[2] !== here.name) throw new Error(`${e.locator}: the line has ${here.peripheral}'s <interrupt> ${here.name}`)
  const out: Checked = []
  expectEq(f, 'name', f.name, here.name, out)
  // The same interrupt listed by several peripherals (nRF's shared lines, ADC1-3): all of them, and
  // the one number they all give it (the evidenced <interrupt>'s among them).
  const all = svdInterrupts(s).filter((d) => d.name === here.name)
  expectEq(f, 'number', [f.value.number], [...new Set(all.map((d) => d.value))], out)
  expectEq(f, 'peripherals', f.value.peripherals, [...new Set(all.map((d) => d.peripheral))].sort(), out)
  return out
}

export interface Mismatch {
  fact: string
  member: string
  served: unknown
  source: unknown
}
let mismatches: Mismatch[] = []

function expectEq(f: GoldenFact, member: string, served: unknown, fromSource: unknown, checked: Checked): void {
  checked.push(member)
  if (JSON.stringify(served) !== JSON.stringify(fromSource)) mismatches.push({ fact: f.name, member, served, source: fromSource })
}

const registerCheck = (v: Record<string, unknown>) => ('bitOffset' in v ? checkField : 'address' in v ? checkRegister : 'baseAddress' in v ? checkPeripheral : undefined)
const BY_TOPIC: Record<string, ((f: GoldenFact) => Checked) | undefined> = { pins: checkPin, electrical: checkElectrical, errata: checkErratum, interrupts: checkInterrupt }

/** The value members of each fact read back from its source; what differs, and how many members were checked. */
export function checkAgainstSources(facts: GoldenFact[]): { mismatches: Mismatch[]; checked: number; unchecked: string[] } {
  mismatches = []
  let checked = 0
  const unchecked: string[] = []
  for (const f of facts) {
    const check = f.topic === 'registers' ? registerCheck(f.value) : BY_TOPIC[f.topic]
    if (!check) {
      unchecked.push(f.name)
      continue
    }
    try {
      checked += check(f).length
    } catch (err) {
      mismatches.push({ fact: f.name, member: '(reading the source)', served: f.evidence.map((e) => e.locator), source: (err as Error).message })
    }
  }
  return { mismatches, checked, unchecked }
}
