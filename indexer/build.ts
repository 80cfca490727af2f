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
import { INDEXER_FORMAT, packBlocks, scopedTerms, type EncodedChunk } from './encode.js'
import { fileSha256, readInventory, verifyArtifacts, writing } from './inventory.js'
import { CacheReader, cachePath, pruneCache, type ChunkRef } from './parse-cache.js'
import { parseAll, parseUnits, type ParseStats } from './parse-units.js'
import { TOKENIZER } from '../src/model/tokens.js'
import { stopwatch } from './stopwatch.js'

export { INDEXER_FORMAT } from './encode.js'

const TERMS_BATCH = 32

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

/** A chunk without the facts whose ids `seen` has (a target given by two units): re-packed only if one goes. */
function withoutSeen(c: EncodedChunk, seen: Set<string>): EncodedChunk {
  const keep = c.ids.map((id) => !seen.has(id) && (seen.add(id), true))
  if (keep.every(Boolean)) return c
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
    terms: pick(c.terms),
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
 *  4. the catalog is built from the summaries; the id is a digest of everything written.
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
  const plan = new Map<string, Map<Topic, Array<{ unit: number; ref: ChunkRef }>>>()
  let total = 0
  summaries.forEach((s, unit) => {
    for (const ref of s.chunks) {
      if (!known.has(ref.target) || dropped.has(`${unit} ${ref.target}`)) continue
      let byTopic = plan.get(ref.target)
      if (!byTopic) plan.set(ref.target, (byTopic = new Map()))
      const list = byTopic.get(ref.topic)
      if (list) list.push({ unit, ref })
      else byTopic.set(ref.topic, [{ unit, ref }])
      total += ref.facts
    }
  })
  // The scope of a target's search terms: its ordinal among all targets by key.
  const targetKeys = [...known].sort()

  const tmpDir = join(data.root, 'releases', `.build-${process.pid}-${Date.now()}`)
  const dbPath = join(tmpDir, 'release.sqlite')
  let db: Database.Database | undefined
  try {
    writing(tmpDir, () => mkdirSync(tmpDir, { recursive: true }))
    db = writing(dbPath, () => new Database(dbPath))
    const open = db
    const idHash = createHash('sha256').update(`hwfacts-release/2\n`)
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
      const insTerms = open.prepare('INSERT INTO fact_terms (rowid, terms) VALUES (?, ?)')
      // FTS rows go TERMS_BATCH to a statement: about half the cost of one statement per row.
      const insTermsBatch = open.prepare(`INSERT INTO fact_terms (rowid, terms) VALUES ${Array(TERMS_BATCH).fill('(?, ?)').join(', ')}`)
      const pendingTerms: Array<number | string> = []
      const insBody = open.prepare('INSERT INTO fact_bodies (first, data) VALUES (?, ?)')
      const insRange = open.prepare('INSERT INTO fact_ranges (tt, target, topic, first, last, scope) VALUES (?, ?, ?, ?, ?, ?)')
      open.transaction(() => {
        let ord = 0
        let tt = 0
        targetKeys.forEach((target, ti) => {
          const topics = plan.get(target)
          if (!topics) return
          const c0 = counts.get(target) ?? {}
          counts.set(target, c0)
          for (const topic of [...topics.keys()].sort()) {
            const refs = topics.get(topic)!
            // Names are unique per target/topic/package: across units too, the first in canonical order wins.
            const seen = refs.some((r) => r.unit !== refs[0]!.unit) ? new Set<string>() : undefined
            const scope = scopedTermPrefix(ti, topic)
            const first = ord + 1
            tt++
            for (const { unit, ref } of refs) {
              const reader = new CacheReader(cachePath(data.root, units[unit]!.key))
              let read: { chunk: EncodedChunk; meta: Buffer }
              try {
                read = reader.read(ref)
              } finally {
                reader.close()
              }
              let c = read.chunk
              if (seen) c = withoutSeen(c, seen)
              // The rows below are a function of the chunk's columns, its first ord, range and scope.
              idHash.update(`chunk ${ord + 1} ${tt} ${scope}\n`).update(c === read.chunk ? read.meta : JSON.stringify({ ...c, blocks: undefined }))
              c.blocks.forEach((b, i) => {
                insBody.run(ord + 1 + i * BODY_BLOCK_FACTS, b)
                idHash.update(b)
              })
              for (let i = 0; i < c.names.length; i++) {
                ord++
                const nameKey = c.names[i]!.toLowerCase()
                insFact.run(ord, tt, nameKey, c.packages[i], c.revisions[i], c.tokens[i])
                for (const p of c.peripherals[i]!) insPeriph.run(p, ord)
                const terms = scopedTerms(c.terms[i]!, scope)
                if (terms !== '' && pendingTerms.push(ord, terms) === 2 * TERMS_BATCH) {
                  insTermsBatch.run(pendingTerms)
                  pendingTerms.length = 0
                }
              }
              progress('facts', ord, total)
            }
            insRange.run(tt, target, topic, first, ord, scope)
            idHash.update(`range ${tt} ${target} ${topic} ${first} ${ord} ${scope}\n`)
            c0[topic] = ord - first + 1
            byTopic[topic] = (byTopic[topic] ?? 0) + ord - first + 1
          }
        })
        for (let i = 0; i < pendingTerms.length; i += 2) insTerms.run(pendingTerms[i], pendingTerms[i + 1])
        factCount = ord
      })()
      open.exec(SCHEMA_INDEXES)
      open.exec("INSERT INTO fact_terms (fact_terms) VALUES ('optimize')")
      // Statistics, so the planner prefers the name index for name filters; from a sample of
      // the index (a full ANALYZE of millions of rows takes seconds and plans no better).
      open.pragma('analysis_limit = 2000')
      open.exec('ANALYZE facts')
      // The statistics are written too; and SQLite's version shapes the full-text index's pages.
      idHash.update(`sqlite ${open.prepare<[], { v: string }>('SELECT sqlite_version() AS v').get()!.v}\n`)
      for (const t of ['sqlite_stat1', 'sqlite_stat4'])
        if (open.prepare('SELECT 1 FROM sqlite_schema WHERE name = ?').get(t)) idHash.update(JSON.stringify(open.prepare(`SELECT * FROM ${t} ORDER BY 1, 2`).raw().all()))
    })
    lap('facts')

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
    // The id names what is written: every row above, the catalog and the manifest's content.
    // The curation file's own bytes too: an entry that changes nothing derived still names another curation.
    const id = idHash.update(catalogJson).update(curationRaw).update(JSON.stringify(content)).digest('hex').slice(0, 16)

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
    if (db?.open) db.close()
    rmSync(tmpDir, { recursive: true, force: true })
    throw err
  }
}
