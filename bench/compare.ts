import type { ComparePartsParams } from '../src/schemas/compare.js'
import type { ContextParams } from '../src/schemas/params.js'
import { Compare, compareOf } from '../src/service/compare.js'
import { HardwareFacts } from '../src/service/facts.js'
import { SqliteRepository } from '../src/store/sqlite/store.js'
import { median } from './lib.js'

/**
 * A whole-peripheral comparison (USART1 registers, STM32F407VG vs STM32G474RE: every peripheral,
 * register and field of it on both parts, first page of up to 50 entries in 16,000 tokens) against
 * the two /v1/context calls it replaces (each part's USART1, 50 facts in 16,000 tokens), in the
 * service layer, in process, one request at a time. Each iteration runs both, so a shared machine's
 * drift hits both alike; the ratio is the median of the per-iteration ratios.
 *  - cold: nothing kept between requests (context answer cache off, a new comparison cache each time);
 *  - warm: the server's defaults, the same request repeated (both answer from their caches).
 */
export interface CompareBenchResult {
  iterations: number
  entries: number
  facts: number
  cold: Timing
  warm: Timing
}
interface Timing {
  compareMs: number
  twoContextsMs: number
  /** compare / (two contexts), median of the per-iteration ratios; the goal is ≤ 2. */
  ratio: { median: number; min: number; max: number }
}

const COMPARE = { part: 'STM32F407VG', other: 'STM32G474RE', topic: 'registers', peripheral: 'USART1', limit: 50, max_tokens: 16000 } as ComparePartsParams
const context = (part: string) => ({ part, topic: 'registers', peripheral: 'USART1', limit: 50, max_tokens: 16000 }) as ContextParams
const round3 = (x: number) => +x.toFixed(3)

async function timing(iterations: number, compare: () => Promise<unknown>, contexts: () => Promise<unknown>): Promise<Timing> {
  const c: number[] = []
  const x: number[] = []
  for (let i = 0; i < iterations + 5; i++) {
    const t0 = performance.now()
    await compare()
    const t1 = performance.now()
    await contexts()
    const t2 = performance.now()
    // The first few warm the JIT and the page cache.
    if (i >= 5) c.push(t1 - t0), x.push(t2 - t1)
  }
  const rs = c.map((v, i) => v / x[i]!)
  return { compareMs: round3(median(c)), twoContextsMs: round3(median(x)), ratio: { median: round3(median(rs)), min: round3(Math.min(...rs)), max: round3(Math.max(...rs)) } }
}

export async function benchCompare(dataDir: string, iterations = 200): Promise<CompareBenchResult> {
  const repo = new SqliteRepository(dataDir)
  try {
    const cold = new HardwareFacts(repo, 'bench', { contextCacheBytes: 0 })
    const warm = new HardwareFacts(repo, 'bench', { contextCacheBytes: 16 << 20 })
    const first = JSON.parse(await compareOf(warm).parts(COMPARE)) as { entries: unknown[]; status: string }
    if (first.status !== 'ok') throw new Error(`the comparison answered ${first.status}`)
    const facts = await Promise.all([COMPARE.part, COMPARE.other].map(async (p) => (JSON.parse((await warm.context(context(p))).body) as { facts: unknown[] }).facts.length))
    const twoContexts = (f: HardwareFacts) => async () => {
      await f.context(context(COMPARE.part))
      await f.context(context(COMPARE.other))
    }
    return {
      iterations,
      entries: first.entries.length,
      facts: facts[0]! + facts[1]!,
      cold: await timing(iterations, () => new Compare(cold).parts(COMPARE), twoContexts(cold)),
      warm: await timing(iterations, () => compareOf(warm).parts(COMPARE), twoContexts(warm))
    }
  } finally {
    await repo.close()
  }
}
