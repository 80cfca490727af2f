import { chmodSync, mkdirSync, renameSync, rmSync } from 'node:fs'
import { dirname } from 'node:path'
import Database from 'better-sqlite3'
import type { Topic } from '../src/model/fact.js'
import { BODY_BLOCK_FACTS, packBodies, scopedTermPrefix, SHARD_INDEXES, SHARD_SCHEMA } from '../src/store/sqlite/schema.js'
import type { EncodedFact } from './encode.js'
import { fileSha256, writing } from './inventory.js'

/** One target and topic's facts in a shard: its tt, ords `first..last` and the prefix of its terms. */
export interface ShardRange {
  target: string
  topic: Topic
  tt: number
  first: number
  last: number
  scope: string
}

/** A written shard: its content address and size, and the ranges it holds in order. */
export interface ShardInfo {
  sha256: string
  bytes: number
  ranges: ShardRange[]
}

/**
 * FTS5's limit on pending terms (default 1 MiB): the largest wide-corpus unit (nrf54l05_application.svd)
 * needs more than 1 MiB and at most 4 MiB to stay one segment (with 1 MiB its shard kept 264 free
 * pages, 1 MiB). The hash grows with the terms, so this bounds memory, it does not allocate it.
 */
const TERMS_HASH_BYTES = 16 * 2 ** 20

/**
 * Writes one unit's facts, given in the shard's canonical order (encodeInOrder), as a fresh SQLite
 * file `tmp`, then moves it to `place(sha256)` once complete: a failed write leaves no shard, only
 * the temporary file, which the caller removes. The same facts always give the same statements
 * in the same order, so the same bytes: a shard of an unchanged unit is the one a full build writes.
 */
export function writeShard(tmp: string, facts: Iterable<EncodedFact>, place: (sha256: string) => string): ShardInfo {
  writing(tmp, () => {
    rmSync(tmp, { force: true })
    mkdirSync(dirname(tmp), { recursive: true })
  })
  const db = writing(tmp, () => new Database(tmp))
  const ranges: ShardRange[] = []
  try {
    writing(tmp, () => {
      db.pragma('journal_mode = OFF')
      db.pragma('synchronous = OFF')
      db.pragma('cache_size = -4096')
      db.exec(SHARD_SCHEMA)
      // The terms are held in memory and written as one segment when the rows are in: no merging,
      // and no pages freed by merges left in the file. A statement inserting several rows flushes
      // them at its end, so one row to a statement. A unit whose terms outgrow the hash gets
      // 'optimize' below. The settings stay in the shard, which is never written again.
      db.exec("INSERT INTO fact_terms (fact_terms, rank) VALUES ('automerge', 0)")
      db.exec(`INSERT INTO fact_terms (fact_terms, rank) VALUES ('hashsize', ${TERMS_HASH_BYTES})`)
      const insFact = db.prepare('INSERT INTO facts (ord, tt, name_key, package, revisions, tokens) VALUES (?, ?, ?, ?, ?, ?)')
      const insPeriph = db.prepare('INSERT OR IGNORE INTO fact_peripherals (peripheral, ord) VALUES (?, ?)')
      const insBody = db.prepare('INSERT INTO fact_bodies (first, data) VALUES (?, ?)')
      const insRange = db.prepare('INSERT INTO fact_ranges (tt, target, topic, first, last, scope) VALUES (?, ?, ?, ?, ?, ?)')
      const insTerms = db.prepare('INSERT INTO fact_terms (rowid, terms) VALUES (?, ?)')
      db.transaction(() => {
        let ord = 0
        let range: ShardRange | undefined
        let targets = -1
        let bodies: string[] = []
        const flushBodies = () => {
          if (bodies.length) insBody.run(ord - bodies.length + 1, packBodies(bodies))
          bodies = []
        }
        const endRange = () => {
          if (!range) return
          flushBodies()
          range.last = ord
          insRange.run(range.tt, range.target, range.topic, range.first, range.last, range.scope)
          ranges.push(range)
        }
        for (const e of facts) {
          if (range?.target !== e.target || range.topic !== e.topic) {
            endRange()
            if (range?.target !== e.target) targets++
            range = { target: e.target, topic: e.topic, tt: ranges.length + 1, first: ord + 1, last: ord, scope: scopedTermPrefix(targets, e.topic) }
          }
          ord++
          insFact.run(ord, range.tt, e.name.toLowerCase(), e.package, e.revisions, e.tokens)
          for (const p of e.peripherals) insPeriph.run(p, ord)
          if (bodies.push(e.body) === BODY_BLOCK_FACTS) flushBodies()
          // Each term scoped to its target and topic; a fact without terms has no row.
          if (e.terms) insTerms.run(ord, range.scope + e.terms.replaceAll(' ', ' ' + range.scope))
        }
        endRange()
      })()
      db.exec(SHARD_INDEXES)
      db.exec("INSERT INTO fact_terms (fact_terms) VALUES ('optimize')")
      // Statistics, so the planner prefers the name index for name filters; from a sample of the
      // index (a full ANALYZE of a big unit takes long and plans no better).
      db.pragma('analysis_limit = 2000')
      db.exec('ANALYZE facts')
      db.close()
    })
  } finally {
    if (db.open) db.close()
  }
  const { sha256, bytes } = fileSha256(tmp)
  const file = place(sha256)
  writing(file, () => {
    chmodSync(tmp, 0o444)
    mkdirSync(dirname(file), { recursive: true })
    renameSync(tmp, file)
  })
  return { sha256, bytes, ranges }
}
