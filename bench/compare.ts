import os from 'node:os'
import type { ComparePartsParams } from '../src/schemas/compare.js'
import type { ContextParams } from '../src/schemas/params.js'
import { Compare } from '../src/service/compare.js'
import { HardwareFacts } from '../src/service/facts.js'
import { SqliteRepository } from '../src/store/sqlite/store.js'
import { median } from './lib.js'

/**
 * Whole-peripheral comparisons (compare/parts, registers, one peripheral on two parts: every
 * peripheral, register and field of it on both, first page of up to 50 entries in 16,000 tokens)
 * against the two /v1/context calls each replaces (each part's same peripheral, 50 facts in 16,000
 * tokens), in the service layer, in process, one request at a time. The comparisons are every
 * peripheral two parts of a pair both have, over pairs one would port between.
 *  - cold: each comparison is the first request of its kind (a new comparison cache per round; the
 *    context answer cache off). Both read the store warm (see timing()), and which of the two runs
 *    first alternates.
 *  - warm: the server's defaults, the same requests repeated (both answer from their caches).
 * Ratios are compare / (two contexts) per comparison and round; the goal is a median ≤ 2.
 * For a peripheral over one context page, reading it whole takes every page of both parts
 * (following the cursors): `overOnePage.allPages` is the ratio against those calls, the first-page
 * figure beside it.
 */
export interface CompareBenchResult {
  pairs: string[]
  comparisons: number
  rounds: number
  /** os.loadavg() before and after: the machine is shared, and the figures move with its load. */
  load: { before: number[]; after: number[] }
  cold: Timing
  warm: Timing
}
interface Timing {
  compareMs: number
  twoContextsMs: number
  ratio: { median: number; p10: number; p90: number }
  /** All comparisons against the context calls each replaces: the first pages when it fits one page, else every page. */
  replaced?: { contextsMs: number; ratio: { median: number; p10: number; p90: number } }
  /** The same, for the comparisons whose peripheral fits one context page on both parts, and the others. */
  fitsOnePage?: Timing & { comparisons: number }
  overOnePage?: Timing & { comparisons: number; allPages?: AllPages }
}
/** compare against every context page of both parts (the calls that read the whole peripheral). */
interface AllPages {
  contextCalls: { median: number; max: number }
  contextsMs: number
  ratio: { median: number; p10: number; p90: number }
}

const PAIRS: Array<[string, string]> = [
  ['STM32F407VG', 'STM32G474RE'],
  ['STM32F407VG', 'STM32F429ZI'],
  ['STM32F103C8', 'STM32F407VG'],
  ['STM32L476RG', 'STM32G474RE'],
  ['STM32F401RE', 'STM32F411RE'],
  ['STM32F030F4', 'STM32G071RB'],
  ['nRF52832', 'nRF52840']
]
const PAGE = { topic: 'registers', limit: 50, max_tokens: 16000 } as const
const round3 = (x: number) => +x.toFixed(3)
const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]!

interface Case {
  compare: ComparePartsParams
  contexts: [ContextParams, ContextParams]
  /** Whether one part has more of the peripheral's facts than one context page (50) holds. */
  big?: boolean
}

/** Every peripheral both parts of a pair have, read from their registers facts (untimed). */
async function cases(f: HardwareFacts): Promise<Case[]> {
  const out: Case[] = []
  const store = await f.store()
  const ix = f.index(store)
  const peripherals = async (part: string) => {
    const { choice, res } = f.topicResolution(ix, ix.match(part).matches.map((m) => m.entity), 'registers', 10)
    if (!choice) throw new Error(`${part}: registers ${res.status}`)
    const rows = await store.queryFacts({ target: choice.target.key, topic: 'registers', names: [], prefixes: [], terms: [], limit: 1e6 })
    const facts = rows.map((r) => JSON.parse(r.body) as { name: string; value: Record<string, unknown> })
    return new Set(facts.filter((x) => 'baseAddress' in x.value).map((x) => x.name))
  }
  for (const [part, other] of PAIRS) {
    const a = await peripherals(part)
    const b = await peripherals(other)
    for (const peripheral of [...a].filter((p) => b.has(p)).sort())
      out.push({
        compare: { part, other, peripheral, ...PAGE } as ComparePartsParams,
        contexts: [{ part, peripheral, ...PAGE } as ContextParams, { part: other, peripheral, ...PAGE } as ContextParams]
      })
  }
  return out
}

/** A page's cursor, read from the body's tail (`page` is its last member but `notes`), as a client finds it. */
const NEXT_CURSOR = /"nextCursor":"([^"]+)"/

/** Every /v1/context page of the request, following the cursors: the number of calls. */
async function allPages(facts: HardwareFacts, p: ContextParams): Promise<number> {
  let calls = 0
  let cursor: string | undefined
  do {
    const { body } = await facts.context(cursor === undefined ? p : { ...p, cursor })
    calls++
    cursor = NEXT_CURSOR.exec(body.slice(body.lastIndexOf('"page":')))?.[1]
  } while (cursor !== undefined)
  return calls
}

async function time(run: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now()
  await run()
  return performance.now() - t0
}

/**
 * Each case once per round, compare and contexts alternating which goes first. Before each case,
 * an untimed comparison (on another instance) and the two contexts inflate the body blocks both
 * read, so both are timed on the same warm store.
 */
async function timing(all: Case[], rounds: number, compare: () => Compare, facts: HardwareFacts, warmUp?: () => Compare): Promise<Timing> {
  const c: number[] = []
  const x: number[] = []
  // Over one page: every page of both parts (ms and calls), by the same index as c and x.
  const w: number[] = []
  const calls: number[] = []
  for (let round = 0; round < rounds; round++) {
    const cmp = compare()
    for (const [i, k] of all.entries()) {
      const contexts = async () => (await facts.context(k.contexts[0]), await facts.context(k.contexts[1]))
      let n = 0
      const whole = async () => (n = (await allPages(facts, k.contexts[0])) + (await allPages(facts, k.contexts[1])))
      if (warmUp) await warmUp().parts(k.compare), await (k.big ? whole() : contexts())
      const t = { c: 0, x: 0, w: NaN }
      const steps = [async () => (t.c = await time(() => cmp.parts(k.compare))), async () => (t.x = await time(contexts))]
      if (k.big) steps.push(async () => (t.w = await time(whole)))
      for (const step of (i + round) % 2 === 0 ? steps : steps.reverse()) await step()
      c.push(t.c), x.push(t.x), w.push(t.w), calls.push(n)
    }
  }
  const summary = (keep: (k: Case) => boolean): Timing => {
    const at = c.map((_, i) => i).filter((i) => keep(all[i % all.length]!))
    const rs = at.map((i) => c[i]! / x[i]!)
    return {
      compareMs: round3(median(at.map((i) => c[i]!))),
      twoContextsMs: round3(median(at.map((i) => x[i]!))),
      ratio: { median: round3(median(rs)), p10: round3(quantile(rs, 0.1)), p90: round3(quantile(rs, 0.9)) }
    }
  }
  const n = (big: boolean) => all.filter((k) => k.big === big).length
  const big = c.map((_, i) => i).filter((i) => all[i % all.length]!.big)
  const whole = (): AllPages | undefined => {
    if (!big.length || big.some((i) => Number.isNaN(w[i]!))) return undefined
    const rs = big.map((i) => c[i]! / w[i]!)
    const ns = big.map((i) => calls[i]!)
    return {
      contextCalls: { median: median(ns), max: Math.max(...ns) },
      contextsMs: round3(median(big.map((i) => w[i]!))),
      ratio: { median: round3(median(rs)), p10: round3(quantile(rs, 0.1)), p90: round3(quantile(rs, 0.9)) }
    }
  }
  // Every comparison against the calls it replaces: one page each when it fits, else every page.
  const replaced = (): Timing['replaced'] => {
    const base = c.map((_, i) => (all[i % all.length]!.big ? w[i]! : x[i]!))
    if (base.some(Number.isNaN)) return undefined
    const rs = c.map((v, i) => v / base[i]!)
    return { contextsMs: round3(median(base)), ratio: { median: round3(median(rs)), p10: round3(quantile(rs, 0.1)), p90: round3(quantile(rs, 0.9)) } }
  }
  return {
    ...summary(() => true),
    replaced: replaced(),
    fitsOnePage: { ...summary((k) => !k.big), comparisons: n(false) },
    overOnePage: { ...summary((k) => !!k.big), comparisons: n(true), allPages: whole() }
  }
}

export async function benchCompare(dataDir: string, rounds = 3): Promise<CompareBenchResult> {
  const repo = new SqliteRepository(dataDir)
  try {
    const before = os.loadavg().map((l) => +l.toFixed(2))
    const cold = new HardwareFacts(repo, 'bench', { contextCacheBytes: 0 })
    const all = await cases(cold)
    for (const k of all) {
      const r = JSON.parse(await new Compare(cold).parts(k.compare)) as { status: string; counts: Record<'onlyPart' | 'onlyOther' | 'differs' | 'same', number> }
      if (r.status !== 'ok') throw new Error(`${k.compare.part} vs ${k.compare.other}, ${k.compare.peripheral}: ${r.status}`)
      const { onlyPart, onlyOther, differs, same } = r.counts
      k.big = Math.max(onlyPart, onlyOther) + differs + same > PAGE.limit
    }
    const coldT = await timing(all, rounds, () => new Compare(cold), cold, () => new Compare(cold))
    // Warm: the server's defaults, the same requests again (a few cases, so every answer stays in its cache).
    const warm = new HardwareFacts(repo, 'bench', { contextCacheBytes: 16 << 20 })
    const shared = new Compare(warm)
    const few = all.slice(0, 20)
    await timing(few, 1, () => shared, warm)
    const warmT = await timing(few, rounds, () => shared, warm)
    return { pairs: PAIRS.map(([a, b]) => `${a} vs ${b}`), comparisons: all.length, rounds, load: { before, after: os.loadavg().map((l) => +l.toFixed(2)) }, cold: coldT, warm: warmT }
  } finally {
    await repo.close()
  }
}
