import type { ReleaseCatalog } from '../../model/catalog.js'
import { RELEASE_ID } from '../layout.js'
import { selectionOf, type FactQuery, type FactRow, type FactSelection, type ReleaseManifest, type ReleaseRepository, type ReleaseStore } from '../types.js'
import { IndexNames } from './names.js'
import { factRows, factSearchBody, type SearchHit } from './query.js'
import { EngineError, openTransport, type EngineFlavor, type EngineTransport } from './transport.js'

/** The `<prefix>-releases` record of one loaded release. */
export interface ReleaseRecord {
  id: string
  index: string
  /** `_meta.format` of the facts mapping the index was created with. */
  format: string
  createdAt: string
  loadedAt: string
  facts: number
  complete: boolean
  manifest: string
  catalog: string
}

class EngineReleaseStore implements ReleaseStore {
  constructor(
    private readonly engine: EngineTransport,
    /** The concrete index, never the alias: a store keeps answering from its own release across a promotion. */
    readonly index: string,
    readonly manifest: ReleaseManifest,
    readonly catalog: ReleaseCatalog
  ) {}

  async queryFacts(q: FactQuery): Promise<FactRow[]> {
    const res = await this.engine.request<{ hits?: { hits?: SearchHit[] } }>({
      method: 'POST',
      path: `/${this.index}/_search`,
      // No filter_path: the engine's response filtering costs more than the few bytes it saves.
      body: factSearchBody(q)
    })
    return factRows(q, res.body.hits?.hits ?? [])
  }

  /** The hits carry their bodies already: reading fewer saves nothing here. */
  async selectFacts(q: FactQuery): Promise<FactSelection> {
    return selectionOf(await this.queryFacts(q))
  }

  async close(): Promise<void> {}
}

/** How long the promoted alias and the list of kept releases are trusted before re-reading. */
export const ENGINE_RECHECK_MS = 1000

/** A short-lived memo of one async read; concurrent callers share the read in flight. */
class Recheck<T> {
  private value: { v: Promise<T>; at: number } | undefined
  constructor(
    private readonly read: () => Promise<T>,
    private readonly ttlMs: number
  ) {}
  get(): Promise<T> {
    const now = performance.now()
    if (!this.value || now - this.value.at >= this.ttlMs) {
      const v = this.read()
      this.value = { v, at: now }
      // A failed read is not remembered (unless a newer read already replaced it).
      v.catch(() => this.value?.v === v && (this.value = undefined))
    }
    return this.value.v
  }
}

/**
 * Releases kept in Elasticsearch or OpenSearch. The promoted release is whichever index holds
 * the alias; like the SQLite repository, it is re-resolved at most once a second, so a
 * promotion is seen within a second without a restart.
 */
export class EngineRepository implements ReleaseRepository {
  readonly kind = 'search-engine' as const
  readonly names: IndexNames
  private readonly stores = new Map<string, Promise<ReleaseStore | undefined>>()
  private readonly promoted: Recheck<string | undefined>
  private readonly kept: Recheck<string[]>

  constructor(
    readonly engine: EngineTransport,
    prefix: string,
    opts: { recheckMs?: number } = {}
  ) {
    this.names = new IndexNames(prefix)
    const ttl = opts.recheckMs ?? ENGINE_RECHECK_MS
    this.promoted = new Recheck(() => this.readPromoted(), ttl)
    this.kept = new Recheck(() => this.readKept(), ttl)
  }

  static async connect(url: string, flavor: EngineFlavor, prefix: string): Promise<EngineRepository> {
    return new EngineRepository(await openTransport(url, flavor), prefix)
  }

  promotedId(): Promise<string | undefined> {
    return this.promoted.get()
  }

  list(): Promise<string[]> {
    return this.kept.get()
  }

  /** Uncached: the indices holding the alias right now. */
  async aliasHolders(): Promise<string[]> {
    const res = await this.engine.request<Record<string, unknown>>({ method: 'GET', path: `/_alias/${this.names.alias}`, ignore: [404] })
    return res.status === 404 ? [] : Object.keys(res.body).sort()
  }

  /** Uncached. The alias is only ever moved by one atomic `_aliases` call, so it names one index. */
  async readPromoted(): Promise<string | undefined> {
    const holders = await this.aliasHolders()
    if (holders.length > 1) throw new EngineError(500, 'alias_conflict', `alias ${this.names.alias} points at ${holders.length} indices: ${holders.join(', ')}`)
    return holders[0] === undefined ? undefined : this.names.idOf(holders[0])
  }

  /** Uncached: ids with a release record (only fully loaded, verified releases have one). */
  async readKept(): Promise<string[]> {
    const res = await this.engine.request<{ hits?: { hits?: Array<{ _id: string }> } }>({
      method: 'POST',
      path: `/${this.names.releases}/_search`,
      querystring: { filter_path: 'hits.hits._id' },
      body: { size: 10_000, _source: false, query: { match_all: {} }, track_total_hits: false },
      ignore: [404]
    })
    if (res.status === 404) return []
    return (res.body.hits?.hits ?? []).map((h) => h._id).filter((id) => RELEASE_ID.test(id)).sort()
  }

  /** Uncached: the release record, or undefined when the release is not (fully) loaded. */
  async record(id: string): Promise<ReleaseRecord | undefined> {
    const res = await this.engine.request<{ found?: boolean; _source?: ReleaseRecord }>({ method: 'GET', path: `/${this.names.releases}/_doc/${id}`, ignore: [404] })
    return res.status === 404 || !res.body.found ? undefined : res.body._source
  }

  async open(id: string): Promise<ReleaseStore | undefined> {
    if (!RELEASE_ID.test(id)) return undefined
    const cached = this.stores.get(id)
    // A retired release disappears from the kept list; within a second its open store goes too.
    if (cached && (await this.list()).includes(id)) return cached
    const p = this.record(id).then((r) => (r ? (new EngineReleaseStore(this.engine, r.index, JSON.parse(r.manifest), JSON.parse(r.catalog)) as ReleaseStore) : undefined))
    this.stores.set(id, p)
    p.then(
      (s) => s === undefined && this.stores.delete(id),
      () => this.stores.delete(id)
    )
    return p
  }

  /** Readiness: the cluster answers and is not red. */
  async health(): Promise<{ ok: boolean; detail?: string }> {
    const res = await this.engine.request<{ status?: string }>({ method: 'GET', path: '/_cluster/health', querystring: { timeout: '1s' }, timeoutMs: 2000, maxRetries: 0, ignore: [408] })
    const status = res.body.status ?? 'unknown'
    return { ok: status === 'green' || status === 'yellow', detail: `${this.engine.flavor} cluster ${status}` }
  }

  async close(): Promise<void> {
    this.stores.clear()
    await this.engine.close()
  }
}
