import { deflateRawSync, inflateRawSync } from 'node:zlib'

/**
 * The release file's schema, shared by the indexer (writer) and the SQLite store (reader).
 *
 * `ord` is the canonical order of facts: targets by key, each target's topics by name, each
 * topic's facts in the adapter's (document) order. So the facts of one target and topic are the
 * contiguous ords `first..last` of their `fact_ranges` row: a page without a name filter is a
 * range of the facts table's rowid, and needs no index.
 *
 * Bodies (each fact's public JSON, serialized once) are stored deflated, BODY_BLOCK_FACTS facts
 * of one range to a block: a body alone compresses about 2×, eight neighbours together about
 * 7× (they repeat keys, the source digest and path, locator prefixes), at the cost of inflating
 * eight bodies to read one.
 */
export const SCHEMA_VERSION = 4

/** The full-text index of search terms (rowid = ord); the indexer builds it apart, then copies its tables in. */
export const TERMS_TABLE = `CREATE VIRTUAL TABLE fact_terms USING fts5 (terms, content='', columnsize=0, detail=none, tokenize='unicode61');`

export const SCHEMA = `
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE fact_ranges (tt INTEGER PRIMARY KEY, target TEXT NOT NULL, topic TEXT NOT NULL, first INTEGER NOT NULL, last INTEGER NOT NULL, scope TEXT NOT NULL);
CREATE TABLE facts (ord INTEGER PRIMARY KEY, tt INTEGER NOT NULL, name_key TEXT NOT NULL, package TEXT, revisions TEXT, tokens INTEGER NOT NULL);
CREATE TABLE fact_bodies (first INTEGER PRIMARY KEY, data BLOB NOT NULL);
CREATE TABLE fact_peripherals (peripheral TEXT NOT NULL, ord INTEGER NOT NULL, PRIMARY KEY (peripheral, ord)) WITHOUT ROWID;
${TERMS_TABLE}
`

/** Made after the rows are in: one sorted build instead of an insert per row. */
export const SCHEMA_INDEXES = `CREATE INDEX facts_by_name ON facts (tt, name_key);`

/** Facts per body block (the last block of a range may hold fewer). */
export const BODY_BLOCK_FACTS = 8

/** Bodies are JSON text, which never holds a raw line break: one joins them. */
export function packBodies(bodies: readonly string[]): Buffer {
  return deflateRawSync(bodies.join('\n'), { level: 6 })
}

export function unpackBodies(data: Uint8Array): string[] {
  return inflateRawSync(data).toString('utf8').split('\n')
}

/**
 * Every indexed term carries a fixed-width prefix naming its target and topic (`t00012r` + `usart1`),
 * so a prefix query for one term touches only that target's entries instead of the whole corpus's.
 */
export function scopedTermPrefix(targetOrdinal: number, topic: string): string {
  return `t${String(targetOrdinal).padStart(5, '0')}${topic.slice(0, 2)}`
}
