import Database from 'better-sqlite3'
import { existsSync } from 'node:fs'
import releasesIndex from '../mappings/releases-index.json' with { type: 'json' }
import factsIndex from '../mappings/facts-index.json' with { type: 'json' }
import { DataDir, RELEASE_ID } from '../src/store/layout.js'
import { factDocument } from '../src/store/search-engine/document.js'
import { readStoredFacts } from '../src/store/sqlite/store.js'
import type { EngineRepository, ReleaseRecord } from '../src/store/search-engine/repository.js'
import { EngineError } from '../src/store/search-engine/transport.js'
import type { ReleaseManifest } from '../src/store/types.js'
import { stopwatch } from './stopwatch.js'

export class EngineCommandError extends Error {}

/** A loaded release is reused only when its index was made with the current mappings. */
export const FACTS_FORMAT = factsIndex.mappings._meta.format

export interface LoadOptions {
  /** Documents per `_bulk` request (default 2000: a few MB each). */
  bulkDocs?: number
  /** `_bulk` requests in flight at once: the backpressure bound (default 2). */
  concurrency?: number
  /** Merge the finished index down to one segment (default true: it is immutable, and searches get cheaper). */
  forceMerge?: boolean
  onProgress?: (done: number, total: number) => void
  log?: (msg: string) => void
}

export interface LoadResult {
  id: string
  index: string
  facts: number
  /** True when the release was already fully loaded: nothing was written. */
  reused: boolean
  retries: number
  timingsMs: Record<string, number>
}

const MAX_ATTEMPTS = 8
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
/** Exponential backoff with jitter, 250 ms doubling up to 8 s. */
const backoff = (attempt: number) => Math.min(8000, 250 * 2 ** attempt) * (0.5 + Math.random() / 2)

interface BulkItem {
  index?: { status: number; error?: { type?: string; reason?: string } }
}

/** Sends one chunk, re-sending only the documents the engine rejected as overloaded or failed transiently. */
async function bulkChunk(repo: EngineRepository, index: string, lines: string[], stats: { retries: number }): Promise<void> {
  let pending = lines // pairs: action line, document line
  for (let attempt = 0; ; attempt++) {
    let items: BulkItem[]
    try {
      const res = await repo.engine.request<{ errors: boolean; items: BulkItem[] }>({
        method: 'POST',
        path: `/${index}/_bulk`,
        ndjson: pending.join('\n') + '\n',
        querystring: { filter_path: 'errors,items.*.status,items.*.error' },
        timeoutMs: 120_000,
        maxRetries: 0
      })
      if (!res.body.errors) return
      items = res.body.items
    } catch (err) {
      if (!(err instanceof EngineError) || !err.transient || attempt + 1 >= MAX_ATTEMPTS) throw err
      stats.retries++
      await sleep(backoff(attempt))
      continue
    }
    const retry: string[] = []
    items.forEach((it, i) => {
      const r = it.index
      if (!r || r.status < 300) return
      if (r.status !== 429 && r.status < 500) throw new EngineError(r.status, r.error?.type ?? 'bulk_item', `document ${pending[2 * i]}: ${r.error?.reason ?? r.status}`)
      retry.push(pending[2 * i]!, pending[2 * i + 1]!)
    })
    if (retry.length === 0) return
    if (attempt + 1 >= MAX_ATTEMPTS) throw new EngineError(429, 'bulk_rejected', `${retry.length / 2} documents still rejected after ${MAX_ATTEMPTS} attempts`)
    stats.retries++
    pending = retry
    await sleep(backoff(attempt))
  }
}

async function ensureReleasesIndex(repo: EngineRepository): Promise<void> {
  const name = repo.names.releases
  const exists = await repo.engine.request({ method: 'HEAD', path: `/${name}`, ignore: [404] })
  // Existing: add any fields newer mappings define (adding fields is always allowed).
  if (exists.status === 200) {
    await repo.engine.request({ method: 'PUT', path: `/${name}/_mapping`, body: { properties: releasesIndex.mappings.properties } })
    return
  }
  try {
    await repo.engine.request({ method: 'PUT', path: `/${name}`, body: releasesIndex })
  } catch (err) {
    // Another loader created it first.
    if (!(err instanceof EngineError && err.type === 'resource_already_exists_exception')) throw err
  }
}

async function count(repo: EngineRepository, index: string): Promise<number> {
  const res = await repo.engine.request<{ count: number }>({ method: 'GET', path: `/${index}/_count` })
  return res.body.count
}

async function indexExists(repo: EngineRepository, index: string): Promise<boolean> {
  return (await repo.engine.request({ method: 'HEAD', path: `/${index}`, ignore: [404] })).status === 200
}

/**
 * Copies a kept SQLite release into its own index, `<prefix>-facts-<id>`: bulk-loads it with
 * refreshes off and no replicas, verifies `_count` against the manifest, makes the index
 * read-only, and only then writes its release record. Nothing points at the index before that,
 * and the alias is never touched here, so an interrupted load changes nothing a reader sees
 * (the next load of the same id discards the leftover index).
 */
export async function loadRelease(repo: EngineRepository, data: DataDir, id: string, opts: LoadOptions = {}): Promise<LoadResult> {
  if (!RELEASE_ID.test(id) || !existsSync(data.releaseDb(id))) throw new EngineCommandError(`no kept release ${id} in ${data.root}`)
  const index = repo.names.release(id)
  const log = opts.log ?? (() => {})
  const { lap, timings } = stopwatch()

  const db = new Database(data.releaseDb(id), { readonly: true, fileMustExist: true })
  try {
    const meta = releaseMeta(db, id, index)
    const total = meta.manifest.counts.facts
    const putRecord = (r: ReleaseRecord) => repo.engine.request({ method: 'PUT', path: `/${repo.names.releases}/_doc/${id}`, querystring: { refresh: 'wait_for' }, body: r })

    const existing = await repo.record(id)
    if (existing?.format === FACTS_FORMAT && existing.facts === total && (await indexExists(repo, index)) && (await count(repo, index)) === total) {
      // The id covers every fact and the catalog, so the index stands; a rebuild of the same release
      // only differs in manifest metadata (createdAt), which the record then takes over.
      if (existing.manifest !== meta.manifestJson || existing.catalog !== meta.catalogJson) {
        await putRecord({ ...meta.record(), loadedAt: existing.loadedAt })
        log(`release ${id} is already loaded; its record now carries this build's manifest`)
      }
      return { id, index, facts: total, reused: true, retries: 0, timingsMs: {} }
    }

    await freshIndex(repo, id, index, Boolean(existing), log)
    lap('create')
    const { sent, retries } = await bulkLoad(repo, index, data.releaseDb(id), total, opts)
    lap('bulk')

    await repo.engine.request({ method: 'POST', path: `/${index}/_refresh`, timeoutMs: 300_000 })
    const indexed = await count(repo, index)
    if (indexed !== total || sent !== total)
      throw new EngineCommandError(`index ${index} holds ${indexed} documents, ${sent} rows were read, the manifest counts ${total}: not recorded`)
    lap('verify')

    if (opts.forceMerge ?? true) {
      await repo.engine.request({ method: 'POST', path: `/${index}/_forcemerge`, querystring: { max_num_segments: 1 }, timeoutMs: 600_000, maxRetries: 0 })
      lap('merge')
    }
    // Immutable from here on; replicas as the cluster allows (none on a single node).
    await repo.engine.request({
      method: 'PUT',
      path: `/${index}/_settings`,
      body: { index: { refresh_interval: null, 'translog.durability': 'request', auto_expand_replicas: '0-1', 'blocks.write': true } }
    })
    await putRecord(meta.record())
    lap('record')
    return { id, index, facts: total, reused: false, retries, timingsMs: timings }
  } finally {
    db.close()
  }
}

/** A release file's manifest and catalog as stored, and the record a load writes for it. */
function releaseMeta(db: Database.Database, id: string, index: string): { manifestJson: string; catalogJson: string; manifest: ReleaseManifest; record: () => ReleaseRecord } {
  const meta = db.prepare<[string], { value: string }>('SELECT value FROM meta WHERE key = ?')
  const manifestJson = meta.get('manifest')!.value
  const catalogJson = meta.get('catalog')!.value
  const manifest = JSON.parse(manifestJson) as ReleaseManifest
  const record = (): ReleaseRecord => ({
    id,
    index,
    format: FACTS_FORMAT,
    createdAt: manifest.createdAt,
    loadedAt: new Date().toISOString(),
    facts: manifest.counts.facts,
    complete: manifest.problems.length === 0,
    manifest: manifestJson,
    catalog: catalogJson
  })
  return { manifestJson, catalogJson, manifest, record }
}

/**
 * An empty index for the release, tuned for loading (no replicas, no refreshes): an earlier load's
 * record and index are discarded first. Never pulls the index out from under the alias: reloading
 * the promoted release would be an outage.
 */
async function freshIndex(repo: EngineRepository, id: string, index: string, recorded: boolean, log: (line: string) => void): Promise<void> {
  if ((await repo.aliasHolders()).includes(index))
    throw new EngineCommandError(`release ${id} is promoted but its index ${index} is incomplete or has older mappings; promote another release, retire this one, then load it again`)
  await ensureReleasesIndex(repo)
  if (recorded) await repo.engine.request({ method: 'DELETE', path: `/${repo.names.releases}/_doc/${id}`, querystring: { refresh: 'true' }, ignore: [404] })
  if (await indexExists(repo, index)) {
    log(recorded ? `reloading ${index}: it was loaded with other mappings or is incomplete` : `discarding the unfinished index ${index} of an earlier load`)
    await repo.engine.request({ method: 'DELETE', path: `/${index}` })
  }
  await repo.engine.request({
    method: 'PUT',
    path: `/${index}`,
    body: {
      ...factsIndex,
      settings: {
        ...factsIndex.settings,
        index: { ...factsIndex.settings.index, number_of_replicas: 0, refresh_interval: '-1', 'translog.durability': 'async' }
      }
    }
  })
}

/**
 * Streams the release's facts into the index in canonical order, a bulk request's worth at a time
 * (memory does not grow with the release), at most `concurrency` requests ahead of the engine.
 * Ords are per shard: a document's id is its position in that order. Returns the rows sent.
 */
async function bulkLoad(repo: EngineRepository, index: string, releaseDb: string, total: number, opts: LoadOptions): Promise<{ sent: number; retries: number }> {
  const bulkDocs = opts.bulkDocs ?? 2000
  const concurrency = opts.concurrency ?? 2
  const stats = { retries: 0 }
  const inFlight = new Set<Promise<void>>()
  let failure: unknown
  let sent = 0
  let done = 0
  const send = async (lines: string[]) => {
    const p = bulkChunk(repo, index, lines, stats).then(
      () => {
        done += lines.length / 2
        opts.onProgress?.(done, total)
      },
      (err: unknown) => void (failure ??= err)
    )
    const tracked = p.finally(() => inFlight.delete(tracked))
    inFlight.add(tracked)
    // Backpressure: read no further than `concurrency` requests ahead of the engine.
    while (inFlight.size >= concurrency) await Promise.race(inFlight)
  }
  let lines: string[] = []
  for (const r of readStoredFacts(releaseDb)) {
    lines.push(`{"index":{"_id":"${sent}"}}`, JSON.stringify(factDocument(r)))
    sent++
    if (lines.length === 2 * bulkDocs) {
      await send(lines)
      lines = []
      if (failure) break
    }
  }
  if (lines.length && !failure) await send(lines)
  await Promise.all(inFlight)
  if (failure) throw failure
  return { sent, retries: stats.retries }
}

/**
 * Points the alias at a loaded release with ONE `_aliases` call that removes it from every other
 * release index and adds it to this one: readers see the old release or the new, never neither.
 */
export async function promoteRelease(repo: EngineRepository, id: string, opts: { allowPartial?: boolean } = {}): Promise<{ previous: string | undefined }> {
  const record = RELEASE_ID.test(id) ? await repo.record(id) : undefined
  if (!record) throw new EngineCommandError(`release ${id} is not loaded into the engine (run: engine load ${id})`)
  if (!record.complete && !opts.allowPartial) throw new EngineCommandError(`release ${id} is partial (its sources had problems); not promoted (use --allow-partial to override)`)
  const indexed = await count(repo, record.index)
  if (indexed !== record.facts) throw new EngineCommandError(`index ${record.index} holds ${indexed} documents, its record says ${record.facts}: not promoted`)
  const previous = await repo.readPromoted()
  await repo.engine.request({
    method: 'POST',
    path: '/_aliases',
    body: {
      actions: [
        { remove: { index: repo.names.releasePattern, alias: repo.names.alias, must_exist: false } },
        { add: { index: record.index, alias: repo.names.alias } }
      ]
    }
  })
  return { previous }
}

/** Deletes a kept release (record first, then index); never the promoted one. */
export async function retireRelease(repo: EngineRepository, id: string): Promise<void> {
  if (!RELEASE_ID.test(id)) throw new EngineCommandError(`${id} is not a release id`)
  const index = repo.names.release(id)
  if ((await repo.aliasHolders()).includes(index)) throw new EngineCommandError(`release ${id} is promoted; promote another release before retiring it`)
  const hadRecord = (await repo.record(id)) !== undefined
  await repo.engine.request({ method: 'DELETE', path: `/${repo.names.releases}/_doc/${id}`, querystring: { refresh: 'true' }, ignore: [404] })
  const del = await repo.engine.request({ method: 'DELETE', path: `/${index}`, ignore: [404] })
  if (!hadRecord && del.status === 404) throw new EngineCommandError(`no release ${id} in the engine`)
}

export interface EngineReleaseInfo {
  id: string
  index: string
  promoted: boolean
  /** false: an index without a release record, left by an interrupted load. */
  loaded: boolean
  facts?: number
  documents?: number
  createdAt?: string
  loadedAt?: string
  complete?: boolean
}

export async function listReleases(repo: EngineRepository): Promise<EngineReleaseInfo[]> {
  const promoted = await repo.readPromoted()
  const indices = await repo.engine.request<Array<{ index: string; 'docs.count': string }>>({
    method: 'GET',
    path: `/_cat/indices/${repo.names.releasePattern}`,
    querystring: { format: 'json', h: 'index,docs.count' }
  })
  const out = new Map<string, EngineReleaseInfo>()
  for (const i of indices.body) {
    const id = repo.names.idOf(i.index)
    if (id) out.set(id, { id, index: i.index, promoted: id === promoted, loaded: false, documents: Number(i['docs.count']) })
  }
  for (const id of await repo.readKept()) {
    const r = await repo.record(id)
    if (!r) continue
    out.set(id, { ...out.get(id), id, index: r.index, promoted: id === promoted, loaded: true, facts: r.facts, createdAt: r.createdAt, loadedAt: r.loadedAt, complete: r.complete })
  }
  return [...out.values()].sort((a, b) => (a.id < b.id ? -1 : 1))
}
