/**
 * The release file's schema, shared by the indexer (writer) and the SQLite store (reader).
 * `ord` is the canonical order of facts; `body` is the fact's public JSON, serialized once.
 */
export const SCHEMA_VERSION = 3

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
-- Its entries end in the rowid (ord): a page with no name filter walks it in order and stops at the limit.
CREATE INDEX facts_by_target ON facts (target, topic);
CREATE TABLE fact_peripherals (peripheral TEXT NOT NULL, ord INTEGER NOT NULL, PRIMARY KEY (peripheral, ord)) WITHOUT ROWID;
CREATE VIRTUAL TABLE fact_terms USING fts5 (terms, content='', columnsize=0, detail=none, tokenize='unicode61');
`

/**
 * Every indexed term carries a fixed-width prefix naming its target and topic (`t00012r` + `usart1`),
 * so a prefix query for one term touches only that target's entries instead of the whole corpus's.
 */
export function scopedTermPrefix(targetOrdinal: number, topic: string): string {
  return `t${String(targetOrdinal).padStart(5, '0')}${topic.slice(0, 2)}`
}
