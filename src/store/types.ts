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

/** A row of a page before its body is read: where it is, its score, and its body's token count. */
export type FactRowHead = Omit<FactRow, 'body'>

/** A page chosen but not read yet: a caller whose token budget keeps fewer rows does not pay for the bodies it drops. */
export interface FactSelection {
  /** Every row of the page in answer order (score desc, ord asc), without bodies. */
  readonly rows: readonly FactRowHead[]
  /** The first `count` rows, in answer order, with their bodies: only those bodies are read. */
  read(count: number): Promise<FactRow[]>
}

/** One immutable release, opened for reading. */
export interface ReleaseStore {
  readonly manifest: ReleaseManifest
  readonly catalog: ReleaseCatalog
  /** The page's rows in answer order (score desc, ord asc), with their bodies. */
  queryFacts(q: FactQuery): Promise<FactRow[]>
  /** The same page, its bodies read only for the rows the caller then keeps. */
  selectFacts(q: FactQuery): Promise<FactSelection>
  close(): Promise<void>
}

/** A selection of rows whose bodies are at hand already (a store that reads them with the page). */
export function selectionOf(rows: FactRow[]): FactSelection {
  return { rows, read: async (count) => rows.slice(0, Math.max(0, count)) }
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
