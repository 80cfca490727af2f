import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { versions } from 'node:process'
import type { CatalogPart, DocumentTarget, ParseProblem, PartNumber } from '../src/model/fact.js'
import type { ArtifactRef } from './inventory.js'
import { writing } from './inventory.js'
import type { ShardInfo } from './shard.js'

/**
 * The parse cache, under `<data dir>/cache/`: per parse unit, an entry `parse/<2>/<key>.json` with
 * what its adapter gave besides facts (its summary) and the shard its facts were written to,
 * `shards/<2>/<sha256>.sqlite` (read-only, by content). The key names everything that shapes them
 * (below). A build parses only the units whose entry is missing and links every unit's shard into
 * the release as it is, so the release is the same whether a unit was parsed now or before.
 */
const FORMAT = 'hwfacts-parse-cache/3'

/** What a unit gave: its targets, parts and problems, and the shard holding its facts (none without facts). */
export interface UnitSummary {
  targets: DocumentTarget[]
  parts: CatalogPart[]
  partNumbers?: PartNumber[]
  problems: ParseProblem[]
  shard?: ShardInfo
}

/**
 * The key of a unit's entry: the cache format, what encodes facts (indexer format, schema,
 * tokenizer, zlib, which packs the bodies), the adapter's name and version, and every artifact the
 * adapter is given (all it can read: an STM32 MCU file's unit holds the GPIO modes files it may
 * name), with all their inventory metadata.
 */
export function unitKey(encoder: string, adapter: { name: string; version?: string }, artifacts: readonly ArtifactRef[]): string {
  const h = createHash('sha256').update(`${FORMAT}\n${encoder}\nzlib ${versions.zlib}\nadapter ${adapter.name} ${adapter.version ?? '1'}\n`)
  for (const a of artifacts) h.update(JSON.stringify(a)).update('\n')
  return h.digest('hex')
}

const cacheDir = (dataRoot: string) => join(dataRoot, 'cache')
const entryPath = (dataRoot: string, key: string) => join(cacheDir(dataRoot), 'parse', key.slice(0, 2), `${key}.json`)

/** A shard in the cache, by its sha256. */
export function cachedShard(dataRoot: string, sha256: string): string {
  return join(cacheDir(dataRoot), 'shards', sha256.slice(0, 2), `${sha256}.sqlite`)
}

/** Where the parse worker of this process writes a unit's shard until it is complete. */
export function shardTmpPath(dataRoot: string, key: string): string {
  return join(cacheDir(dataRoot), 'shards', `${key}.${process.pid}.tmp`)
}

/** Records a unit's entry (its shard is in place already), written whole or not at all. */
export function writeEntry(dataRoot: string, key: string, summary: UnitSummary): void {
  const file = entryPath(dataRoot, key)
  const tmp = `${file}.${process.pid}.tmp`
  writing(file, () => {
    mkdirSync(dirname(file), { recursive: true })
    try {
      writeFileSync(tmp, JSON.stringify({ format: FORMAT, ...summary }))
      renameSync(tmp, file)
    } catch (err) {
      rmSync(tmp, { force: true })
      throw err
    }
  })
}

/**
 * The unit's summary, or undefined when its entry or shard is missing, incomplete or of another
 * format. A hit touches both (see pruneCache).
 */
export function readEntry(dataRoot: string, key: string): UnitSummary | undefined {
  const file = entryPath(dataRoot, key)
  try {
    const { format, ...summary } = JSON.parse(readFileSync(file, 'utf8')) as UnitSummary & { format: string }
    if (format !== FORMAT) return undefined
    const shard = summary.shard && cachedShard(dataRoot, summary.shard.sha256)
    if (shard && statSync(shard).size !== summary.shard!.bytes) return undefined
    const now = new Date()
    utimesSync(file, now, now)
    if (shard) utimesSync(shard, now, now)
    return summary
  } catch {
    return undefined
  }
}

/** Entries and shards no build has used for this long are removed after a build. */
const CACHE_KEEP_MS = 14 * 24 * 3600 * 1000

/**
 * Removes entries and shards unused for CACHE_KEEP_MS, and temporary files of builds that died. A
 * release holds its own links to its shards, so no release loses a file by this.
 */
export function pruneCache(dataRoot: string, now = Date.now()): void {
  const remove = (p: string, name: string) => {
    try {
      if (now - statSync(p).mtimeMs > (name.endsWith('.tmp') ? 24 * 3600 * 1000 : CACHE_KEEP_MS)) rmSync(p, { force: true })
    } catch {
      // removed meanwhile by another build
    }
  }
  for (const kind of ['parse', 'shards']) {
    const root = join(cacheDir(dataRoot), kind)
    if (!existsSync(root)) continue
    for (const d of readdirSync(root, { withFileTypes: true })) {
      if (!d.isDirectory()) remove(join(root, d.name), d.name)
      else for (const f of readdirSync(join(root, d.name))) remove(join(root, d.name, f), f)
    }
  }
}
