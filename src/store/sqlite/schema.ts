import { deflateRawSync, inflateRawSync } from 'node:zlib'

/**
 * The release files' schema, shared by the indexer (writer) and the SQLite store (reader).
 *
 * A release is a directory: `release.sqlite` (the top file: meta rows, the shard list and the
 * ranges) and `shards/<sha256>.sqlite`, one file per parse unit holding that unit's facts. A
 * shard is written by the parse worker that parsed its unit and reused unchanged by every later
 * build whose unit is unchanged, so nothing in it depends on the rest of the corpus.
 *
 * In a shard, `ord` is the canonical order of its facts: the unit's targets by key, each target's
 * topics by name, each topic's facts in the adapter's (document) order. So the facts of one target
 * and topic are the contiguous ords `first..last` of their `fact_ranges` row: a page without a name
 * filter is a range of the facts table's rowid, and needs no index. Ords and `tt` are the shard's
 * own; the top file's `fact_ranges` says which shard holds a (target, topic) and under which tt.
 *
 * Bodies (each fact's public JSON, serialized once) are stored deflated, BODY_BLOCK_FACTS facts
 * of one range to a block: a body alone compresses about 2×, eight neighbours together about
 * 7× (they repeat keys, the source digest and path, locator prefixes), at the cost of inflating
 * eight bodies to read one.
 */
export const SCHEMA_VERSION = 5

/** One parse unit's facts. */
export const SHARD_SCHEMA = `
CREATE TABLE fact_ranges (tt INTEGER PRIMARY KEY, target TEXT NOT NULL, topic TEXT NOT NULL, first INTEGER NOT NULL, last INTEGER NOT NULL, scope TEXT NOT NULL);
CREATE TABLE facts (ord INTEGER PRIMARY KEY, tt INTEGER NOT NULL, name_key TEXT NOT NULL, package TEXT, revisions TEXT, tokens INTEGER NOT NULL);
CREATE TABLE fact_bodies (first INTEGER PRIMARY KEY, data BLOB NOT NULL);
CREATE TABLE fact_peripherals (peripheral TEXT NOT NULL, ord INTEGER NOT NULL, PRIMARY KEY (peripheral, ord)) WITHOUT ROWID;
CREATE VIRTUAL TABLE fact_terms USING fts5 (terms, content='', columnsize=0, detail=none, tokenize='unicode61');
`

/** Made after a shard's rows are in: one sorted build instead of an insert per row. */
export const SHARD_INDEXES = `CREATE INDEX facts_by_name ON facts (tt, name_key);`

/**
 * The top file: `shards` lists the release's shard files in unit order (`shard` is the position);
 * `fact_ranges` maps each (target, topic) to its shard and that shard's tt, ords and term scope.
 */
export const TOP_SCHEMA = `
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE shards (shard INTEGER PRIMARY KEY, sha256 TEXT NOT NULL, bytes INTEGER NOT NULL);
CREATE TABLE fact_ranges (target TEXT NOT NULL, topic TEXT NOT NULL, shard INTEGER NOT NULL, tt INTEGER NOT NULL, first INTEGER NOT NULL, last INTEGER NOT NULL, scope TEXT NOT NULL, PRIMARY KEY (target, topic)) WITHOUT ROWID;
`

/** The canonical order of (target, topic) ranges across a release: targets by key, then topics by name. */
export function byTargetThenTopic(a: { target: string; topic: string }, b: { target: string; topic: string }): number {
  if (a.target !== b.target) return a.target < b.target ? -1 : 1
  return a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : 0
}

/** A shard's file inside its release directory (and, by the same name, in the data dir's cache). */
export function shardFileName(sha256: string): string {
  return `shards/${sha256}.sqlite`
}

/** Facts per body block (the last block of a range may hold fewer). */
export const BODY_BLOCK_FACTS = 8

/**
 * The level bodies are deflated at: 1 costs a build about 4 % less CPU than 6 for blocks about 4 %
 * bigger (world corpus, docs/world.md). Part of the parse cache key, as it shapes a shard's bytes.
 */
export const BODY_DEFLATE_LEVEL = 1

/** Bodies are JSON text, which never holds a raw line break: one joins them. */
export function packBodies(bodies: readonly string[]): Buffer {
  return deflateRawSync(bodies.join('\n'), { level: BODY_DEFLATE_LEVEL })
}

export function unpackBodies(data: Uint8Array): string[] {
  return inflateRawSync(data).toString('utf8').split('\n')
}

/**
 * Every indexed term carries a fixed-width prefix naming its target (its ordinal among the
 * shard's targets by key) and topic (`t00012r` + `usart1`), so a prefix query for one term
 * touches only that target's entries instead of the whole shard's.
 */
export function scopedTermPrefix(targetOrdinal: number, topic: string): string {
  return `t${String(targetOrdinal).padStart(5, '0')}${topic.slice(0, 2)}`
}
