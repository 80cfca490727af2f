import Database from 'better-sqlite3'
import { existsSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { LRUCache } from 'lru-cache'
import { ServiceError } from '../../service/errors.js'
import type { ReleaseCatalog } from '../../model/catalog.js'
import { hashFile } from '../hash-files.js'
import { DataDir, RELEASE_ID } from '../layout.js'
import type { FactQuery, FactRow, ReleaseManifest, ReleaseRepository, ReleaseStore } from '../types.js'
import { BODY_BLOCK_FACTS, SCHEMA_VERSION, unpackBodies } from './schema.js'

/** Prepared statements kept per open release. */
export const STATEMENT_CACHE_MAX = 128

const byScoreThenOrd = (a: FactRow, b: FactRow) => b.score - a.score || a.ord - b.ord

/** One target and topic's facts: the ords first..last (see schema.ts). */
interface FactRange {
  tt: number
  first: number
  last: number
  scope: string
}

/**
 * Decoded body blocks kept per open release (about 7 KB each, 28 MB at most): neighbouring pages
 * and repeated lookups inflate nothing. Inflating a block costs about 15 µs, several per context
 * answer; on issue 17's mix of distinct requests, 4,096 blocks answer 42% of the block reads of a
 * first pass (requests about one peripheral share its blocks), 512 answered 8%.
 */
const BLOCK_CACHE_SIZE = 4096

class SqliteReleaseStore implements ReleaseStore {
  readonly manifest: ReleaseManifest
  readonly catalog: ReleaseCatalog
  private readonly ranges = new Map<string, FactRange>()
  private readonly blockStmt: Database.Statement<[number], { first: number; data: Buffer }>
  private readonly termStmt: Database.Statement<[string], number>
  private readonly tokensStmt: Database.Statement<[number], number>
  private readonly blocks = new Map<number, string[]>()
  // One prepared statement per query shape. Common shapes are few (filters present or not, term
  // count), but a client can make thousands (name and term counts), at ~37 KB each: keep the most
  // recently used ones, and let the rest be collected.
  private readonly statements = new LRUCache<string, Database.Statement>({ max: STATEMENT_CACHE_MAX })

  constructor(private readonly db: Database.Database) {
    const meta = db.prepare<[string], { value: string }>('SELECT value FROM meta WHERE key = ?')
    const schema = meta.get('schema')?.value
    // A file of another layout would answer wrongly, not fail: refuse it.
    if (schema !== String(SCHEMA_VERSION)) throw new Error(`release file has schema ${schema ?? '?'}; this service reads schema ${SCHEMA_VERSION}: rebuild the release`)
    this.manifest = JSON.parse(meta.get('manifest')!.value) as ReleaseManifest
    this.catalog = JSON.parse(meta.get('catalog')!.value) as ReleaseCatalog
    for (const r of db.prepare<[], FactRange & { target: string; topic: string }>('SELECT tt, target, topic, first, last, scope FROM fact_ranges').iterate())
      this.ranges.set(`${r.target}\0${r.topic}`, { tt: r.tt, first: r.first, last: r.last, scope: r.scope })
    this.blockStmt = db.prepare('SELECT first, data FROM fact_bodies WHERE first <= ? ORDER BY first DESC LIMIT 1')
    this.termStmt = db.prepare<[string], number>('SELECT rowid FROM fact_terms WHERE fact_terms MATCH ? ORDER BY rowid').pluck()
    this.tokensStmt = db.prepare<[number], number>('SELECT tokens FROM facts WHERE ord = ?').pluck()
  }

  /**
   * The page of a text query with no other filter, ranked here instead of in SQL: each term's
   * matches come from the full-text index in ord order and are merged, counting the terms each
   * fact matched, into one ord-ordered list per count. SQLite's GROUP BY and ORDER BY built a
   * temporary b-tree over every match for that, and joined every match with its row; here only
   * the page's rows are read. Same order: most terms matched first, then ord.
   */
  private rankedByTerms(scope: string, q: FactQuery): FactRow[] {
    const lists = q.terms.map((t) => this.termStmt.all(`"${scope}${t}"*`))
    const byScore: number[][] = lists.map(() => [])
    const at = lists.map(() => 0)
    for (;;) {
      let ord = Infinity
      for (let i = 0; i < lists.length; i++) ord = Math.min(ord, lists[i]![at[i]!] ?? Infinity)
      if (ord === Infinity) break
      let score = 0
      for (let i = 0; i < lists.length; i++)
        if (lists[i]![at[i]!] === ord) {
          score++
          at[i]!++
        }
      byScore[score - 1]!.push(ord)
    }
    const rows: FactRow[] = []
    for (let score = lists.length; score >= 1 && rows.length < q.limit; score--) {
      if (q.after && score > q.after.score) continue
      for (const ord of byScore[score - 1]!) {
        if (q.after && score === q.after.score && ord <= q.after.ord) continue
        rows.push({ ord, score, tokens: this.tokensStmt.get(ord)!, body: '' })
        if (rows.length === q.limit) break
      }
    }
    return rows
  }

  /** The bodies of the block holding `ord`, and the block's first ord. */
  private block(ord: number): { first: number; bodies: string[] } {
    // A block holds at most BODY_BLOCK_FACTS facts: a decoded one holding `ord` starts at most that
    // many ords before it, so a cached block is found without asking SQLite where it starts.
    for (let first = ord; first > ord - BODY_BLOCK_FACTS; first--) {
      const bodies = this.blocks.get(first)
      if (bodies && ord - first < bodies.length) {
        this.blocks.delete(first)
        this.blocks.set(first, bodies)
        return { first, bodies }
      }
    }
    const row = this.blockStmt.get(ord)!
    const bodies = unpackBodies(row.data)
    // Most recently used last: the Map's insertion order is the eviction order.
    if (this.blocks.size >= BLOCK_CACHE_SIZE) this.blocks.delete(this.blocks.keys().next().value!)
    this.blocks.set(row.first, bodies)
    return { first: row.first, bodies }
  }

  async queryFacts(q: FactQuery): Promise<FactRow[]> {
    const range = this.ranges.get(`${q.target}\0${q.topic}`)
    if (range === undefined) return []
    const where: string[] = []
    const params: unknown[] = []
    const byName = q.names.length > 0 || q.prefixes.length > 0
    if (byName) {
      where.push('f.tt = ?')
      params.push(range.tt)
      const ors: string[] = []
      if (q.names.length > 0) {
        ors.push(`f.name_key IN (${q.names.map(() => '?').join(',')})`)
        params.push(...q.names.map((n) => n.toLowerCase()))
      }
      for (const p of q.prefixes) {
        ors.push('(f.name_key >= ? AND f.name_key < ?)')
        params.push(p.toLowerCase(), p.toLowerCase() + '\uffff')
      }
      where.push(`(${ors.join(' OR ')})`)
    }
    if (q.package !== undefined) {
      where.push('f.package = ? COLLATE NOCASE')
      params.push(q.package)
    }
    if (q.peripheral !== undefined) {
      // Bounded to the range: the same peripheral name occurs in every target of a family.
      where.push('f.ord IN (SELECT ord FROM fact_peripherals WHERE peripheral = ? AND ord BETWEEN ? AND ?)')
      params.push(q.peripheral, range.first, range.last)
    }
    if (q.siliconRevision !== undefined) {
      where.push("(f.revisions IS NULL OR instr(f.revisions, ' ' || ? || ' ') > 0 OR (instr(f.revisions, ' * ') > 0 AND instr(f.revisions, ' !' || ? || ' ') = 0))")
      params.push(q.siliconRevision, q.siliconRevision)
    }
    const rows = q.terms.length > 0 && where.length === 0 ? this.rankedByTerms(range.scope, q).sort((a, b) => a.ord - b.ord) : this.selectPage(q, range, where, params)
    // Inflate only the page's bodies, each block once, in ord order.
    let block: { first: number; bodies: string[] } | undefined
    for (const r of rows) {
      if (!block || r.ord - block.first >= block.bodies.length) block = this.block(r.ord)
      r.body = block.bodies[r.ord - block.first]!
    }
    return rows.sort(byScoreThenOrd)
  }

  /** The page's rows (without bodies) in ord order, chosen by one SQL statement. */
  private selectPage(q: FactQuery, range: FactRange, where: string[], params: unknown[]): FactRow[] {
    let sql: string
    if (q.terms.length === 0) {
      if (q.names.length > 0 || q.prefixes.length > 0) {
        // Names: the name index, within this range.
        if (q.after) {
          where.push('f.ord > ?')
          params.push(q.after.ord)
        }
      } else {
        // The range is a rowid range: walked in order, it stops at the limit.
        where.push('f.ord BETWEEN ? AND ?')
        params.push(q.after ? Math.max(range.first, q.after.ord + 1) : range.first, range.last)
      }
      sql = `SELECT ord, 0 AS score FROM facts f WHERE ${where.join(' AND ')} ORDER BY f.ord LIMIT ?`
    } else {
      // One FTS5 prefix query per term, within this target's scoped terms; terms are [a-z0-9]+ already.
      const unions = q.terms.map(() => 'SELECT rowid AS ord FROM fact_terms WHERE fact_terms MATCH ?').join(' UNION ALL ')
      params.unshift(...q.terms.map((t) => `"${range.scope}${t}"*`))
      if (q.after) {
        where.push('(m.score < ? OR (m.score = ? AND f.ord > ?))')
        params.push(q.after.score, q.after.score, q.after.ord)
      }
      sql =
        `WITH m(ord, score) AS (SELECT ord, count(*) FROM (${unions}) GROUP BY ord) ` +
        `SELECT f.ord AS ord, m.score AS score FROM m CROSS JOIN facts f ON f.ord = m.ord ` +
        `WHERE ${where.join(' AND ') || 'true'} ORDER BY m.score DESC, f.ord LIMIT ?`
    }
    params.push(q.limit)
    sql = `WITH page AS (${sql}) SELECT page.ord AS ord, page.score AS score, f.tokens AS tokens FROM page CROSS JOIN facts f ON f.ord = page.ord`
    let stmt = this.statements.get(sql)
    if (!stmt) {
      stmt = this.db.prepare(sql)
      this.statements.set(sql, stmt)
    }
    return (stmt.all(...params) as FactRow[]).sort((a, b) => a.ord - b.ord)
  }

  async close(): Promise<void> {
    this.db.close()
  }
}

/**
 * Checks a release file before anything is served from it: against the digest its manifest
 * records, else with SQLite's `quick_check` (page structure). Returns why it is unusable, or undefined.
 */
export async function releaseFileProblem(file: string, manifestFile: string): Promise<string | undefined> {
  let recorded: ReleaseManifest['database']
  try {
    recorded = (JSON.parse(readFileSync(manifestFile, 'utf8')) as ReleaseManifest).database
  } catch (err) {
    return `manifest.json is unreadable (${(err as Error).message})`
  }
  if (recorded) {
    const bytes = statSync(file).size
    if (bytes !== recorded.bytes) return `release.sqlite has ${bytes} bytes; its manifest records ${recorded.bytes}`
    let sha: string
    try {
      sha = await hashFile(file)
    } catch (err) {
      return (err as Error).message
    }
    return sha === recorded.sha256 ? undefined : `release.sqlite has sha256 ${sha}; its manifest records ${recorded.sha256}`
  }
  let db: Database.Database | undefined
  try {
    db = new Database(file, { readonly: true, fileMustExist: true })
    const rows = db.pragma('quick_check(1)') as Array<{ quick_check: string }>
    return rows[0]?.quick_check === 'ok' ? undefined : `release.sqlite fails SQLite's quick_check: ${rows[0]?.quick_check ?? '?'}`
  } catch (err) {
    return `release.sqlite is not a readable SQLite file (${(err as Error).message})`
  } finally {
    db?.close()
  }
}

export function openSqliteRelease(file: string): ReleaseStore {
  const db = new Database(file, { readonly: true, fileMustExist: true })
  db.pragma('query_only = ON')
  // The file never changes: take the shared lock once and keep it, instead of locking, checking for
  // a hot journal and re-validating the page cache on every statement (about seven system calls).
  // Readers in other processes still share the file; nothing ever writes it.
  db.pragma('locking_mode = EXCLUSIVE')
  // No mmap: the page cache serves repeated reads, and the process RSS stays small.
  db.pragma('cache_size = -16384')
  // The page's sort is a small temporary b-tree: keep it off the disk.
  db.pragma('temp_store = MEMORY')
  return new SqliteReleaseStore(db)
}

const PROMOTED_RECHECK_MS = 1000

/** The kept releases of a data dir; opened releases stay open (they are immutable). */
export class SqliteRepository implements ReleaseRepository {
  readonly kind = 'sqlite' as const
  private readonly data: DataDir
  private readonly open_ = new Map<string, ReleaseStore>()
  private readonly opening = new Map<string, Promise<ReleaseStore>>()
  private readonly refused = new LRUCache<string, string>({ max: 64, ttl: 30_000 })
  private promoted: { id: string | undefined; checkedAt: number; mtimeMs: number } = { id: undefined, checkedAt: -Infinity, mtimeMs: -1 }

  constructor(root: string) {
    this.data = new DataDir(root)
  }

  /** Re-reads the pointer at most once a second, so a promotion is seen without a restart. */
  async promotedId(): Promise<string | undefined> {
    const now = performance.now()
    if (now - this.promoted.checkedAt < PROMOTED_RECHECK_MS) return this.promoted.id
    this.promoted.checkedAt = now
    const file = join(this.data.root, 'promoted')
    const mtimeMs = existsSync(file) ? statSync(file).mtimeMs : -1
    if (mtimeMs !== this.promoted.mtimeMs) this.promoted = { id: this.data.promotedId(), checkedAt: now, mtimeMs }
    return this.promoted.id
  }

  /** The state of the `promoted` pointer, for /readyz. */
  pointerStatus(): { ok: boolean; detail?: string } {
    return this.data.pointerStatus()
  }

  async open(id: string): Promise<ReleaseStore | undefined> {
    if (!RELEASE_ID.test(id)) return undefined
    const store = this.open_.get(id)
    if (store) return store
    const file = this.data.releaseDb(id)
    if (!existsSync(file)) return undefined
    // One check per release, shared by the requests that arrive while it runs.
    let opening = this.opening.get(id)
    if (!opening) {
      opening = this.checkAndOpen(id, file).finally(() => this.opening.delete(id))
      this.opening.set(id, opening)
    }
    return opening
  }

  private async checkAndOpen(id: string, file: string): Promise<ReleaseStore> {
    const refuse = (problem: string) => {
      this.refused.set(id, problem)
      return new ServiceError('RELEASE_UNAVAILABLE', `Corpus release ${id} is not served: ${problem}.`)
    }
    // An unusable file is re-checked now and then (it may be restored), not on every request.
    const refused = this.refused.get(id)
    if (refused !== undefined) throw refuse(refused)
    // The file is hashed in a worker thread while this one opens it and reads its catalog: about
    // half the time of doing one after the other. Nothing of it is handed out before the digest matches.
    const checking = releaseFileProblem(file, this.data.manifestPath(id))
    let store: ReleaseStore | undefined
    let openError: Error | undefined
    try {
      store = openSqliteRelease(file)
    } catch (err) {
      openError = err as Error
    }
    const problem = await checking
    if (problem !== undefined) {
      await store?.close()
      throw refuse(problem)
    }
    if (!store) throw refuse(openError!.message)
    this.open_.set(id, store)
    return store
  }

  async list(): Promise<string[]> {
    return this.data.releaseIds()
  }

  async close(): Promise<void> {
    for (const s of this.open_.values()) await s.close()
    this.open_.clear()
  }
}

/** One stored fact with everything the release file keeps of it. */
export interface StoredFact {
  ord: number
  target: string
  topic: string
  name_key: string
  package: string | null
  revisions: string | null
  tokens: number
  peripherals: string[]
  body: string
}

/**
 * Every fact of a release file in ord order, in bounded memory: for the engine loader and test
 * oracles. Rows, peripherals and body blocks are three ordered scans merged as they go (three
 * connections: one connection runs one statement at a time).
 */
export function* readStoredFacts(file: string): Generator<StoredFact> {
  const open = () => new Database(file, { readonly: true, fileMustExist: true })
  const [rowsDb, periphDb, bodyDb] = [open(), open(), open()]
  const scans: Array<Iterator<unknown>> = []
  try {
    const ranges = new Map<number, { target: string; topic: string }>()
    for (const r of rowsDb.prepare<[], { tt: number; target: string; topic: string }>('SELECT tt, target, topic FROM fact_ranges').iterate()) ranges.set(r.tt, r)
    // The table is keyed by peripheral: its ord order is a sort, which SQLite spills to disk as it needs.
    const periph = periphDb.prepare<[], { ord: number; peripheral: string }>('SELECT ord, peripheral FROM fact_peripherals ORDER BY ord, peripheral').iterate()
    const blocks = bodyDb.prepare<[], { first: number; data: Buffer }>('SELECT first, data FROM fact_bodies ORDER BY first').iterate()
    scans.push(periph, blocks)
    let p = periph.next()
    let block: { first: number; bodies: string[] } = { first: 0, bodies: [] }
    const rows = rowsDb.prepare<[], { ord: number; tt: number; name_key: string; package: string | null; revisions: string | null; tokens: number }>(
      'SELECT ord, tt, name_key, package, revisions, tokens FROM facts ORDER BY ord'
    )
    const rowScan = rows.iterate()
    scans.push(rowScan)
    for (const r of rowScan) {
      const peripherals: string[] = []
      for (; !p.done && p.value.ord <= r.ord; p = periph.next()) if (p.value.ord === r.ord) peripherals.push(p.value.peripheral)
      while (r.ord - block.first >= block.bodies.length) {
        const b = blocks.next()
        if (b.done) throw new Error(`${file}: no body block holds fact ${r.ord}`)
        block = { first: b.value.first, bodies: unpackBodies(b.value.data) }
      }
      const { target, topic } = ranges.get(r.tt)!
      yield { ord: r.ord, target, topic, name_key: r.name_key, package: r.package, revisions: r.revisions, tokens: r.tokens, peripherals, body: block.bodies[r.ord - block.first]! }
    }
  } finally {
    // A connection with an unfinished scan cannot close: end the scans first.
    for (const s of scans) s.return?.()
    for (const db of [rowsDb, periphDb, bodyDb]) db.close()
  }
}
