import { createHash } from 'node:crypto'
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import type { CatalogPart, DocumentTarget, ParseProblem, Topic } from '../src/model/fact.js'
import type { ReleaseCatalog } from '../src/model/catalog.js'
import { DataDir } from '../src/store/layout.js'
import { BODY_BLOCK_FACTS, SCHEMA, SCHEMA_INDEXES, SCHEMA_VERSION, scopedTermPrefix, unpackBodies } from '../src/store/sqlite/schema.js'
import type { ReleaseManifest } from '../src/store/types.js'
import { buildCatalog } from './curation/catalog.js'
import { loadCuration } from './curation/curation.js'
import { catalogTargets, checkReach } from './curation/reach.js'
import { INDEXER_FORMAT, packBlocks, type EncodedChunk } from './encode.js'
import { planChunks, writeTermsInWorker, type RangePlan } from './terms.js'
import { fileSha256, readInventory, verifyArtifacts, writing } from './inventory.js'
import { cachePath, pruneCache } from './parse-cache.js'
import { hashFile } from '../src/store/hash-files.js'
import { parseAll, parseUnits, type ParseStats } from './parse-units.js'
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

/** The chunk with only the facts `keep` marks: its bodies re-packed. */
function keptOnly(c: Omit<EncodedChunk, 'terms'>, keep: boolean[]): Omit<EncodedChunk, 'terms'> {
  const pick = <T>(xs: T[]) => xs.filter((_, i) => keep[i])
  const bodies = c.blocks.flatMap((b) => unpackBodies(b))
  return {
    target: c.target,
    topic: c.topic,
    names: pick(c.names),
    ids: pick(c.ids),
    packages: pick(c.packages),
    revisions: pick(c.revisions),
    tokens: pick(c.tokens),
    peripherals: pick(c.peripherals),
    blocks: packBlocks(pick(bodies))
  }
}

/**
 * Builds an immutable release from a source inventory, in memory bounded by the biggest parse
 * unit rather than by the corpus:
 *  1. verify: each artifact is read, checked against the inventory and archived, one at a time;
 *  2. parse: every unit (see parseUnits) missing from the parse cache is parsed in a worker, which
 *     writes its encoded facts to the cache and returns only a summary (targets, parts, problems);
 *  3. facts: the units' chunks are copied from the cache into `release.sqlite`, in canonical
 *     order (targets by key, topics by name, then unit and document order), chunk by chunk;
 *     meanwhile a worker writes the full-text index from the same plan into a file of its own;
 *  4. terms: the full-text index's tables are copied in once the worker is done;
 *  5. the catalog is built from the summaries; the id is a digest of everything written (the file's
 *     bytes, the catalog and the manifest's content).
 * So the release is the same whatever the workers' timing and whichever units came from the cache.
 * A failed write ends with a WriteError naming the file; nothing of the release is left behind.
 */
export async function buildRelease(opts: BuildOptions): Promise<BuildResult> {
  const { lap, timings } = stopwatch()
  const progress = opts.onProgress ?? (() => {})
  // Read first: a bad curation file stops the build before any work.
  const { curation, raw: curationRaw } = loadCuration(opts.inventory, opts.curation)
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

  // The catalog's input (small: no facts), in unit order.
  const targets: DocumentTarget[] = []
  const parts: CatalogPart[] = []
  const problems: ParseProblem[] = []
  // Checks across units: a target key two units give keeps the first unit's target, parts and
  // facts (e.g. one RefName in two STM32 files of two runs); a problem two units report about an
  // artifact both read (a shared GPIO modes file) is kept once.
  const givenBy = new Map<string, { unit: number; path: string }>()
  const dropped = new Set<string>()
  const reported = new Set<string>()
  const report = (p: ParseProblem) => {
    const k = JSON.stringify(p)
    if (reported.has(k)) return
    reported.add(k)
    problems.push(p)
  }
  summaries.forEach((s, unit) => {
    for (const x of s.problems) report(x)
    for (const x of s.targets) {
      const first = givenBy.get(x.key)
      if (!first) givenBy.set(x.key, { unit, path: x.sourcePath })
      if (first && first.unit !== unit) {
        dropped.add(`${unit} ${x.key}`)
        report({ file: x.sourcePath, reason: `target ${x.key} already given by ${first.path}; skipped` })
      } else targets.push(x)
    }
    for (const x of s.parts) if (!dropped.has(`${unit} ${x.target}`)) parts.push(x)
  })
  for (const x of unclaimed) report(x)
  const known = new Set(targets.map((t) => t.key))
  for (const s of summaries) for (const f of s.foreign) if (!known.has(f.target)) problems.push({ file: f.file, reason: `fact ${f.name} names unknown target ${f.target}` })

  // Canonical order: targets by key, each target's topics by name, each topic's chunks in unit order.
  const byTarget = new Map<string, Map<Topic, RangePlan['chunks']>>()
  let total = 0
  summaries.forEach((s, unit) => {
    for (const ref of s.chunks) {
      if (!known.has(ref.target) || dropped.has(`${unit} ${ref.target}`)) continue
      let byTopic = byTarget.get(ref.target)
      if (!byTopic) byTarget.set(ref.target, (byTopic = new Map()))
      const chunk = { file: cachePath(data.root, units[unit]!.key), ref }
      const list = byTopic.get(ref.topic)
      if (list) list.push(chunk)
      else byTopic.set(ref.topic, [chunk])
      total += ref.facts
    }
  })
  // The scope of a target's search terms: its ordinal among all targets by key.
  const plan: RangePlan[] = []
  ;[...known].sort().forEach((target, ti) => {
    const topics = byTarget.get(target)
    for (const topic of [...(topics?.keys() ?? [])].sort()) {
      const chunks = topics!.get(topic)!
      plan.push({ target, topic, scope: scopedTermPrefix(ti, topic), chunks, dedupe: chunks.some((c) => c.file !== chunks[0]!.file) })
    }
  })

  const tmpDir = join(data.root, 'releases', `.build-${process.pid}-${Date.now()}`)
  const dbPath = join(tmpDir, 'release.sqlite')
  const termsPath = join(tmpDir, 'terms.sqlite')
  let db: Database.Database | undefined
  let terms: ReturnType<typeof writeTermsInWorker> | undefined
  try {
    writing(tmpDir, () => mkdirSync(tmpDir, { recursive: true }))
    // The full-text index (about half the writing) is written meanwhile, in a worker, from the same plan.
    terms = writeTermsInWorker(termsPath, plan)
    db = writing(dbPath, () => new Database(dbPath))
    const open = db
    const counts = new Map<string, Partial<Record<Topic, number>>>()
    const byTopic: Partial<Record<Topic, number>> = {}
    let factCount = 0
    writing(dbPath, () => {
      open.pragma('journal_mode = OFF')
      open.pragma('synchronous = OFF')
      open.pragma('cache_size = -65536')
      open.exec(SCHEMA)
      const insFact = open.prepare('INSERT INTO facts (ord, tt, name_key, package, revisions, tokens) VALUES (?, ?, ?, ?, ?, ?)')
      const insPeriph = open.prepare('INSERT OR IGNORE INTO fact_peripherals (peripheral, ord) VALUES (?, ?)')
      const insBody = open.prepare('INSERT INTO fact_bodies (first, data) VALUES (?, ?)')
      const insRange = open.prepare('INSERT INTO fact_ranges (tt, target, topic, first, last, scope) VALUES (?, ?, ?, ?, ?, ?)')
      open.transaction(() => {
        let ord = 0
        let first = 1
        const endRange = (range: number) => {
          const { target, topic, scope } = plan[range]!
          const tt = range + 1
          insRange.run(tt, target, topic, first, ord, scope)
          const c0 = counts.get(target) ?? {}
          counts.set(target, c0)
          c0[topic] = ord - first + 1
          byTopic[topic] = (byTopic[topic] ?? 0) + ord - first + 1
          first = ord + 1
        }
        let current = 0
        const chunks = planChunks(
          plan,
          (reader, ref) => reader.readColumns(ref),
          (c) => c.ids
        )
        for (const { range, value, keep } of chunks) {
          for (; current < range; current++) endRange(current)
          const tt = range + 1
          const c = keep ? keptOnly(value, keep) : value
          c.blocks.forEach((b, i) => insBody.run(ord + 1 + i * BODY_BLOCK_FACTS, b))
          for (let i = 0; i < c.names.length; i++) {
            ord++
            insFact.run(ord, tt, c.names[i]!.toLowerCase(), c.packages[i], c.revisions[i], c.tokens[i])
            for (const p of c.peripherals[i]!) insPeriph.run(p, ord)
          }
          progress('facts', ord, total)
        }
        for (; current < plan.length; current++) endRange(current)
        factCount = ord
      })()
      open.exec(SCHEMA_INDEXES)
    })
    lap('facts')
    // What is left of the terms writer's work once the other tables are written, and the copy.
    await terms.done
    writing(dbPath, () => {
      // The index's own tables, copied row for row (FTS5 keeps its segments as blobs in them); an
      // FTS5 table's tables are read-only to SQL unless defensive mode is off.
      open.unsafeMode(true)
      open.prepare('ATTACH ? AS terms').run(termsPath)
      open.exec('DELETE FROM fact_terms_data; INSERT INTO fact_terms_data SELECT * FROM terms.fact_terms_data ORDER BY id')
      open.exec('DELETE FROM fact_terms_idx; INSERT INTO fact_terms_idx SELECT * FROM terms.fact_terms_idx ORDER BY segid, term')
      open.exec('DETACH terms')
      open.unsafeMode(false)
      rmSync(termsPath)
      // Statistics, so the planner prefers the name index for name filters; from a sample of
      // the index (a full ANALYZE of millions of rows takes seconds and plans no better).
      open.pragma('analysis_limit = 2000')
      open.exec('ANALYZE facts')
    })
    lap('terms')
    // Every statement so far has committed (journal off: each commit writes its pages to the file).
    // The file as it stands is hashed in a worker while this thread builds the catalog.
    const written = hashFile(dbPath)
    written.catch(() => {})

    const built = buildCatalog({ targets: catalogTargets(artifacts, targets, problems, counts), parts }, curation)
    const catalog: ReleaseCatalog = built.catalog
    const reach = checkReach(catalog)
    for (const p of reach.problems) problems.push(p)
    built.notes.push(`reachability: ${reach.reachable} of ${reach.total} targets resolve from a part name`)
    const catalogJson = JSON.stringify(catalog)
    // Everything of the manifest but its id and date, members in a fixed order.
    const content = {
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
      counts: { facts: factCount, parts: parts.length, targets: targets.length, byTopic },
      problems,
      coverageNotes: built.notes
    }
    // The id names what is written: the release file's bytes before its meta rows (every table and
    // index, as this code and this SQLite laid them out), the catalog and the manifest's content,
    // which the meta rows add. The curation file's own bytes too: an entry that changes nothing
    // derived still names another curation.
    const id = createHash('sha256')
      .update(`hwfacts-release/3\n${await written}\n`)
      .update(catalogJson)
      .update(curationRaw)
      .update(JSON.stringify(content))
      .digest('hex')
      .slice(0, 16)

    if (existsSync(data.manifestPath(id))) {
      db.close()
      rmSync(tmpDir, { recursive: true, force: true })
      const manifest = JSON.parse(readFileSync(data.manifestPath(id), 'utf8')) as ReleaseManifest
      lap('write')
      return { id, manifest, reused: true, problems: manifest.problems, timingsMs: timings, units: stats }
    }

    const manifest: ReleaseManifest = { format: 'hwfacts-release/1', id, createdAt: (opts.now?.() ?? new Date()).toISOString(), ...content }
    writing(dbPath, () => {
      const putMeta = open.prepare('INSERT INTO meta (key, value) VALUES (?, ?)')
      putMeta.run('manifest', JSON.stringify(manifest))
      putMeta.run('catalog', catalogJson)
      putMeta.run('schema', String(SCHEMA_VERSION))
      open.close()
      chmodSync(dbPath, 0o444)
    })
    // The file's own digest can only live outside it: manifest.json has it, `hwfacts verify` checks it.
    const withDigest: ReleaseManifest = { ...manifest, database: fileSha256(dbPath) }
    const manifestFile = join(tmpDir, 'manifest.json')
    writing(manifestFile, () => writeFileSync(manifestFile, JSON.stringify(withDigest, null, 2) + '\n', { mode: 0o444 }))
    writing(data.releaseDir(id), () => renameSync(tmpDir, data.releaseDir(id)))
    pruneCache(data.root)
    lap('write')
    return { id, manifest: withDigest, reused: false, problems, timingsMs: timings, units: stats }
  } catch (err) {
    await terms?.stop()
    if (db?.open) db.close()
    rmSync(tmpDir, { recursive: true, force: true })
    throw err
  }
}
