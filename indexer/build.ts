import { createHash } from 'node:crypto'
import { chmodSync, copyFileSync, existsSync, linkSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import type { CatalogPart, DocumentTarget, ParseProblem, PartNumber, Topic } from '../src/model/fact.js'
import type { ReleaseCatalog } from '../src/model/catalog.js'
import { DataDir } from '../src/store/layout.js'
import { byTargetThenTopic, SCHEMA_VERSION, shardFileName, TOP_SCHEMA } from '../src/store/sqlite/schema.js'
import type { FileDigest, ReleaseManifest } from '../src/store/types.js'
import { buildCatalog } from './curation/catalog.js'
import { acknowledge, loadCuration } from './curation/curation.js'
import { catalogTargets, checkReach } from './curation/reach.js'
import { loadVendors } from './curation/vendors.js'
import { INDEXER_FORMAT } from './encode.js'
import { fileSha256, readInventory, verifyArtifacts, writing, type ArtifactRef } from './inventory.js'
import { cachedShard, pruneCache, type UnitSummary } from './parse-cache.js'
import { parseAll, parseUnits, type ParseStats } from './parse-units.js'
import type { ShardRange } from './shard.js'
import { TOKENIZER } from '../src/model/tokens.js'
import { stopwatch } from './stopwatch.js'

export { INDEXER_FORMAT } from './encode.js'

export interface BuildOptions {
  inventory: string
  dataDir: string
  /** Curation file; default `curation.json` beside the inventory, if there is one. */
  curation?: string
  /** Progress per stage; the CLI draws a bar on a terminal, log lines otherwise. */
  onProgress?: (stage: string, done: number, total: number) => void
  now?: () => Date
}

export interface BuildResult {
  id: string
  manifest: ReleaseManifest
  /** True when an identical release was already kept: nothing was rewritten. */
  reused: boolean
  problems: ParseProblem[]
  timingsMs: Record<string, number>
  /** Units parsed now, and units whose parse came from the parse cache. */
  units: ParseStats
}

/** One (target, topic) of the release: the range of a shard's facts it is, and which shard (by position). */
interface ReleaseRange extends ShardRange {
  shard: number
}

/**
 * Parts of a release: the catalog's leaves (entities that stand for no others: selector parts,
 * and devices that are parts), in all and per vendor.
 */
function partCounts(catalog: ReleaseCatalog): { parts: number; partsByVendor: Record<string, number> } {
  const partsByVendor: Record<string, number> = {}
  let parts = 0
  for (const e of catalog.entities) {
    if (e.members || e.kind === 'refname') continue
    parts++
    const v = e.vendor ?? 'unknown'
    partsByVendor[v] = (partsByVendor[v] ?? 0) + 1
  }
  return { parts, partsByVendor: Object.fromEntries(Object.entries(partsByVendor).sort(([a], [b]) => (a < b ? -1 : 1))) }
}

/** A shard in a hard link's stead where no link can be made (another file system, no link support). */
function linkOrCopy(from: string, to: string): void {
  try {
    linkSync(from, to)
  } catch (err) {
    if (!['EXDEV', 'EPERM', 'EMLINK', 'ENOTSUP', 'EOPNOTSUPP'].includes((err as NodeJS.ErrnoException).code ?? '')) throw err
    copyFileSync(from, to)
    chmodSync(to, 0o444)
  }
}

/**
 * Builds an immutable release from a source inventory, in memory bounded by the biggest parse
 * unit rather than by the corpus:
 *  1. verify: each artifact is read, checked against the inventory and archived, one at a time;
 *  2. parse: every unit (see parseUnits) missing from the parse cache is parsed in a worker, which
 *     writes its facts as a shard (shard.ts) into the cache and returns only a summary (targets,
 *     parts, problems, the shard's digest and ranges);
 *  3. catalog: the top file (`release.sqlite`: the shards in unit order and each (target, topic)'s
 *     range) is written from the summaries, the catalog built; the id is a digest of everything
 *     written (the top file's bytes, every shard's digest, the catalog, the manifest's content);
 *  4. write: the meta rows and manifest are added and every shard is hard-linked from the cache.
 * So the release is the same whatever the workers' timing and whichever units came from the cache,
 * and a re-index writes only the shards of the units that changed.
 * A failed write ends with a WriteError naming the file; nothing of the release is left behind.
 */
export async function buildRelease(opts: BuildOptions): Promise<BuildResult> {
  const { lap, timings } = stopwatch()
  const progress = opts.onProgress ?? (() => {})
  // Read first: a bad curation file stops the build before any work.
  const { curation, raw: curationRaw } = loadCuration(opts.inventory, opts.curation)
  const { vendors, raw: vendorsRaw } = loadVendors()
  const data = new DataDir(opts.dataDir)
  const inv = readInventory(opts.inventory)
  let loaded = 0
  const artifacts = verifyArtifacts(inv, data, () => progress('verify', ++loaded, inv.records.length))
  lap('verify')

  const { units, unclaimed } = parseUnits(artifacts, data)
  let parsedUnits = 0
  progress('parse', 0, units.length)
  const { summaries, stats } = await parseAll(units, data.root, () => progress('parse', ++parsedUnits, units.length))
  lap('parse')

  const gathered = gather(summaries, unclaimed)
  const { problems, notes: acknowledged } = acknowledge(gathered.found, curation)
  const layout = releaseLayout(summaries, gathered.dropped)

  const tmpDir = join(data.root, 'releases', `.build-${process.pid}-${Date.now()}`)
  const dbPath = join(tmpDir, 'release.sqlite')
  let db: Database.Database | undefined
  try {
    writing(tmpDir, () => mkdirSync(tmpDir, { recursive: true }))
    db = writing(dbPath, () => new Database(dbPath))
    const written = writeTopFile(db, dbPath, layout)

    const publishers = new Map(artifacts.map((a) => [a.path, a.publisher] as const))
    const built = buildCatalog({ targets: catalogTargets(artifacts, gathered.targets, problems, layout.counts), parts: gathered.parts, partNumbers: gathered.partNumbers, publishers }, curation, vendors)
    const catalog: ReleaseCatalog = built.catalog
    const reach = checkReach(catalog)
    for (const p of reach.problems) problems.push(p)
    built.notes.push(`reachability: ${reach.reachable} of ${reach.total} targets resolve from a part name`, ...acknowledged)
    const catalogJson = JSON.stringify(catalog)
    const content = manifestContent(artifacts, data, { facts: layout.factCount, ...partCounts(catalog), targets: gathered.targets.length, byTopic: layout.byTopic }, problems, built.notes)
    // The id names what is written: the top file's bytes before its meta rows, every shard's digest
    // (each shard's bytes: every table and index as this code and this SQLite laid them out; computed
    // once when the shard was written), the catalog and the manifest's content, which the meta rows
    // add. The curation file's own bytes too: an entry that changes nothing derived still names
    // another curation.
    const id = createHash('sha256')
      .update(`hwfacts-release/4\n${written}\n`)
      .update(layout.shards.map((s) => `${s.sha256}\n`).join(''))
      .update(catalogJson)
      .update(curationRaw)
      .update(vendorsRaw)
      .update(JSON.stringify(content))
      .digest('hex')
      .slice(0, 16)
    lap('catalog')

    if (existsSync(data.manifestPath(id))) {
      db.close()
      rmSync(tmpDir, { recursive: true, force: true })
      const manifest = JSON.parse(readFileSync(data.manifestPath(id), 'utf8')) as ReleaseManifest
      return { id, manifest, reused: true, problems: manifest.problems, timingsMs: timings, units: stats }
    }
    const manifest: ReleaseManifest = { format: 'hwfacts-release/1', id, createdAt: (opts.now?.() ?? new Date()).toISOString(), ...content }
    const withDigest = publish(db, dbPath, tmpDir, data, { manifest, catalogJson, shards: layout.shards })
    lap('write')
    return { id, manifest: withDigest, reused: false, problems, timingsMs: timings, units: stats }
  } catch (err) {
    if (db?.open) db.close()
    // A build directory that could not be made (a file in its path) cannot be removed either:
    // the build's own error (a WriteError naming the file) is the one to report.
    try {
      rmSync(tmpDir, { recursive: true, force: true })
    } catch {}
    throw err
  }
}

/** The catalog's input (small: no facts) from the units' summaries, in unit order, and the problems found. */
interface Gathered {
  targets: DocumentTarget[]
  parts: CatalogPart[]
  partNumbers: PartNumber[]
  found: ParseProblem[]
  /** `${unit} ${target key}` of each target a unit gives after an earlier unit gave it. */
  dropped: Set<string>
}

/**
 * Checks across units: a target key two units give keeps the first unit's target, parts and
 * facts (e.g. one RefName in two STM32 files of two runs); a problem two units report about an
 * artifact both read (a shared GPIO modes file) is kept once.
 */
function gather(summaries: readonly UnitSummary[], unclaimed: readonly ParseProblem[]): Gathered {
  const out: Gathered = { targets: [], parts: [], partNumbers: [], found: [], dropped: new Set() }
  const givenBy = new Map<string, { unit: number; path: string }>()
  const reported = new Set<string>()
  const report = (p: ParseProblem) => {
    const k = JSON.stringify(p)
    if (reported.has(k)) return
    reported.add(k)
    out.found.push(p)
  }
  summaries.forEach((s, unit) => {
    for (const x of s.problems) report(x)
    for (const x of s.targets) {
      const first = givenBy.get(x.key)
      if (!first) givenBy.set(x.key, { unit, path: x.sourcePath })
      if (first && first.unit !== unit) {
        out.dropped.add(`${unit} ${x.key}`)
        report({ file: x.sourcePath, reason: `target ${x.key} already given by ${first.path}; skipped` })
      } else out.targets.push(x)
    }
    for (const x of s.parts) if (!out.dropped.has(`${unit} ${x.target}`)) out.parts.push(x)
    for (const x of s.partNumbers ?? []) out.partNumbers.push(x)
  })
  for (const x of unclaimed) report(x)
  return out
}

interface Layout {
  shards: FileDigest[]
  ranges: ReleaseRange[]
  counts: Map<string, Partial<Record<Topic, number>>>
  byTopic: Partial<Record<Topic, number>>
  factCount: number
}

/**
 * The shards the release refers to, in unit order, and every kept (target, topic) in canonical
 * order (targets by key, topics by name), with the facts per target and topic. A shard whose
 * targets were all given earlier is not referred to.
 */
function releaseLayout(summaries: readonly UnitSummary[], dropped: ReadonlySet<string>): Layout {
  const shards: FileDigest[] = []
  const ranges: ReleaseRange[] = []
  summaries.forEach(({ shard }, unit) => {
    const kept = shard?.ranges.filter((r) => !dropped.has(`${unit} ${r.target}`)) ?? []
    if (kept.length === 0) return
    for (const r of kept) ranges.push({ ...r, shard: shards.length })
    shards.push({ sha256: shard!.sha256, bytes: shard!.bytes })
  })
  ranges.sort(byTargetThenTopic)
  const counts = new Map<string, Partial<Record<Topic, number>>>()
  const byTopic: Partial<Record<Topic, number>> = {}
  let factCount = 0
  for (const r of ranges) {
    const n = r.last - r.first + 1
    const c = counts.get(r.target) ?? {}
    counts.set(r.target, c)
    c[r.topic] = n
    byTopic[r.topic] = (byTopic[r.topic] ?? 0) + n
    factCount += n
  }
  return { shards, ranges, counts, byTopic, factCount }
}

/** The top file's shards and ranges; returns its digest (journal off: each commit is in the file). */
function writeTopFile(db: Database.Database, dbPath: string, layout: Layout): string {
  writing(dbPath, () => {
    db.pragma('journal_mode = OFF')
    db.pragma('synchronous = OFF')
    db.exec(TOP_SCHEMA)
    const insShard = db.prepare('INSERT INTO shards (shard, sha256, bytes) VALUES (?, ?, ?)')
    const insRange = db.prepare('INSERT INTO fact_ranges (target, topic, shard, tt, first, last, scope) VALUES (?, ?, ?, ?, ?, ?, ?)')
    db.transaction(() => {
      layout.shards.forEach((s, i) => insShard.run(i, s.sha256, s.bytes))
      for (const r of layout.ranges) insRange.run(r.target, r.topic, r.shard, r.tt, r.first, r.last, r.scope)
    })()
  })
  return fileSha256(dbPath).sha256
}

type ManifestContent = Omit<ReleaseManifest, 'format' | 'id' | 'createdAt'>

/** Everything of the manifest but its id and date, members in a fixed order. */
function manifestContent(artifacts: readonly ArtifactRef[], data: DataDir, counts: ReleaseManifest['counts'], problems: ParseProblem[], coverageNotes: string[]): ManifestContent {
  return {
    indexerFormat: INDEXER_FORMAT,
    tokenizer: TOKENIZER,
    sources: artifacts.map((a) => ({
      path: a.path,
      sha256: a.sha256,
      bytes: a.bytes,
      kind: a.kind,
      publisher: a.publisher,
      ...(a.distributor ? { distributor: a.distributor } : {}),
      license: a.license,
      mediaType: a.mediaType,
      ...(a.upstream ? { upstream: a.upstream } : {}),
      archivePath: data.archiveRel(a.sha256)
    })),
    counts,
    problems,
    coverageNotes
  }
}

/**
 * Writes the meta rows, links every shard from the cache into the release directory (which then
 * holds every file it needs, whatever happens to the cache later), writes manifest.json and moves
 * the directory into place. Returns the manifest with the files' digests.
 */
function publish(db: Database.Database, dbPath: string, tmpDir: string, data: DataDir, r: { manifest: ReleaseManifest; catalogJson: string; shards: FileDigest[] }): ReleaseManifest {
  writing(dbPath, () => {
    const putMeta = db.prepare('INSERT INTO meta (key, value) VALUES (?, ?)')
    putMeta.run('manifest', JSON.stringify(r.manifest))
    putMeta.run('catalog', r.catalogJson)
    putMeta.run('schema', String(SCHEMA_VERSION))
    db.close()
    chmodSync(dbPath, 0o444)
  })
  const shardDir = join(tmpDir, 'shards')
  writing(shardDir, () => mkdirSync(shardDir))
  for (const s of r.shards) {
    const to = join(tmpDir, shardFileName(s.sha256))
    writing(to, () => linkOrCopy(cachedShard(data.root, s.sha256), to))
  }
  // The top file's own digest can only live outside it: manifest.json has it and the shards',
  // `hwfacts verify` and the service check them.
  const withDigest: ReleaseManifest = { ...r.manifest, database: fileSha256(dbPath), shards: r.shards }
  const manifestFile = join(tmpDir, 'manifest.json')
  writing(manifestFile, () => writeFileSync(manifestFile, JSON.stringify(withDigest, null, 2) + '\n', { mode: 0o444 }))
  writing(data.releaseDir(r.manifest.id), () => renameSync(tmpDir, data.releaseDir(r.manifest.id)))
  pruneCache(data.root)
  return withDigest
}
