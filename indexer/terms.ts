import type { Topic } from '../src/model/fact.js'
import Database from 'better-sqlite3'
import { TERMS_TABLE } from '../src/store/sqlite/schema.js'
import { WriteError, writing } from './inventory.js'
import { CacheReader, splitTerms, type ChunkRef } from './parse-cache.js'
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

export interface PlannedChunk<T> {
  /** Index of the chunk's range in the plan. */
  range: number
  /** What `read` took of the chunk. */
  value: T
  /** Which of the chunk's facts are kept; undefined when all are. */
  keep: boolean[] | undefined
}

/**
 * The chunks of a plan in release order, each as `read` takes it from the parse cache, with the facts
 * each keeps: the one walk the facts writer and the terms writer both make, so their ords agree (the
 * n-th kept fact is ord n). `ids` gives a chunk's fact ids, asked only where a range dedupes.
 */
export function* planChunks<T>(
  plan: readonly RangePlan[],
  read: (reader: CacheReader, ref: ChunkRef) => T,
  ids: (value: T, reader: CacheReader, ref: ChunkRef) => string[]
): Generator<PlannedChunk<T>> {
  for (let range = 0; range < plan.length; range++) {
    const r = plan[range]!
    const seen = r.dedupe ? new Set<string>() : undefined
    for (const { file, ref } of r.chunks) {
      const reader = new CacheReader(file)
      let value: T
      let keep: boolean[] | undefined
      try {
        value = read(reader, ref)
        if (seen) {
          // Names are unique per target/topic/package: across units too, the first in release order wins.
          keep = ids(value, reader, ref).map((id) => !seen.has(id) && (seen.add(id), true))
          if (keep.every(Boolean)) keep = undefined
        }
      } finally {
        reader.close()
      }
      yield { range, value, keep }
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
      // Small: its pages are written once, in order (the main thread's 64 MiB cache serves random inserts).
      db.pragma('cache_size = -8192')
      db.exec(TERMS_TABLE)
      // No merging while the rows go in ('optimize' merges everything once at the end): 13% less
      // CPU for the core corpus's index. A setting of this file only: the release gets the tables.
      db.exec("INSERT INTO fact_terms (fact_terms, rank) VALUES ('automerge', 0)")
      const insOne = db.prepare('INSERT INTO fact_terms (rowid, terms) VALUES (?, ?)')
      // TERMS_BATCH rows to a statement: about half the cost of one statement per row.
      const insBatch = db.prepare(`INSERT INTO fact_terms (rowid, terms) VALUES ${Array(TERMS_BATCH).fill('(?, ?)').join(', ')}`)
      const pending: Array<number | string> = []
      db.transaction(() => {
        let ord = 0
        const chunks = planChunks(
          plan,
          (reader, ref) => reader.readTerms(ref),
          (_, reader, ref) => reader.readColumns(ref).ids
        )
        for (const { range, value, keep } of chunks) {
          const scope = plan[range]!.scope
          // Scoped all at once: each line's terms prefixed (an empty line, a fact without terms, stays empty).
          const lines = splitTerms(value.replaceAll(' ', ' ' + scope).replaceAll('\n', '\n' + scope))
          lines[0] = scope + lines[0]
          lines.forEach((t, i) => {
            if (keep && !keep[i]) return
            ord++
            if (t !== scope && pending.push(ord, t) === 2 * TERMS_BATCH) {
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
  // Awaited only once the other tables are written; a build that fails before then never awaits it.
  done.catch(() => {})
  w.postMessage({ file, plan })
  return { done, stop: () => w.terminate().then(() => undefined) }
}
