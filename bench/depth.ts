import os from 'node:os'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import type { Topic } from '../src/model/fact.js'
import { HardwareFacts } from '../src/service/facts.js'
import { DataDir } from '../src/store/layout.js'
import { SqliteRepository } from '../src/store/sqlite/store.js'
import { subsetRelease } from '../test/compare/subset-release.js'
import { median } from './lib.js'

/**
 * A page of a depth topic against a registers page of the same size (issue "Depth": ≤ 1.1×), in
 * the service layer, in process, the answer cache off: each depth page beside the registers page of
 * the same part nearest it in bytes (a cross-checked fact carries two evidences, so a page of as
 * many facts is larger), alternating which runs first. The depth pages are the
 * cross-checked ones (interrupts: chip file and SVD; memory: chip file and probe-rs) and one
 * source's (dma, clocks), on a release of the world-corpus files that describe the parts.
 */
const FILES = [
  'chips/stm32-data/STM32F407VG.json',
  'svd/STMicro/stm32f4/STM32F407.svd',
  'targets/probe-rs/STM32F4_Series.yaml',
  'chips/stm32-data/STM32H743VI.json',
  'svd/STMicro/stm32h7/STM32H743.svd',
  'targets/probe-rs/STM32H7_Series.yaml'
]
const CASES: Array<{ part: string; topic: Topic; limit: number }> = [
  { part: 'STM32F407VG', topic: 'interrupts', limit: 20 },
  { part: 'STM32F407VG', topic: 'memory', limit: 7 },
  { part: 'STM32F407VG', topic: 'dma', limit: 20 },
  { part: 'STM32H743VI', topic: 'interrupts', limit: 20 },
  { part: 'STM32H743VI', topic: 'clocks', limit: 20 }
]

export interface DepthBenchResult {
  rounds: number
  load: { before: number[]; after: number[] }
  cases: Array<{ part: string; topic: Topic; facts: number; bytes: number; registersFacts: number; registersBytes: number; ms: number; registersMs: number; ratio: number }>
}

const round3 = (x: number) => +x.toFixed(3)

export async function benchDepth(world: string, rounds = 40): Promise<DepthBenchResult> {
  const data = mkdtempSync(join(tmpdir(), 'hwfacts-bench-depth-'))
  const repo = new SqliteRepository(data)
  try {
    new DataDir(data).promote(await subsetRelease(resolve(world), FILES, data))
    const f = new HardwareFacts(repo, 'bench', { contextCacheBytes: 0 })
    const before = os.loadavg().map((l) => +l.toFixed(2))
    const cases: DepthBenchResult['cases'] = []
    for (const c of CASES) {
      const depth = { part: c.part, topic: c.topic, limit: c.limit, max_tokens: 16000 }
      const page = async (p: { part: string; topic: Topic; limit: number; max_tokens: number }) => (await f.context(p)).body
      // Untimed: the release, its catalog index and the cross-check are read once, as a serving process has them.
      const body = await page(depth)
      // The registers page of the same size: as many bytes as near as a whole number of facts gives.
      let regs = { part: c.part, topic: 'registers' as Topic, limit: 1, max_tokens: 16000 }
      let regsBody = await page(regs)
      for (let limit = 2; limit <= 50; limit++) {
        const b = await page({ ...regs, limit })
        if (Math.abs(b.length - body.length) < Math.abs(regsBody.length - body.length)) [regs, regsBody] = [{ ...regs, limit }, b]
      }
      const d: number[] = []
      const r: number[] = []
      for (let i = 0; i < rounds; i++) {
        const steps = [async () => d.push(await time(() => page(depth))), async () => r.push(await time(() => page(regs)))]
        for (const step of i % 2 === 0 ? steps : steps.reverse()) await step()
      }
      const facts = (text: string) => (JSON.parse(text) as { facts: unknown[] }).facts.length
      cases.push({
        part: c.part,
        topic: c.topic,
        facts: facts(body),
        bytes: body.length,
        registersFacts: facts(regsBody),
        registersBytes: regsBody.length,
        ms: round3(median(d)),
        registersMs: round3(median(r)),
        ratio: round3(median(d.map((v, i) => v / r[i]!)))
      })
    }
    return { rounds, load: { before, after: os.loadavg().map((l) => +l.toFixed(2)) }, cases }
  } finally {
    await repo.close()
    rmSync(data, { recursive: true, force: true })
  }
}

async function time(run: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now()
  await run()
  return performance.now() - t0
}
