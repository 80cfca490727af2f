import type { ParseProblem, Topic } from '../model/fact.js'
import type { ReleaseCatalog } from '../model/catalog.js'
import type { SourceMeta } from '../model/source.js'

export interface SourceRecord extends SourceMeta {
  /** Content-addressed location inside the data dir, e.g. `archive/sha256/8e/8e05…`. */
  archivePath: string
}

export interface FileDigest {
  sha256: string
  bytes: number
}

/** Written beside every release; the source of `/v1/release`. Immutable once written. */
export interface ReleaseManifest {
  format: 'hwfacts-release/1'
  id: string
  createdAt: string
  indexerFormat: number
  tokenizer: string
  sources: SourceRecord[]
  counts: { facts: number; parts: number; partsByVendor?: Record<string, number>; targets: number; byTopic: Partial<Record<Topic, number>> }
  /** Sources that failed to parse. A release with problems is never promoted. */
  problems: ParseProblem[]
  /** Curated mappings this release's sources could not serve (e.g. an SVD absent from a subset inventory). */
  coverageNotes: string[]
  /**
   * The digest and size of `release.sqlite`: in manifest.json only (the copy of the manifest
   * inside the database cannot hold its own file's hash). `hwfacts verify` and the service check it.
   */
  database?: FileDigest
  /** The release's shard files (`shards/<sha256>.sqlite`) in unit order: in manifest.json only, checked alike. */
  shards?: FileDigest[]
}

export interface FactQuery {
  target: string
  topic: Topic
  /** Exact fact names (case-insensitive), ORed with `prefixes`. Both empty: no name filter. */
  names: string[]
  prefixes: string[]
  /** Upper-cased peripheral instance name. */
  peripheral?: string
  package?: string
  /** Canonical silicon revision code (`0x05`). */
  siliconRevision?: string
  /** Query terms: when present, only facts matching at least one are returned, best first. */
  terms: string[]
  /** Continue after this position of the (score desc, ord asc) order. */
  after?: { score: number; ord: number }
  limit: number
}

export interface FactRow {
  ord: number
  /** Number of query terms the fact matched; 0 without terms. */
  score: number
  /** Tokens of `body` (the release's tokenizer), counted at index time. */
  tokens: number
  /** The fact's public JSON, serialized once by the indexer, so responses are byte-stable. */
  body: string
}

/** One immutable release, opened for reading. */
export interface ReleaseStore {
  readonly manifest: ReleaseManifest
  readonly catalog: ReleaseCatalog
  /**
   * The page's rows in answer order (score desc, ord asc). With `take`, the store calls it once with
   * every row of the page before any body is read (their `body` is still empty) and returns only
   * the first `take(rows)` rows, with bodies: a caller whose token budget keeps fewer rows than the
   * limit does not pay for the bodies it drops.
   */
  queryFacts(q: FactQuery, take?: (rows: readonly FactRow[]) => number): Promise<FactRow[]>
  close(): Promise<void>
}

/** The kept releases and which one is promoted. */
export interface ReleaseRepository {
  readonly kind: 'sqlite' | 'search-engine'
  promotedId(): Promise<string | undefined>
  /** undefined when no such release is kept. */
  open(id: string): Promise<ReleaseStore | undefined>
  list(): Promise<string[]>
  close(): Promise<void>
}
