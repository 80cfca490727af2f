import type { Topic } from '../src/model/fact.js'
import Database from 'better-sqlite3'
import { TERMS_TABLE } from '../src/store/sqlite/schema.js'
import { scopedTerms, type EncodedChunk } from './encode.js'
import { WriteError, writing } from './inventory.js'
import { CacheReader, type ChunkRef } from './parse-cache.js'
import { startWorker } from './workers.js'

/** One target and topic's facts as the release stores them: contiguous ords, from these chunks in this order. */
export interface RangePlan {
  target: string
  topic: Topic
  /** Prefix of the range's search terms (scopedTermPrefix). */
  scope: string
  chunks: Array<{ file: string; ref: ChunkRef }>
  /** The chunks come from more than one unit: a fact id already given by an earlier chunk is left out. */
  dedupe: boolean
}

export interface PlannedChunk {
  /** Index of the chunk's range in the plan. */
  range: number
  chunk: EncodedChunk
  /** The chunk's per-fact columns as stored in the cache (what the release id digests). */
  meta: Buffer
  /** Which of the chunk's facts are kept; undefined when all are. */
  keep: boolean[] | undefined
}

/**
 * The chunks of a plan in release order, read from the parse cache, with the facts each keeps: the one
 * walk the facts writer and the terms writer both make, so their ords agree (the n-th kept fact is ord n).
 */
export function* planChunks(plan: readonly RangePlan[]): Generator<PlannedChunk> {
  for (let range = 0; range < plan.length; range++) {
    const r = plan[range]!
    const seen = r.dedupe ? new Set<string>() : undefined
    for (const { file, ref } of r.chunks) {
      const reader = new CacheReader(file)
      let read: { chunk: EncodedChunk; meta: Buffer }
      try {
        read = reader.read(ref)
      } finally {
        reader.close()
      }
      let keep: boolean[] | undefined
      if (seen) {
        // Names are unique per target/topic/package: across units too, the first in release order wins.
        keep = read.chunk.ids.map((id) => !seen.has(id) && (seen.add(id), true))
        if (keep.every(Boolean)) keep = undefined
      }
      yield { range, chunk: read.chunk, meta: read.meta, keep }
    }
  }
}

const TERMS_BATCH = 32

/**
 * Writes the release's full-text index alone into `file` (a fresh SQLite file): the scoped search
 * terms of every kept fact, rowid = its ord, then merged into one segment. Run in a worker while the
 * main thread writes the other tables; the build then copies the index's tables into the release.
 */
export function writeTerms(file: string, plan: readonly RangePlan[]): void {
  const db = writing(file, () => new Database(file))
  try {
    writing(file, () => {
      db.pragma('journal_mode = OFF')
      db.pragma('synchronous = OFF')
      db.pragma('cache_size = -65536')
      db.exec(TERMS_TABLE)
      const insOne = db.prepare('INSERT INTO fact_terms (rowid, terms) VALUES (?, ?)')
      // TERMS_BATCH rows to a statement: about half the cost of one statement per row.
      const insBatch = db.prepare(`INSERT INTO fact_terms (rowid, terms) VALUES ${Array(TERMS_BATCH).fill('(?, ?)').join(', ')}`)
      const pending: Array<number | string> = []
      db.transaction(() => {
        let ord = 0
        for (const { range, chunk, keep } of planChunks(plan)) {
          const scope = plan[range]!.scope
          chunk.terms.forEach((t, i) => {
            if (keep && !keep[i]) return
            ord++
            if (t !== '' && pending.push(ord, scopedTerms(t, scope)) === 2 * TERMS_BATCH) {
              insBatch.run(pending)
              pending.length = 0
            }
          })
        }
        for (let i = 0; i < pending.length; i += 2) insOne.run(pending[i], pending[i + 1])
      })()
      db.exec("INSERT INTO fact_terms (fact_terms) VALUES ('optimize')")
    })
  } finally {
    db.close()
  }
}

/** A terms worker's answer. */
export type TermsReply = { done: true } | { error: string; write: boolean }

/** writeTerms in a worker thread: settles when the file is complete; `stop` ends the worker early. */
export function writeTermsInWorker(file: string, plan: readonly RangePlan[]): { done: Promise<void>; stop: () => Promise<void> } {
  const w = startWorker('terms-worker')
  const done = new Promise<void>((resolve, reject) => {
    w.once('message', (r: TermsReply) => ('done' in r ? resolve() : reject(r.write ? new WriteError(r.error) : new Error(`writing the full-text index: ${r.error}`))))
    w.once('error', reject)
    w.once('exit', (code) => reject(new Error(`terms worker exited with code ${code}`)))
  }).finally(() => w.terminate())
  w.postMessage({ file, plan })
  return { done, stop: () => w.terminate().then(() => undefined) }
}
