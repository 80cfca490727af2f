/**
 * The release file's schema, shared by the indexer (writer) and the SQLite store (reader).
 * `ord` is the canonical order of facts; `body` is the fact's public JSON, serialized once.
 */
export const SCHEMA_VERSION = 1

export const SCHEMA = `
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE facts (
  ord INTEGER PRIMARY KEY,
  id TEXT NOT NULL,
  target TEXT NOT NULL,
  topic TEXT NOT NULL,
  name_key TEXT NOT NULL,
  package TEXT,
  revisions TEXT,
  tokens INTEGER NOT NULL,
  body TEXT NOT NULL
);
CREATE INDEX facts_by_name ON facts (target, topic, name_key);
CREATE TABLE fact_peripherals (peripheral TEXT NOT NULL, ord INTEGER NOT NULL, PRIMARY KEY (peripheral, ord)) WITHOUT ROWID;
CREATE VIRTUAL TABLE fact_terms USING fts5 (scope, terms, content='', columnsize=0, detail=column, tokenize='unicode61');
`

/** The FTS scope token of a target/topic pair: one alphanumeric token, so MATCH can pin it. */
export function scopeToken(targetOrdinal: number, topic: string): string {
  return `s${targetOrdinal}${topic}`
}
