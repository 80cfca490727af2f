import { availableParallelism } from 'node:os'
import type { Worker } from 'node:worker_threads'
import { rmSync } from 'node:fs'
import type { FactDraft, ParseProblem } from '../src/model/fact.js'
import { DataDir } from '../src/store/layout.js'
import { encodeInOrder, ENCODER } from './encode.js'
import { archivedArtifact, WriteError, type ArtifactRef } from './inventory.js'
import { cachedShard, readEntry, shardTmpPath, unitKey, writeEntry, type UnitSummary } from './parse-cache.js'
import { writeShard } from './shard.js'
import { ADAPTERS } from './sources/index.js'
import type { AdapterResult } from './sources/types.js'
import { startWorker } from './workers.js'

/** Artifacts one adapter parses together, apart from all others, and the key of its parse cache entry. */
export interface ParseUnit {
  adapter: string
  artifacts: ArtifactRef[]
  key: string
}

/**
 * The units of a build, in the order their results are concatenated: adapter by adapter, each
 * adapter's artifacts in inventory order, split where the adapter says its artifacts are independent.
 * Artifacts of a kind no adapter claims are reported. An adapter's `units` sees the artifacts as it
 * will in `parse` (content read from the archive when asked for).
 */
export function parseUnits(artifacts: readonly ArtifactRef[], data: DataDir): { units: ParseUnit[]; unclaimed: ParseProblem[] } {
  const units: ParseUnit[] = []
  const claimed = new Set<string>()
  for (const a of ADAPTERS) {
    const mine = artifacts.filter((x) => a.kinds.includes(x.kind))
    for (const x of mine) claimed.add(x.path)
    if (mine.length === 0) continue
    const byPath = new Map(mine.map((x) => [x.path, x]))
    const groups = a.units ? a.units(mine.map((x) => archivedArtifact(data, x))).map((g) => g.map((x) => byPath.get(x.path)!)) : [mine]
    for (const group of groups) units.push({ adapter: a.name, artifacts: group, key: unitKey(ENCODER, a, group) })
  }
  const unclaimed = artifacts.filter((x) => !claimed.has(x.path)).map((x) => ({ file: x.path, reason: `no adapter for source kind "${x.kind}"` }))
  return { units, unclaimed }
}

/**
 * The adapter's facts that name one of its own targets, and a problem for each that does not: a
 * unit's facts are served from its own shard, so a fact of a target another unit gives (or none
 * does) cannot be.
 */
export function ownFacts(r: Pick<AdapterResult, 'targets' | 'facts'>): { facts: FactDraft[]; problems: ParseProblem[] } {
  const own = new Set(r.targets.map((t) => t.key))
  const facts: FactDraft[] = []
  const problems: ParseProblem[] = []
  for (const f of r.facts) {
    if (own.has(f.target)) facts.push(f)
    else problems.push({ file: f.evidence[0]?.sourcePath ?? '?', reason: `fact ${f.name} names target ${f.target}, which its parse unit does not give; not served` })
  }
  return { facts, problems }
}

/**
 * Runs one unit's adapter, writes its facts (if any: a GPIO modes file no MCU file names gives
 * none) as a shard into the parse cache, records the unit's entry and returns its summary: what a
 * parse worker does with each unit it is sent.
 */
export function parseUnit(unit: ParseUnit, dataRoot: string): UnitSummary {
  const adapter = ADAPTERS.find((a) => a.name === unit.adapter)
  if (!adapter) throw new Error(`no adapter named ${unit.adapter}`)
  const data = new DataDir(dataRoot)
  const r = adapter.parse(unit.artifacts.map((a) => archivedArtifact(data, a)))
  const { facts, problems } = ownFacts(r)
  // No second reference to the drafts: encodeInOrder releases each once it is encoded.
  r.facts = []
  const summary: UnitSummary = { targets: r.targets, parts: r.parts, ...(r.partNumbers?.length ? { partNumbers: r.partNumbers } : {}), problems: [...r.problems, ...problems] }
  if (facts.length > 0) {
    const tmp = shardTmpPath(dataRoot, unit.key)
    try {
      summary.shard = writeShard(tmp, encodeInOrder(facts), (sha256) => cachedShard(dataRoot, sha256))
    } finally {
      rmSync(tmp, { force: true })
    }
  }
  writeEntry(dataRoot, unit.key, summary)
  return summary
}

/**
 * Workers at most: each loads its own tokenizer tables and holds one unit's parse, and the biggest
 * unit bounds the parse time beyond a few workers anyway.
 */
const MAX_WORKERS = 8

export interface ParseStats {
  parsed: number
  cached: number
}

/**
 * The summary of every unit, in unit order: read from the parse cache, or parsed in worker threads
 * (one per core up to MAX_WORKERS; a single unit on this thread), each worker holding one unit at a time and writing its shard
 * to the cache itself, so only summaries cross threads. Bigger units go out first, so the workers
 * finish close together. Whichever worker finishes first, the summaries are the same.
 */
export async function parseAll(units: readonly ParseUnit[], dataRoot: string, onUnit: () => void): Promise<{ summaries: UnitSummary[]; stats: ParseStats }> {
  const summaries: UnitSummary[] = new Array<UnitSummary>(units.length)
  const todo: number[] = []
  units.forEach((u, i) => {
    const hit = readEntry(dataRoot, u.key)
    if (hit) {
      summaries[i] = hit
      onUnit()
    } else todo.push(i)
  })
  const bytes = units.map((u) => u.artifacts.reduce((n, a) => n + a.bytes, 0))
  const queue = todo.sort((a, b) => bytes[b]! - bytes[a]! || a - b)
  const stats = { parsed: queue.length, cached: units.length - queue.length }
  if (queue.length === 1) {
    // One unit (a re-index after one change): parsed on this thread, which has the adapters and the
    // tokenizer loaded already; a worker would first spend about half a second loading them.
    const i = queue[0]!
    try {
      summaries[i] = parseUnit(units[i]!, dataRoot)
    } catch (err) {
      throw err instanceof WriteError ? err : new Error(`parsing ${unitName(units[i]!)}: ${(err as Error).stack ?? String(err)}`)
    }
    onUnit()
    return { summaries, stats }
  }
  const workers = Array.from({ length: Math.min(queue.length, availableParallelism(), MAX_WORKERS) }, () => startWorker('parse-worker'))
  const inFlight = new Set<number>()
  try {
    await Promise.all(
      workers.map(async (w) => {
        for (let i = queue.shift(); i !== undefined; i = queue.shift()) {
          inFlight.add(i)
          summaries[i] = await request(w, units[i]!, dataRoot)
          inFlight.delete(i)
          onUnit()
        }
      })
    )
  } finally {
    queue.length = 0
    await Promise.all(workers.map((w) => w.terminate()))
    // A worker stopped mid-unit (another one failed) leaves its unfinished shard: no half-written file stays.
    for (const i of inFlight) rmSync(shardTmpPath(dataRoot, units[i]!.key), { force: true })
  }
  return { summaries, stats }
}

/** A unit as an error message names it. */
const unitName = (unit: ParseUnit) => unit.artifacts[0]?.path ?? unit.adapter

/** A worker's answer: the summary, or the error it met (a failed write keeps its one-line message). */
export type WorkerReply = { summary: UnitSummary } | { error: string; write: boolean }

/** Sends one unit to a worker and settles on its reply, its error or its exit, whichever comes first. */
export function request(w: Worker, unit: ParseUnit, dataRoot: string): Promise<UnitSummary> {
  return new Promise((resolve, reject) => {
    const settle = (f: () => void) => {
      w.off('message', onMessage).off('error', onError).off('exit', onExit)
      f()
    }
    const onMessage = (r: WorkerReply) =>
      settle(() => ('summary' in r ? resolve(r.summary) : reject(r.write ? new WriteError(r.error) : new Error(`parsing ${unitName(unit)}: ${r.error}`))))
    const onError = (err: Error) => settle(() => reject(err))
    const onExit = (code: number) => settle(() => reject(new Error(`parse worker exited with code ${code}`)))
    w.on('message', onMessage).on('error', onError).on('exit', onExit)
    w.postMessage({ unit, dataRoot })
  })
}
