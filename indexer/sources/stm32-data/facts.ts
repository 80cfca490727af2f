/**
 * Resolve and emit stages of an stm32-data chip file's facts: `interrupts`, `dma` and `clocks` of
 * each core, `memory` of the chip, `pins` of each package entry (stm32-data/pins.ts). Each fact's evidence is the JSON pointer of what it is read
 * from and the line that pointer is on.
 *
 * Targets: a single-core chip is one target (`stm32-data:STM32F407VG`). A multi-core chip's cores
 * each list their own interrupt table (STM32WL55's cm0p numbers its lines apart from its cm4),
 * peripherals and DMA channels, so each core is a target of its own (`stm32-data:STM32H745ZI@cm7`:
 * interrupts, dma, clocks), and the memory map, which the file gives once for the chip, is the
 * chip's (`stm32-data:STM32H745ZI`). Every name is then unique within its target and topic,
 * which one target with both cores' facts could not keep (`USART1` twice).
 */
import type { DocumentTarget, Evidence, FactDraft, ParseProblem, Topic } from '../../../src/model/fact.js'
import { SourceLines } from '../evidence.js'
import { address, type MemoryValue } from '../memory.js'
import type { LoadedArtifact } from '../types.js'
import type { Chip, ChipCore, ChipDmaEntry, ChipRcc, MemoryRegion, RccField } from './chip.js'
import { packagePinFacts } from './pins.js'

export const TARGET_PREFIX = 'stm32-data:'

/** What the adapter needs to link part numbers: the chip's targets, and each core's own. */
export interface ChipFacts {
  targets: DocumentTarget[]
  facts: FactDraft[]
  /** Key of the chip's own target (memory), when it has facts. */
  chipTarget?: string
  /** Per core of a multi-core chip: its name and its target's key. */
  coreTargets: { core: string; key: string }[]
  /** Per package entry (`STM32F407VGTx`) with pins: its pins target's key (in `targets`). */
  pinTargets: Map<string, string>
}

interface Emit {
  a: LoadedArtifact
  text: SourceLines
  line: (ptr: string) => number
  problems: ParseProblem[]
}

/**
 * Evidence of the member at `ptr` whose value is `value`: its excerpt spans the lines the value
 * takes in the file, which the generator writes as JSON.stringify(…, null, 2) does.
 */
function evidenceAt(e: Emit, ptr: string, value: unknown): Evidence {
  const line = e.line(ptr)
  const span = JSON.stringify(value, null, 2).split('\n').length
  return { sourceSha256: e.a.sha256, sourcePath: e.a.path, locator: `line ${line}: ${ptr}`, excerpt: e.text.excerpt(line, span) }
}

/** Reports a member that cannot be read; the rest of the file still is. */
const badAt = (e: Emit) => (ptr: string, what: string) => {
  e.problems.push({ file: e.a.path, line: e.line(ptr), reason: `${ptr}: ${what}; not read` })
}

class TargetFacts {
  readonly facts: FactDraft[] = []
  private readonly names = new Set<string>()

  constructor(
    readonly key: string,
    private readonly device: string,
    private readonly e: Emit
  ) {}

  evidence(ptr: string, value: unknown): Evidence {
    return evidenceAt(this.e, ptr, value)
  }

  push(topic: Topic, name: string, value: Record<string, unknown>, evidence: Evidence[], peripherals?: string[]): void {
    const k = `${topic}\0${name}`
    if (this.names.has(k)) {
      const at = evidence[0]!.locator
      this.e.problems.push({ file: this.e.a.path, line: Number(at.slice(5, at.indexOf(':'))), reason: `${topic} ${name} is given twice in ${this.key}; the first is kept` })
      return
    }
    this.names.add(k)
    this.facts.push({ target: this.key, topic, name, value, scope: { device: this.device }, evidence, ...(peripherals ? { peripherals } : {}) })
  }

  target(identity: DocumentTarget['identity']): DocumentTarget | undefined {
    if (this.facts.length === 0) return undefined
    const topics = [...new Set(this.facts.map((f) => f.topic))].sort()
    return { key: this.key, topics, device: this.device, sourceSha256: this.e.a.sha256, sourcePath: this.e.a.path, identity }
  }
}

export function chipFacts(a: LoadedArtifact, chip: Chip, lines: ReadonlyMap<string, number>, text: string, problems: ParseProblem[]): ChipFacts {
  const e: Emit = { a, text: new SourceLines(text), line: (ptr) => lines.get(ptr) ?? lines.get(ptr.replace(/\/[^/]*$/, '')) ?? 1, problems }
  const multi = chip.cores.length > 1
  const key = TARGET_PREFIX + chip.name
  const chipT = new TargetFacts(key, chip.name, e)
  emitMemory(chipT, chip.memory)
  const cores = chip.cores.map((c, i) => {
    const t = multi ? new TargetFacts(`${key}@${c.name}`, chip.name, e) : chipT
    emitCore(t, c, `/cores/${i}`, e)
    return { core: c.name, t }
  })
  const out: ChipFacts = { targets: [], facts: [], coreTargets: [], pinTargets: new Map() }
  const identity = { vendor: 'STMicroelectronics', series: chip.family }
  const chipTarget = chipT.target(multi ? identity : { ...identity, ...(chip.cores[0] ? { core: chip.cores[0].name } : {}) })
  if (chipTarget) {
    out.targets.push(chipTarget)
    for (const f of chipT.facts) out.facts.push(f)
    out.chipTarget = chipTarget.key
  }
  if (multi)
    for (const { core, t } of cores) {
      const target = t.target({ ...identity, core })
      if (!target) continue
      out.targets.push(target)
      for (const f of t.facts) out.facts.push(f)
      out.coreTargets.push({ core, key: target.key })
    }
  emitPins(e, chip, { ...identity, ...(multi || !chip.cores[0] ? {} : { core: chip.cores[0].name }) }, out)
  return out
}

/** `pins`: a target per package entry, named as the entry (`stm32-data:STM32F407VGTx`), as ST's pin data names its package's file. */
function emitPins(e: Emit, chip: Chip, identity: DocumentTarget['identity'], out: ChipFacts): void {
  const pkgs = new Map(chip.packages.map((p) => [TARGET_PREFIX + p.name, p]))
  const facts = packagePinFacts(chip, (p) => TARGET_PREFIX + p.name, { evidence: (ptr, value) => evidenceAt(e, ptr, value), bad: badAt(e) })
  const keys = [...new Set(facts.map((f) => f.target))]
  for (const key of keys) {
    const p = pkgs.get(key)!
    out.targets.push({ key, topics: ['pins'], device: p.name, sourceSha256: e.a.sha256, sourcePath: e.a.path, packages: [p.package], identity })
    out.pinTargets.set(p.name, key)
  }
  for (const f of facts) out.facts.push(f)
}

function emitCore(t: TargetFacts, core: ChipCore, at: string, e: Emit): void {
  const bad = badAt(e)
  // interrupts: each line of the core's table, with the peripherals whose interrupts name it.
  const raisedBy = new Map<string, Set<string>>()
  for (const p of core.peripherals ?? [])
    for (const i of p.interrupts ?? []) {
      const set = raisedBy.get(i.interrupt) ?? new Set<string>()
      set.add(p.name)
      raisedBy.set(i.interrupt, set)
    }
  ;(core.interrupts ?? []).forEach((irq, k) => {
    const ptr = `${at}/interrupts/${k}`
    if (typeof irq?.name !== 'string' || !Number.isInteger(irq.number)) return bad(ptr, 'an interrupt without a name and a whole number')
    const peripherals = [...(raisedBy.get(irq.name) ?? [])].sort()
    t.push('interrupts', irq.name, { number: irq.number, peripherals }, [t.evidence(ptr, irq)], peripherals)
  })
  const channels = new Map((core.dma_channels ?? []).map((c, k) => [c.name, { c, ptr: `${at}/dma_channels/${k}` }] as const))
  ;(core.peripherals ?? []).forEach((p, j) => {
    const pp = `${at}/peripherals/${j}`
    if (p.rcc) emitClock(t, p.name, p.rcc, `${pp}/rcc`, bad)
    emitDma(t, p.name, p.dma_channels ?? [], `${pp}/dma_channels`, channels, bad)
  })
}

const rccBit = (f: RccField | undefined) => (f && typeof f.register === 'string' && typeof f.field === 'string' ? `RCC.${f.register}.${f.field}` : undefined)

function emitClock(t: TargetFacts, peripheral: string, rcc: ChipRcc, ptr: string, bad: (ptr: string, what: string) => void): void {
  const enable = rccBit(rcc.enable)
  const kc = rcc.kernel_clock
  const kernelClock = typeof kc === 'string' ? kc : rccBit(kc)
  if (typeof rcc.bus_clock !== 'string' || kernelClock === undefined || enable === undefined) return bad(ptr, 'rcc without a bus clock, a kernel clock and an enable field')
  const value: Record<string, unknown> = { busClock: rcc.bus_clock, kernelClock }
  if (typeof kc !== 'string') value.kernelClockMux = { register: kc.register, field: kc.field }
  value.enable = enable
  value.reset = rccBit(rcc.reset) ?? null
  if (typeof rcc.stop_mode === 'string') value.stopMode = rcc.stop_mode
  t.push('clocks', peripheral, value, [t.evidence(ptr, rcc)], [peripheral])
}

/**
 * `dma`: a fact per signal of the peripheral (`USART1.TX`), its options in the file's order. A
 * channel (`DMA2_CH7`) is resolved through the core's `dma_channels` to its controller and number;
 * an entry naming a controller or multiplexer (`dma`, `dmamux`) has no fixed channel.
 */
function emitDma(
  t: TargetFacts,
  peripheral: string,
  entries: readonly ChipDmaEntry[],
  at: string,
  channels: ReadonlyMap<string, { c: ChipCore['dma_channels'][number]; ptr: string }>,
  bad: (ptr: string, what: string) => void
): void {
  const bySignal = new Map<string, { options: Record<string, unknown>[]; evidence: Evidence[] }>()
  entries.forEach((d, k) => {
    const ptr = `${at}/${k}`
    const request = Number.isInteger(d.request) ? (d.request as number) : null
    let option: Record<string, unknown>
    let via: string | undefined
    if (typeof d.channel === 'string') {
      const ch = channels.get(d.channel)
      if (!ch || typeof ch.c.dma !== 'string' || !Number.isInteger(ch.c.channel)) return bad(ptr, `DMA channel ${d.channel} is not in the core's dma_channels`)
      option = { controller: ch.c.dma, channel: ch.c.channel, request }
      via = ch.ptr
    } else if (typeof (d.dma ?? d.dmamux) === 'string') {
      // No fixed channel: any channel of that controller, or behind that multiplexer, by the core's list.
      const controller = (d.dma ?? d.dmamux) as string
      const served = [...channels.values()].filter(({ c }) => (d.dmamux !== undefined ? c.dmamux === controller : c.dma === controller)).map(({ c }) => c.name)
      option = { controller, channel: null, request, ...(served.length ? { channels: served } : {}) }
    }
    else return bad(ptr, 'a DMA entry without a channel, dma or dmamux')
    if (typeof d.signal !== 'string') return bad(ptr, 'a DMA entry without a signal')
    if (Array.isArray(d.remap)) option.remap = d.remap
    const s = bySignal.get(d.signal) ?? { options: [], evidence: [] }
    bySignal.set(d.signal, s)
    s.options.push(option)
    s.evidence.push(t.evidence(ptr, d))
    if (via !== undefined && !s.evidence.some((x) => x.locator.endsWith(`: ${via}`))) s.evidence.push(t.evidence(via, channels.get(d.channel as string)!.c))
  })
  for (const [signal, s] of bySignal) t.push('dma', `${peripheral}.${signal}`, { options: s.options }, s.evidence, [peripheral])
}

/** stm32-data kinds: `flash` and `ram` as they are; `eeprom` is neither. */
const KINDS: Readonly<Record<string, MemoryValue['kind']>> = { flash: 'flash', ram: 'ram' }

/**
 * `memory`: a fact per region. A chip with several layouts (single- and dual-bank flash, an option
 * byte away) gives a region every layout gives alike once, under its own name; the others once per
 * layout, named after it (`dual-bank.BANK_2_REGION_1`): a layout with a `BANK_2` region is the
 * dual-bank one; layouts that rule does not tell apart are numbered (`layout2.…`).
 */
function emitMemory(t: TargetFacts, layouts: readonly (readonly MemoryRegion[])[]): void {
  const same = new Set<string>()
  if (layouts.length > 1) {
    const json = (r: MemoryRegion) => JSON.stringify(r)
    for (const r of layouts[0]!) if (layouts.every((l) => l.some((x) => x.name === r.name && json(x) === json(r)))) same.add(r.name)
  }
  const labels = layouts.map((l) => (l.some((r) => r.name.startsWith('BANK_2')) ? 'dual-bank' : 'single-bank'))
  const named = new Set(labels).size === labels.length
  layouts.forEach((layout, i) => {
    const label = named ? labels[i]! : `layout${i + 1}`
    layout.forEach((r, j) => {
      if (same.has(r.name) && i > 0) return
      const value: MemoryValue = { kind: KINDS[r.kind] ?? 'other', start: address(r.address), size: r.size }
      if (r.access) value.access = { read: r.access.read, write: r.access.write, execute: r.access.execute }
      if (r.settings) {
        value.eraseSize = r.settings.erase_size
        value.writeSize = r.settings.write_size
      }
      const own = layouts.length > 1 && !same.has(r.name)
      if (own) value.layout = label
      t.push('memory', own ? `${label}.${r.name}` : r.name, value as unknown as Record<string, unknown>, [t.evidence(`/memory/${i}/${j}`, r)])
    })
  })
}
