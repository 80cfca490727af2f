import { availableParallelism } from 'node:os'
import { Worker } from 'node:worker_threads'
import type { CatalogPart, DocumentTarget, ParseProblem } from '../src/model/fact.js'
import { encodeFact, type EncodedFact } from './encode.js'
import { ADAPTERS } from './sources/index.js'
import type { LoadedArtifact } from './sources/types.js'

/** Artifacts one adapter parses together, apart from all others. */
export interface ParseUnit {
  adapter: string
  artifacts: LoadedArtifact[]
}

export interface ParsedUnit {
  targets: DocumentTarget[]
  facts: EncodedFact[]
  parts: CatalogPart[]
  problems: ParseProblem[]
}

/**
 * The units of a build, in the order their results are concatenated: adapter by adapter, each
 * adapter's artifacts in inventory order, split where the adapter says its artifacts are independent.
 * Artifacts of a kind no adapter claims are reported.
 */
export function parseUnits(artifacts: readonly LoadedArtifact[]): { units: ParseUnit[]; unclaimed: ParseProblem[] } {
  const units: ParseUnit[] = []
  const claimed = new Set<string>()
  for (const a of ADAPTERS) {
    const mine = artifacts.filter((x) => a.kinds.includes(x.kind))
    for (const x of mine) claimed.add(x.path)
    if (mine.length === 0) continue
    for (const group of a.units?.(mine) ?? [mine]) units.push({ adapter: a.name, artifacts: group })
  }
  const unclaimed = artifacts.filter((x) => !claimed.has(x.path)).map((x) => ({ file: x.path, reason: `no adapter for source kind "${x.kind}"` }))
  return { units, unclaimed }
}

/** Runs one unit's adapter and encodes its facts; what a parse worker does with each unit it is sent. */
export function parseUnit(unit: ParseUnit): ParsedUnit {
  const adapter = ADAPTERS.find((a) => a.name === unit.adapter)
  if (!adapter) throw new Error(`no adapter named ${unit.adapter}`)
  // Buffers arrive from another thread as plain Uint8Arrays.
  const artifacts = unit.artifacts.map((a) => ({ ...a, content: Buffer.from(a.content.buffer, a.content.byteOffset, a.content.byteLength) }))
  const r = adapter.parse(artifacts)
  return { targets: r.targets, facts: r.facts.map(encodeFact), parts: r.parts, problems: r.problems }
}

/**
 * Workers at most: each loads its own tokenizer tables, and the biggest unit (all STM32 pin data,
 * about a seventh of the corpus's parse work) bounds the parse time beyond a few workers anyway.
 */
const MAX_WORKERS = 8

/**
 * Parses every unit in worker threads, one per core up to MAX_WORKERS, and returns the results in
 * unit order: whichever worker finishes first, the release is the same. Bigger units go out first,
 * so the workers finish close together.
 */
export async function parseAll(units: readonly ParseUnit[], onUnit: () => void): Promise<ParsedUnit[]> {
  const results: ParsedUnit[] = new Array<ParsedUnit>(units.length)
  const bytes = units.map((u) => u.artifacts.reduce((n, a) => n + a.content.length, 0))
  const queue = units.map((_, i) => i).sort((a, b) => bytes[b]! - bytes[a]! || a - b)
  const workers = Array.from({ length: Math.min(queue.length, availableParallelism(), MAX_WORKERS) }, startWorker)
  try {
    await Promise.all(
      workers.map(async (w) => {
        for (let i = queue.shift(); i !== undefined; i = queue.shift()) {
          results[i] = await request(w, units[i]!)
          onUnit()
        }
      })
    )
  } finally {
    await Promise.all(workers.map((w) => w.terminate()))
  }
  return results
}

/**
 * A parse worker: compiled JavaScript in a build; run from TypeScript sources (tsx, tests), the
 * worker registers tsx's loader first, as a worker does not inherit its parent's module hooks.
 */
function startWorker(): Worker {
  const ext = import.meta.url.endsWith('.ts') ? '.ts' : '.js'
  const entry = new URL(`./parse-worker${ext}`, import.meta.url)
  if (ext === '.js') return new Worker(entry)
  return new Worker(`import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(entry.href)}) })`, { eval: true })
}

function request(w: Worker, unit: ParseUnit): Promise<ParsedUnit> {
  return new Promise((resolve, reject) => {
    const settle = (f: () => void) => {
      w.off('message', onMessage).off('error', onError).off('exit', onExit)
      f()
    }
    const onMessage = (r: ParsedUnit) => settle(() => resolve(r))
    const onError = (err: Error) => settle(() => reject(err))
    const onExit = (code: number) => settle(() => reject(new Error(`parse worker exited with code ${code}`)))
    w.on('message', onMessage).on('error', onError).on('exit', onExit)
    w.postMessage(unit)
  })
}
