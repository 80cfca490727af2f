import Database from 'better-sqlite3'
import { existsSync, readFileSync, statSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { LRUCache } from 'lru-cache'
import type { ReleaseCatalog } from '../../model/catalog.js'
import { hashFiles } from '../hash-files.js'
import { StoreError } from '../errors.js'
import { DataDir, RELEASE_ID } from '../layout.js'
import { revisionApplies, type RevisionTerms } from '../revisions.js'
import { selectionOf, type FactQuery, type FactRow, type FactRowHead, type FactSelection, type FileDigest, type ReleaseManifest, type ReleaseRepository, type ReleaseStore } from '../types.js'
import { byTargetThenTopic, SCHEMA_VERSION, shardFileName, unpackBodies } from './schema.js'

/**
 * Prepared statements of text queries with other filters (selectRanked) kept per open release: one
 * per shard and query shape (term, name and prefix counts: 16 × 101 × 101 of them a shard). Each holds
 * native memory V8 does not see until it collects the statement: 512 of them let a client of many
 * shapes take the server from 237 to 394 MB RSS in 60 s (bench/query-shapes.ts); 128 hold it at 250.
 */
export const STATEMENT_CACHE_MAX = 128

/**
 * Shard connections kept open per release: a busy wide release touches hundreds of shards, and RSS
 * must not grow with how many were read. A connection costs about 160 KB however small its page
 * cache (its schema, SQLite's own buffers), and opening one with its statements about 0.15 ms.
 */
export const SHARD_CONNECTIONS_MAX = 128
const SHARD_CACHE_KIB = 128

const byScoreThenOrd = (a: FactRowHead, b: FactRowHead) => b.score - a.score || a.ord - b.ord

/** One target and topic's facts: the ords first..last of one shard (see schema.ts). */
interface FactRange {
  shard: number
  tt: number
  first: number
  last: number
  scope: string
}

interface Shard {
  db: Database.Database
  block: Database.Statement<[number], { first: number; data: Buffer }>
  /** One term's matches, in ord order. */
  term: Database.Statement<[string], number>
  /** The statements of a page in ord order (no query terms): a fixed few per shard. */
  named: Database.Statement<[number, string], number>
  prefixed: Database.Statement<[number, string, string], number>
  inPeripheral: Database.Statement<[string, number, number], number>
  row: Database.Statement<[number], RowFields>
  walk: Database.Statement<[number, number], RowFields & { ord: number }>
  walkLimit: Database.Statement<[number, number, number], { ord: number; tokens: number }>
}

interface RowFields {
  tokens: number
  package: string | null
  revisions: string | null
}

/** SQLite's NOCASE: ASCII letters only. */
const foldAscii = (s: string) => s.replace(/[A-Z]+/g, (m) => m.toLowerCase())

/** A row's filters of package and silicon revision, with the semantics of the SQL in selectRanked. */
function rowFilter(q: FactQuery): ((r: RowFields) => boolean) | undefined {
  if (q.package === undefined && q.siliconRevision === undefined) return undefined
  const pkg = q.package === undefined ? undefined : foldAscii(q.package)
  const rev = q.siliconRevision === undefined ? undefined : revisionApplies(q.siliconRevision, ROW_REVISION_TERMS)
  return (r) => (pkg === undefined || (r.package !== null && foldAscii(r.package) === pkg)) && (rev === undefined || rev(r.revisions))
}

type RevisionTest = (revisions: string | null) => boolean
/** The revision rule as a test of a row's column, short-circuiting as the SQL does. */
const ROW_REVISION_TERMS: RevisionTerms<RevisionTest> = {
  isNull: (r) => r === null,
  contains: (needle) => (r) => r !== null && r.includes(needle),
  or: (...xs) => (r) => xs.some((x) => x(r)),
  and: (a, b) => (r) => a(r) && b(r),
  not: (a) => (r) => !a(r)
}

/** The revision rule as an SQL condition on `f.revisions`, with the parameters it binds, in order. */
function revisionSql(code: string): { sql: string; params: string[] } {
  const params: string[] = []
  const sql = revisionApplies<string>(code, {
    isNull: 'f.revisions IS NULL',
    contains: (needle) => (params.push(needle), 'instr(f.revisions, ?) > 0'),
    or: (...xs) => `(${xs.join(' OR ')})`,
    and: (a, b) => `(${a} AND ${b})`,
    not: (a) => `NOT (${a})`
  })
  return { sql, params }
}

/** Opens a release file read-only the way the store reads it. */
function openReadOnly(file: string, cacheKib: number): Database.Database {
  const db = new Database(file, { readonly: true, fileMustExist: true })
  db.pragma('query_only = ON')
  // The file never changes: take the shared lock once and keep it, instead of locking, checking for
  // a hot journal and re-validating the page cache on every statement (about seven system calls).
  // Readers in other processes still share the file; nothing ever writes it.
  db.pragma('locking_mode = EXCLUSIVE')
  // No mmap: the page cache serves repeated reads, and the process RSS stays small.
  db.pragma(`cache_size = -${cacheKib}`)
  // The page's sort is a small temporary b-tree: keep it off the disk.
  db.pragma('temp_store = MEMORY')
  return db
}

/** The top file's meta rows, ranges and shard list; refuses a file of another schema. */
function readTop(file: string): { manifest: ReleaseManifest; catalog: ReleaseCatalog; ranges: Array<FactRange & { target: string; topic: string }>; shards: FileDigest[] } {
  const db = new Database(file, { readonly: true, fileMustExist: true })
  try {
    const meta = db.prepare<[string], { value: string }>('SELECT value FROM meta WHERE key = ?')
    const schema = meta.get('schema')?.value
    // A file of another layout would answer wrongly, not fail: refuse it.
    if (schema !== String(SCHEMA_VERSION)) throw new Error(`release file has schema ${schema ?? '?'}; this service reads schema ${SCHEMA_VERSION}: rebuild the release`)
    return {
      manifest: JSON.parse(meta.get('manifest')!.value) as ReleaseManifest,
      catalog: JSON.parse(meta.get('catalog')!.value) as ReleaseCatalog,
      ranges: db.prepare<[], FactRange & { target: string; topic: string }>('SELECT target, topic, shard, tt, first, last, scope FROM fact_ranges').all(),
      shards: db.prepare<[], FileDigest>('SELECT sha256, bytes FROM shards ORDER BY shard').all()
    }
  } finally {
    db.close()
  }
}

class SqliteReleaseStore implements ReleaseStore {
  readonly manifest: ReleaseManifest
  readonly catalog: ReleaseCatalog
  private readonly ranges = new Map<string, FactRange>()
  private readonly shardFiles: string[]
  private readonly shards = new LRUCache<number, Shard>({ max: SHARD_CONNECTIONS_MAX, dispose: (s, i) => this.closeShard(i, s) })
  // selectRanked's statements, one per shard and query shape. Common shapes are few (filters present
  // or not, term count), but a client can make thousands (name and term counts): keep the most
  // recently used ones, and let the rest be collected.
  private readonly statements = new LRUCache<string, Database.Statement>({ max: STATEMENT_CACHE_MAX })

  constructor(file: string) {
    const top = readTop(file)
    this.manifest = top.manifest
    this.catalog = top.catalog
    for (const r of top.ranges) this.ranges.set(`${r.target}\0${r.topic}`, { shard: r.shard, tt: r.tt, first: r.first, last: r.last, scope: r.scope })
    this.shardFiles = top.shards.map((s) => join(dirname(file), shardFileName(s.sha256)))
  }

  /** A shard's connection, opened on first use. */
  private shard(i: number): Shard {
    let s = this.shards.get(i)
    if (!s) {
      let db: Database.Database
      try {
        db = openReadOnly(this.shardFiles[i]!, SHARD_CACHE_KIB)
      } catch (err) {
        throw new StoreError('release-unavailable', `Corpus release ${this.manifest.id} is not served: ${shardFileName(basename(this.shardFiles[i]!, '.sqlite'))} cannot be opened (${(err as Error).message}).`)
      }
      s = {
        db,
        block: db.prepare('SELECT first, data FROM fact_bodies WHERE first <= ? ORDER BY first DESC LIMIT 1'),
        term: db.prepare<[string], number>('SELECT rowid FROM fact_terms WHERE fact_terms MATCH ? ORDER BY rowid').pluck(),
        named: db.prepare<[number, string], number>('SELECT ord FROM facts WHERE tt = ? AND name_key = ?').pluck(),
        prefixed: db.prepare<[number, string, string], number>('SELECT ord FROM facts WHERE tt = ? AND name_key >= ? AND name_key < ?').pluck(),
        inPeripheral: db.prepare<[string, number, number], number>('SELECT ord FROM fact_peripherals WHERE peripheral = ? AND ord BETWEEN ? AND ?').pluck(),
        row: db.prepare('SELECT tokens, package, revisions FROM facts WHERE ord = ?'),
        walk: db.prepare('SELECT ord, tokens, package, revisions FROM facts WHERE ord BETWEEN ? AND ?'),
        walkLimit: db.prepare('SELECT ord, tokens FROM facts WHERE ord BETWEEN ? AND ? LIMIT ?')
      }
      this.shards.set(i, s)
    }
    return s
  }

  private closeShard(i: number, s: Shard): void {
    const prefix = `${i}\0`
    for (const k of [...this.statements.keys()]) if (k.startsWith(prefix)) this.statements.delete(k)
    s.db.close()
  }

  /**
   * The page of a text query with no other filter, ranked here instead of in SQL: each term's
   * matches come from the full-text index in ord order and are merged, counting the terms each
   * fact matched, into one ord-ordered list per count. SQLite's GROUP BY and ORDER BY built a
   * temporary b-tree over every match for that, and joined every match with its row; here only
   * the page's rows are read. Same order: most terms matched first, then ord.
   */
  private rankedByTerms(s: Shard, scope: string, q: FactQuery): FactRowHead[] {
    const lists = q.terms.map((t) => s.term.all(`"${scope}${t}"*`))
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
    const rows: FactRowHead[] = []
    for (let score = lists.length; score >= 1 && rows.length < q.limit; score--) {
      if (q.after && score > q.after.score) continue
      for (const ord of byScore[score - 1]!) {
        if (q.after && score === q.after.score && ord <= q.after.ord) continue
        rows.push({ ord, score, tokens: s.row.get(ord)!.tokens })
        if (rows.length === q.limit) break
      }
    }
    return rows
  }

  /**
   * The bodies of the block holding `ord`, and the block's first ord. Inflated per page, never kept
   * across requests: decoded blocks kept in a cache outlive the young generation, and on issue 17's
   * mix over the wide release their churn cost more in old-generation garbage collection (and
   * 120–280 MB of RSS) than the ~15 µs inflates they saved.
   */
  private block(s: Shard, ord: number): { first: number; bodies: string[] } {
    const row = s.block.get(ord)!
    return { first: row.first, bodies: unpackBodies(row.data) }
  }

  async queryFacts(q: FactQuery): Promise<FactRow[]> {
    const selection = this.select(q)
    return selection.read(selection.rows.length)
  }

  async selectFacts(q: FactQuery): Promise<FactSelection> {
    return this.select(q)
  }

  private select(q: FactQuery): FactSelection {
    const range = this.ranges.get(`${q.target}\0${q.topic}`)
    if (range === undefined) return selectionOf([])
    const shard = this.shard(range.shard)
    const filtered = q.names.length > 0 || q.prefixes.length > 0 || q.peripheral !== undefined || q.package !== undefined || q.siliconRevision !== undefined
    // In ord order (each page's rows come so, or are sorted so): the order bodies are read in.
    const byOrd =
      q.terms.length === 0 ? this.pageInOrder(range, shard, q) : filtered ? this.selectRanked(range, shard, q) : this.rankedByTerms(shard, range.scope, q).sort((x, y) => x.ord - y.ord)
    // Without terms every score is 0: the answer order is the ord order, and the rows are byOrd itself.
    const rows = q.terms.length === 0 ? byOrd : [...byOrd].sort(byScoreThenOrd)
    return { rows, read: async (count) => this.withBodies(shard, rows.slice(0, Math.max(0, count)), rows === byOrd) }
  }

  /** The rows (in answer order) with their bodies, read in ord order so that each block is inflated once. */
  private withBodies(shard: Shard, rows: readonly FactRowHead[], inOrd: boolean): FactRow[] {
    const order = rows.map((_, i) => i)
    if (!inOrd) order.sort((a, b) => rows[a]!.ord - rows[b]!.ord)
    const out = new Array<FactRow>(rows.length)
    let block: { first: number; bodies: string[] } | undefined
    for (const i of order) {
      const { ord, score, tokens } = rows[i]!
      if (!block || ord - block.first >= block.bodies.length) block = this.block(shard, ord)
      out[i] = { ord, score, tokens, body: block.bodies[ord - block.first]! }
    }
    return out
  }

  /**
   * A page without query terms, in ord order, from a fixed few statements per shard: one lookup of
   * the name index per name or prefix, then the rows' filters here. One SQL statement per query
   * shape cost more to find or prepare (30 µs, per shard) than the lookups themselves.
   */
  private pageInOrder(range: FactRange, s: Shard, q: FactQuery): FactRowHead[] {
    const rows: FactRowHead[] = []
    if (q.limit <= 0) return rows
    const after = q.after?.ord ?? -1
    const keep = rowFilter(q)
    let candidates: number[] | undefined
    if (q.names.length > 0 || q.prefixes.length > 0) {
      const ords = new Set<number>()
      for (const n of q.names) for (const o of s.named.all(range.tt, n.toLowerCase())) ords.add(o)
      for (const p of q.prefixes) {
        const k = p.toLowerCase()
        for (const o of s.prefixed.all(range.tt, k, k + '\uffff')) ords.add(o)
      }
      candidates = [...ords].filter((o) => o > after).sort((x, y) => x - y)
    }
    if (q.peripheral !== undefined) {
      const of = s.inPeripheral.all(q.peripheral, Math.max(range.first, after + 1), range.last)
      if (candidates) {
        const set = new Set(of)
        candidates = candidates.filter((o) => set.has(o))
      } else candidates = of
    }
    if (candidates) {
      for (const ord of candidates) {
        const r = s.row.get(ord)!
        if (keep && !keep(r)) continue
        rows.push({ ord, score: 0, tokens: r.tokens })
        if (rows.length === q.limit) break
      }
      return rows
    }
    // No name or peripheral filter: the range is a rowid range, walked in order up to the limit.
    const from = Math.max(range.first, after + 1)
    if (!keep) return s.walkLimit.all(from, range.last, q.limit).map((r) => ({ ord: r.ord, score: 0, tokens: r.tokens }))
    for (const r of s.walk.iterate(from, range.last)) {
      if (!keep(r)) continue
      rows.push({ ord: r.ord, score: 0, tokens: r.tokens })
      if (rows.length === q.limit) break
    }
    return rows
  }

  /** A text query with other filters: the page (without bodies, in ord order) chosen by one SQL statement. */
  private selectRanked(range: FactRange, shard: Shard, q: FactQuery): FactRowHead[] {
    const where: string[] = []
    const params: unknown[] = q.terms.map((t) => `"${range.scope}${t}"*`)
    if (q.names.length > 0 || q.prefixes.length > 0) {
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
      const rev = revisionSql(q.siliconRevision)
      where.push(rev.sql)
      params.push(...rev.params)
    }
    // One FTS5 prefix query per term, within this target's scoped terms; terms are [a-z0-9]+ already.
    const unions = q.terms.map(() => 'SELECT rowid AS ord FROM fact_terms WHERE fact_terms MATCH ?').join(' UNION ALL ')
    if (q.after) {
      where.push('(m.score < ? OR (m.score = ? AND f.ord > ?))')
      params.push(q.after.score, q.after.score, q.after.ord)
    }
    params.push(q.limit)
    const sql =
      `WITH m(ord, score) AS (SELECT ord, count(*) FROM (${unions}) GROUP BY ord), ` +
      `page AS (SELECT f.ord AS ord, m.score AS score FROM m CROSS JOIN facts f ON f.ord = m.ord ` +
      `WHERE ${where.join(' AND ')} ORDER BY m.score DESC, f.ord LIMIT ?) ` +
      `SELECT page.ord AS ord, page.score AS score, f.tokens AS tokens FROM page CROSS JOIN facts f ON f.ord = page.ord`
    const key = `${range.shard}\0${sql}`
    let stmt = this.statements.get(key)
    if (!stmt) {
      stmt = shard.db.prepare(sql)
      this.statements.set(key, stmt)
    }
    return (stmt.all(...params) as FactRowHead[]).sort((x, y) => x.ord - y.ord)
  }

  async close(): Promise<void> {
    this.shards.clear()
  }
}

/**
 * Checks a release directory's files before anything is served from it: the top file and every
 * shard against the digests manifest.json records (hashed in a worker thread), and the top file's
 * shard list against the manifest's. Returns what is wrong, one line a file; empty when nothing is.
 */
export async function releaseFileProblems(dir: string): Promise<string[]> {
  let m: ReleaseManifest
  try {
    m = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as ReleaseManifest
  } catch (err) {
    return [`manifest.json is unreadable (${(err as Error).message})`]
  }
  if (!m.database) return ['manifest.json records no database digest (a release of an older indexer: rebuild it)']
  const files = [{ name: 'release.sqlite', ...m.database }, ...(m.shards ?? []).map((s) => ({ name: shardFileName(s.sha256), ...s }))]
  const problems: string[] = []
  const sized = files.filter((f) => {
    let bytes: number
    try {
      bytes = statSync(join(dir, f.name)).size
    } catch (err) {
      problems.push(`${f.name} cannot be read (${(err as NodeJS.ErrnoException).code})`)
      return false
    }
    if (bytes !== f.bytes) problems.push(`${f.name} has ${bytes} bytes; its manifest records ${f.bytes}`)
    return bytes === f.bytes
  })
  await hashFiles(
    sized.map((f) => join(dir, f.name)),
    (i, sha256, error) => {
      const f = sized[i]!
      if (sha256 === null) problems.push(`${f.name} cannot be read (${error})`)
      else if (sha256 !== f.sha256) problems.push(`${f.name} has sha256 ${sha256}; its manifest records ${f.sha256}`)
    }
  )
  if (problems.length > 0) return problems
  // The top file is the one the manifest names: the shards it refers to must be the ones checked.
  // (A top file of another schema has no shard list; opening it says so.)
  let listed: FileDigest[] | undefined
  try {
    const db = new Database(join(dir, 'release.sqlite'), { readonly: true, fileMustExist: true })
    try {
      listed = db.prepare<[], FileDigest>('SELECT sha256, bytes FROM shards ORDER BY shard').all()
    } finally {
      db.close()
    }
  } catch {
    // no shard list
  }
  if (listed && JSON.stringify(listed.map((s) => [s.sha256, s.bytes])) !== JSON.stringify((m.shards ?? []).map((s) => [s.sha256, s.bytes])))
    problems.push('release.sqlite refers to other shards than manifest.json lists')
  return problems
}

export function openSqliteRelease(file: string): ReleaseStore {
  return new SqliteReleaseStore(file)
}

const PROMOTED_RECHECK_MS = 1000

/** The kept releases of a data dir; opened releases stay open (they are immutable). */
export class SqliteRepository implements ReleaseRepository {
  readonly kind = 'sqlite' as const
  private readonly data: DataDir
  private readonly open_ = new Map<string, ReleaseStore>()
  private readonly opening = new Map<string, Promise<ReleaseStore>>()
  private readonly refused = new LRUCache<string, string>({ max: 64, ttl: 30_000 })
  // NaN: the first look reads the pointer even when it is missing (so readiness says it is).
  private promoted: { id: string | undefined; checkedAt: number; mtimeMs: number } = { id: undefined, checkedAt: -Infinity, mtimeMs: Number.NaN }

  constructor(root: string) {
    this.data = new DataDir(root)
  }

  async promotedId(): Promise<string | undefined> {
    return this.readPromoted()
  }

  /** The state of the `promoted` pointer, for /readyz. */
  pointerStatus(): { ok: boolean; detail?: string } {
    this.readPromoted()
    return this.data.pointerStatus()
  }

  /** Re-reads the pointer at most once a second, and only once it changed, so a promotion is seen without a restart. */
  private readPromoted(): string | undefined {
    const now = performance.now()
    if (now - this.promoted.checkedAt < PROMOTED_RECHECK_MS) return this.promoted.id
    this.promoted.checkedAt = now
    const file = join(this.data.root, 'promoted')
    const mtimeMs = existsSync(file) ? statSync(file).mtimeMs : -1
    if (mtimeMs !== this.promoted.mtimeMs) this.promoted = { id: this.data.promotedId(), checkedAt: now, mtimeMs }
    return this.promoted.id
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
      return new StoreError('release-unavailable', `Corpus release ${id} is not served: ${problem}.`)
    }
    // An unusable file is re-checked now and then (it may be restored), not on every request.
    const refused = this.refused.get(id)
    if (refused !== undefined) throw refuse(refused)
    // The files are hashed in a worker thread while this one opens the top file and reads its
    // catalog: about half the time of doing one after the other. Nothing of the release is handed
    // out before every digest matches.
    const checking = releaseFileProblems(this.data.releaseDir(id))
    let store: ReleaseStore | undefined
    let openError: Error | undefined
    try {
      store = openSqliteRelease(file)
    } catch (err) {
      openError = err as Error
    }
    const problem = (await checking)[0]
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

/** One stored fact with everything the release keeps of it; `ord` is its shard's. */
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
 * Every fact of a release in canonical order (targets by key, topics by name, document order),
 * each range read from its shard, in memory bounded by the biggest range and shard: for the engine
 * loader and test oracles. `file` is the release's top file.
 */
export function* readStoredFacts(file: string): Generator<StoredFact> {
  const top = readTop(file)
  const ranges = top.ranges.sort(byTargetThenTopic)
  // The shard of the ranges being read: consecutive ranges mostly share one.
  let open: { shard: number; db: Database.Database; peripherals: Map<number, string[]> } | undefined
  try {
    for (const r of ranges) {
      if (open?.shard !== r.shard) {
        open?.db.close()
        const db = new Database(join(dirname(file), shardFileName(top.shards[r.shard]!.sha256)), { readonly: true, fileMustExist: true })
        open = { shard: r.shard, db, peripherals: new Map() }
        // The table is keyed by peripheral: read once per shard rather than scanned per range.
        for (const p of db.prepare<[], { ord: number; peripheral: string }>('SELECT ord, peripheral FROM fact_peripherals ORDER BY ord, peripheral').iterate()) {
          const list = open.peripherals.get(p.ord)
          if (list) list.push(p.peripheral)
          else open.peripherals.set(p.ord, [p.peripheral])
        }
      }
      const { db, peripherals } = open
      // A range's bodies start a block of their own at its first ord.
      const blocks = db.prepare<[number, number], { first: number; data: Buffer }>('SELECT first, data FROM fact_bodies WHERE first BETWEEN ? AND ? ORDER BY first').all(r.first, r.last)
      let block = { first: r.first, bodies: [] as string[] }
      const rows = db
        .prepare<[number, number], { ord: number; name_key: string; package: string | null; revisions: string | null; tokens: number }>(
          'SELECT ord, name_key, package, revisions, tokens FROM facts WHERE ord BETWEEN ? AND ? ORDER BY ord'
        )
        .all(r.first, r.last)
      for (const row of rows) {
        while (row.ord - block.first >= block.bodies.length) {
          const b = blocks.shift()
          if (!b) throw new Error(`${file}: no body block of shard ${r.shard} holds fact ${row.ord}`)
          block = { first: b.first, bodies: unpackBodies(b.data) }
        }
        yield { ...row, target: r.target, topic: r.topic, peripherals: peripherals.get(row.ord) ?? [], body: block.bodies[row.ord - block.first]! }
      }
    }
  } finally {
    open?.db.close()
  }
}
