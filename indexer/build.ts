import { createHash } from 'node:crypto'
import { chmodSync, existsSync, mkdirSync, renameSync, rmSync, writeFileSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import type { CatalogPart, DocumentTarget, ParseProblem, Topic } from '../src/model/fact.js'
import type { ReleaseCatalog } from '../src/model/catalog.js'
import { DataDir } from '../src/store/layout.js'
import { SCHEMA, SCHEMA_VERSION, scopedTermPrefix } from '../src/store/sqlite/schema.js'
import type { ReleaseManifest } from '../src/store/types.js'
import { buildCatalog } from './curation/catalog.js'
import { loadCuration } from './curation/curation.js'
import { catalogTargets, checkReach } from './curation/reach.js'
import { scopedTerms, type EncodedFact } from './encode.js'
import { loadArtifacts, readInventory } from './inventory.js'
import { parseAll, parseUnits, type ParsedUnit } from './parse-units.js'
import { TOKENIZER } from '../src/model/tokens.js'
import { stopwatch } from './stopwatch.js'

/** Bumped whenever the facts produced from the same sources change: part of every release id. */
export const INDEXER_FORMAT = 1


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
}

/** The units' results as one: in unit order, so the same as one adapter call after another. */
function concat(parsed: ParsedUnit[], unclaimed: ParseProblem[]) {
  const targets: DocumentTarget[] = []
  const facts: EncodedFact[] = []
  const parts: CatalogPart[] = []
  const problems: ParseProblem[] = []
  for (const r of parsed) {
    // Loops, not spread: a unit can return hundreds of thousands of facts.
    for (const x of r.targets) targets.push(x)
    for (const x of r.facts) facts.push(x)
    for (const x of r.parts) parts.push(x)
    for (const x of r.problems) problems.push(x)
  }
  for (const x of unclaimed) problems.push(x)
  return { targets, facts, parts, problems }
}

/**
 * Builds an immutable release from a source inventory: verifies and archives every artifact,
 * runs the adapters, and writes `releases/<id>/release.sqlite` + `manifest.json`. The id is derived
 * from the content alone, so the same inputs give the same id and an existing release is reused.
 */
export async function buildRelease(opts: BuildOptions): Promise<BuildResult> {
  const { lap, timings } = stopwatch()
  const progress = opts.onProgress ?? (() => {})
  // Read first: a bad curation file stops the build before any work.
  const { curation, raw: curationRaw } = loadCuration(opts.inventory, opts.curation)
  const data = new DataDir(opts.dataDir)
  const inv = readInventory(opts.inventory)
  let loaded = 0
  const artifacts = loadArtifacts(inv, data, () => progress('verify', ++loaded, inv.records.length))
  lap('verify')

  // Adapters, serialization, token counts and terms, in worker threads.
  const { units, unclaimed } = parseUnits(artifacts)
  let parsed = 0
  progress('parse', 0, units.length)
  const out = concat(await parseAll(units, () => progress('parse', ++parsed, units.length)), unclaimed)
  lap('parse')

  // Canonical order: targets by key, each target's facts in the adapter's (document) order.
  const targetOrdinal = new Map(out.targets.map((t) => t.key).sort().map((k, i) => [k, i] as const))
  const problems = [...out.problems]
  const buckets: EncodedFact[][] = [...targetOrdinal.keys()].map(() => [])
  for (const f of out.facts) {
    const i = targetOrdinal.get(f.target)
    if (i === undefined) problems.push({ file: f.sourcePath, reason: `fact ${f.name} names unknown target ${f.target}` })
    else buckets[i]!.push(f)
  }

  const idHash = createHash('sha256')
  idHash.update(`hwfacts-release/1\nindexer ${INDEXER_FORMAT}\nschema ${SCHEMA_VERSION}\ntokenizer ${TOKENIZER}\n${curationRaw}\n`)
  for (const a of artifacts) idHash.update(`${a.path} ${a.sha256} ${a.kind}\n`)

  const tmpDir = join(data.root, 'releases', `.build-${process.pid}-${Date.now()}`)
  mkdirSync(tmpDir, { recursive: true })
  const dbPath = join(tmpDir, 'release.sqlite')
  const db = new Database(dbPath)
  const counts = new Map<string, Partial<Record<Topic, number>>>()
  const byTopic: Partial<Record<Topic, number>> = {}
  let factCount = 0
  try {
    db.pragma('journal_mode = OFF')
    db.pragma('synchronous = OFF')
    db.exec(SCHEMA)
    const insFact = db.prepare('INSERT INTO facts (ord, id, target, topic, name_key, package, revisions, tokens, body) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)')
    const insPeriph = db.prepare('INSERT OR IGNORE INTO fact_peripherals (peripheral, ord) VALUES (?, ?)')
    const insTerms = db.prepare('INSERT INTO fact_terms (rowid, terms) VALUES (?, ?)')
    const total = out.facts.length
    db.transaction(() => {
      let ord = 0
      buckets.forEach((facts, ti) => {
        const seen = new Set<string>()
        for (const f of facts) {
          // Names are unique per target/topic/package: the first statement in document order wins.
          if (seen.has(f.id)) continue
          seen.add(f.id)
          ord++
          idHash.update(f.body).update('\n')
          insFact.run(ord, f.id, f.target, f.topic, f.nameKey, f.package, f.revisions, f.tokens, f.body)
          for (const p of f.peripherals) insPeriph.run(p, ord)
          insTerms.run(ord, scopedTerms(f.terms, scopedTermPrefix(ti, f.topic)))
          const c = counts.get(f.target) ?? {}
          c[f.topic] = (c[f.topic] ?? 0) + 1
          counts.set(f.target, c)
          byTopic[f.topic] = (byTopic[f.topic] ?? 0) + 1
          if (ord % 5000 === 0) progress('facts', ord, total)
        }
      })
      factCount = ord
      progress('facts', total, total)
    })()
    lap('facts')

    const built = buildCatalog({ targets: catalogTargets(artifacts, out.targets, problems, counts), parts: out.parts }, curation)
    const catalog: ReleaseCatalog = built.catalog
    const reach = checkReach(catalog)
    for (const p of reach.problems) problems.push(p)
    built.notes.push(`reachability: ${reach.reachable} of ${reach.total} targets resolve from a part name`)
    const catalogJson = JSON.stringify(catalog)
    idHash.update(catalogJson)
    const id = idHash.digest('hex').slice(0, 16)

    if (existsSync(data.manifestPath(id))) {
      db.close()
      rmSync(tmpDir, { recursive: true, force: true })
      const manifest = JSON.parse(readFileSync(data.manifestPath(id), 'utf8')) as ReleaseManifest
      lap('write')
      return { id, manifest, reused: true, problems: manifest.problems, timingsMs: timings }
    }

    const manifest: ReleaseManifest = {
      format: 'hwfacts-release/1',
      id,
      createdAt: (opts.now?.() ?? new Date()).toISOString(),
      indexerFormat: INDEXER_FORMAT,
      tokenizer: TOKENIZER,
      // Members in a fixed order, whatever order the inventory wrote them in.
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
      counts: { facts: factCount, parts: out.parts.length, targets: out.targets.length, byTopic },
      problems,
      coverageNotes: built.notes
    }
    const putMeta = db.prepare('INSERT INTO meta (key, value) VALUES (?, ?)')
    putMeta.run('manifest', JSON.stringify(manifest))
    putMeta.run('catalog', catalogJson)
    putMeta.run('schema', String(SCHEMA_VERSION))
    db.exec("INSERT INTO fact_terms (fact_terms) VALUES ('optimize')")
    // Statistics, so the planner prefers the name index for name filters and the target index otherwise.
    db.exec('ANALYZE')
    db.close()
    chmodSync(dbPath, 0o444)
    writeFileSync(join(tmpDir, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n', { mode: 0o444 })
    renameSync(tmpDir, data.releaseDir(id))
    lap('write')
    return { id, manifest, reused: false, problems, timingsMs: timings }
  } catch (err) {
    if (db.open) db.close()
    rmSync(tmpDir, { recursive: true, force: true })
    throw err
  }
}
