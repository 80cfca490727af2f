import Database from 'better-sqlite3'
import { createHash } from 'node:crypto'
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest'
import { writeShard } from '../../indexer/shard.js'
import type { Topic } from '../../src/model/fact.js'
import { StoreError } from '../../src/store/errors.js'
import { SCHEMA_VERSION, shardFileName, TOP_SCHEMA } from '../../src/store/sqlite/schema.js'
import { openSqliteRelease, readStoredFacts, releaseFileProblems, SqliteRepository } from '../../src/store/sqlite/store.js'
import type { FactQuery, FactRow, ReleaseStore } from '../../src/store/types.js'

/*
 * The SQLite store on a hand-made release (two shards written by the indexer's shard writer, a top
 * file and manifest written here), so a mutant's run takes well under a second. Every expected
 * answer is worked out from the facts below and the release format (src/store/sqlite/schema.ts:
 * a shard's ords are its facts in the order given, 1-based; a (target, topic) is a range of ords;
 * bodies are stored 8 to a block from each range's first ord; terms are matched as prefixes within
 * their target and topic) and the FactQuery contract (src/store/types.ts: names and prefixes
 * case-insensitive and ORed; packages compared as SQLite's NOCASE, ASCII letters only; the
 * silicon-revision rule of src/store/revisions.ts; with terms, most terms matched first, then ord).
 */

interface F {
  target: string
  topic: Topic
  name: string
  terms: string
  pkg?: string
  rev?: string
  periph?: string[]
}

// Unit 0: targets alpha and beta, each target's topics by name, as a shard holds them.
const UNIT0: F[] = [
  { target: 'alpha', topic: 'errata', name: 'ERR-1', terms: 'err 1 dma', rev: ' 0x01 ', pkg: 'QFN32' },
  { target: 'alpha', topic: 'errata', name: 'ERR-2', terms: 'err 2 dma', rev: ' !0x01 * ' },
  { target: 'alpha', topic: 'errata', name: 'ERR-3', terms: 'err 3 usb dma', pkg: 'LQFP48' },
  { target: 'alpha', topic: 'errata', name: 'ERR-4', terms: 'err 4 dma', rev: ' 0x010 ' },
  { target: 'alpha', topic: 'pins', name: 'PA0', terms: 'pa0 usart1 tx', pkg: 'LQFP48' },
  { target: 'alpha', topic: 'pins', name: 'PA1', terms: 'pa1 usart1 rx', pkg: 'QFN32' },
  { target: 'alpha', topic: 'pins', name: 'PA2', terms: 'pa2 spi1 sck' },
  { target: 'alpha', topic: 'pins', name: 'PB0', terms: 'pb0 usart1 ck', pkg: 'lqfp48' },
  { target: 'alpha', topic: 'pins', name: 'PB1', terms: 'pb1 usart1 cts', pkg: 'ÉQFN' },
  { target: 'alpha', topic: 'registers', name: 'UART.CTRL', terms: 'uart ctrl control', periph: ['UART'] },
  { target: 'alpha', topic: 'registers', name: 'UART.CTRL.EN', terms: 'uart ctrl en enable', periph: ['UART'] },
  { target: 'alpha', topic: 'registers', name: 'UART.DATA', terms: 'uart data', periph: ['UART', 'UART2'] },
  { target: 'alpha', topic: 'registers', name: 'UART.STAT', terms: 'uart stat status', periph: ['UART'] },
  { target: 'alpha', topic: 'registers', name: 'SPI.CR', terms: 'spi cr control', periph: ['SPI'] },
  { target: 'alpha', topic: 'registers', name: 'SPI.CR.EN', terms: 'spi cr en enable', periph: ['SPI'] },
  { target: 'alpha', topic: 'registers', name: 'SPI.DR', terms: 'spi dr data', periph: ['SPI'] },
  { target: 'alpha', topic: 'registers', name: 'TIMER.CNT', terms: 'timer cnt counter', periph: ['TIMER'] },
  { target: 'alpha', topic: 'registers', name: 'TIMER.CTRL', terms: 'timer ctrl control', periph: ['TIMER'] },
  { target: 'alpha', topic: 'registers', name: 'UARTX.MODE', terms: 'uartx mode', periph: ['UARTX'] },
  { target: 'beta', topic: 'registers', name: 'UART.CTRL', terms: 'uart ctrl control', periph: ['UART'] },
  { target: 'beta', topic: 'registers', name: 'UART.DATA', terms: 'uart data', periph: ['UART'] }
]
const UNIT1: F[] = [{ target: 'gamma', topic: 'registers', name: 'UART.CTRL', terms: 'uart ctrl gamma', periph: ['UART'] }]

const sha = (b: string | Buffer) => createHash('sha256').update(b).digest('hex')
const tokensOf = (unit: F[], f: F) => 100 * (unit === UNIT1 ? 2 : 1) + unit.indexOf(f) + 1
const bodyOf = (f: F) =>
  JSON.stringify({
    id: sha(`${f.target}/${f.topic}/${f.name}`).slice(0, 20),
    topic: f.topic,
    name: f.name,
    value: { words: f.terms },
    scope: { device: f.target, ...(f.pkg ? { package: f.pkg } : {}) },
    evidence: [{ sourceSha256: sha(f.target), sourcePath: `svd/${f.target}.svd`, locator: `line ${f.name.length}`, excerpt: f.name }]
  })

const ID = 'aaaaaaaaaaaaaaaa'
const ID2 = 'bbbbbbbbbbbbbbbb'
const MANIFEST = { format: 'hwfacts-release/1', createdAt: '2026-11-26T00:00:00.000Z', indexerFormat: 1, tokenizer: 't', sources: [], counts: { facts: 22, parts: 0, targets: 3, byTopic: {} }, problems: [], coverageNotes: [] }
const CATALOG = { entities: [{ name: 'ALPHA' }], targets: [] }
const dirs: string[] = []
const tmp = (prefix: string) => {
  const d = mkdtempSync(join(tmpdir(), prefix))
  dirs.push(d)
  return d
}
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

/** Writes release `id` into data dir `root`: shards by the indexer's writer, the top file and manifest.json here. */
function writeRelease(root: string, id: string, opts: { schema?: string | null; units?: F[][] } = {}): string {
  const rel = join(root, 'releases', id)
  mkdirSync(join(rel, 'shards'), { recursive: true })
  const shards = (opts.units ?? [UNIT0, UNIT1]).map((unit, u) =>
    writeShard(
      join(root, `tmp-${id}-${u}.sqlite`),
      unit.map((f) => ({ target: f.target, topic: f.topic, id: '', name: f.name, package: f.pkg ?? null, revisions: f.rev ?? null, tokens: tokensOf(unit, f), body: bodyOf(f), peripherals: f.periph ?? [], terms: f.terms })),
      (s) => join(rel, shardFileName(s))
    )
  )
  const top = join(rel, 'release.sqlite')
  const db = new Database(top)
  db.exec(TOP_SCHEMA)
  const manifest = { ...MANIFEST, id }
  shards.forEach((s, i) => {
    db.prepare('INSERT INTO shards (shard, sha256, bytes) VALUES (?, ?, ?)').run(i, s.sha256, s.bytes)
    for (const r of s.ranges) db.prepare('INSERT INTO fact_ranges VALUES (?, ?, ?, ?, ?, ?, ?)').run(r.target, r.topic, i, r.tt, r.first, r.last, r.scope)
  })
  if (opts.schema !== null) db.prepare('INSERT INTO meta VALUES (?, ?)').run('schema', opts.schema ?? String(SCHEMA_VERSION))
  db.prepare('INSERT INTO meta VALUES (?, ?)').run('manifest', JSON.stringify(manifest))
  db.prepare('INSERT INTO meta VALUES (?, ?)').run('catalog', JSON.stringify(CATALOG))
  db.close()
  const digest = (file: string) => ({ sha256: sha(readFileSync(file)), bytes: statSync(file).size })
  writeFileSync(join(rel, 'manifest.json'), JSON.stringify({ ...manifest, database: digest(top), shards: shards.map((s) => ({ sha256: s.sha256, bytes: s.bytes })) }))
  return rel
}

const q = (target: string, topic: Topic, more: Partial<FactQuery> = {}): FactQuery => ({ target, topic, names: [], prefixes: [], terms: [], limit: 50, ...more })
/** A row as `name/score/tokens`, the fact found by its ord in the unit (1-based), its body checked against the one written. */
function show(rows: FactRow[], unit = UNIT0): string[] {
  return rows.map((r) => {
    const f = unit[r.ord - 1]!
    expect(r.body).toBe(bodyOf(f))
    return `${f.name}/${r.score}/${r.tokens}`
  })
}
const tok = (name: string, target = 'alpha', unit = UNIT0) => tokensOf(unit, unit.find((f) => f.name === name && f.target === target)!)
/** Names and scores only. */
const ns = (rows: FactRow[], unit = UNIT0) => show(rows, unit).map((s) => s.split('/').slice(0, 2).join('/'))
const ordOf = (name: string, target = 'alpha') => UNIT0.findIndex((f) => f.name === name && f.target === target) + 1

let root: string
let rel: string
let store: ReleaseStore
/**
 * The release, written on first use inside a test rather than in a hook: a mutant that breaks the
 * writing (the schema, the body packing) must fail tests, and a failed hook fails none.
 */
function ready(): void {
  if (store) return
  root = tmp('hwfacts-store-edges-')
  rel = writeRelease(root, ID)
  writeFileSync(join(root, 'promoted'), ID + '\n')
  store = openSqliteRelease(join(rel, 'release.sqlite'))
}
afterAll(async () => {
  await store?.close()
})

describe('the top file', () => {
  it('gives the manifest and catalog its meta rows hold', () => {
    ready()
     expect(store.manifest).toEqual({ ...MANIFEST, id: ID })
    expect(store.catalog).toEqual(CATALOG)
  })
  it('refuses a top file of another schema, or none, naming both', () => {
    ready()
     const other = tmp('hwfacts-store-schema-')
    const r4 = writeRelease(other, ID, { schema: '4' })
    expect(() => openSqliteRelease(join(r4, 'release.sqlite'))).toThrow(`release file has schema 4; this service reads schema ${SCHEMA_VERSION}: rebuild the release`)
    const none = writeRelease(other, ID2, { schema: null })
    expect(() => openSqliteRelease(join(none, 'release.sqlite'))).toThrow(`release file has schema ?; this service reads schema ${SCHEMA_VERSION}: rebuild the release`)
  })
})

describe('pages without query terms (in ord order)', () => {
  it('walks a range from its first fact, up to the limit, after a position', async () => {
    ready()
     expect(ns(await store.queryFacts(q('alpha', 'registers', { limit: 3 })))).toEqual(['UART.CTRL/0', 'UART.CTRL.EN/0', 'UART.DATA/0'])
    expect(show(await store.queryFacts(q('alpha', 'registers', { limit: 3, after: { score: 0, ord: ordOf('UART.DATA') } })))).toEqual([
      `UART.STAT/0/${tok('UART.STAT')}`,
      `SPI.CR/0/${tok('SPI.CR')}`,
      `SPI.CR.EN/0/${tok('SPI.CR.EN')}`
    ])
    // The whole range, and nothing of the next target's (beta's registers follow in the shard).
    expect(ns(await store.queryFacts(q('alpha', 'registers', { after: { score: 0, ord: ordOf('TIMER.CTRL') } })))).toEqual(['UARTX.MODE/0'])
    expect(ns(await store.queryFacts(q('beta', 'registers')))).toEqual(['UART.CTRL/0', 'UART.DATA/0'])
    expect(await store.queryFacts(q('alpha', 'registers', { limit: 0 }))).toEqual([])
    expect(await store.queryFacts(q('alpha', 'registers', { names: ['UART.CTRL'], limit: 0 }))).toEqual([])
  })

  it('answers nothing for a target or topic the release has no facts of', async () => {
    ready()
     expect(await store.queryFacts(q('alpha', 'memory'))).toEqual([])
    expect(await store.queryFacts(q('delta', 'registers'))).toEqual([])
    expect((await store.selectFacts(q('delta', 'registers'))).rows).toEqual([])
  })

  it('reads the second shard for its targets', async () => {
    ready()
     expect(show(await store.queryFacts(q('gamma', 'registers')), UNIT1)).toEqual([`UART.CTRL/0/${tok('UART.CTRL', 'gamma', UNIT1)}`])
  })

  it('names (any case) and prefixes, ORed, each fact once, after a position', async () => {
    ready()
     expect(ns(await store.queryFacts(q('alpha', 'registers', { names: ['uart.data', 'UART.CTRL', 'NO_SUCH'] })))).toEqual(['UART.CTRL/0', 'UART.DATA/0'])
    expect(ns(await store.queryFacts(q('alpha', 'registers', { names: ['uart.data', 'UART.CTRL'], after: { score: 0, ord: ordOf('UART.CTRL') } })))).toEqual(['UART.DATA/0'])
    expect(ns(await store.queryFacts(q('alpha', 'registers', { prefixes: ['SPI.'] })))).toEqual(['SPI.CR/0', 'SPI.CR.EN/0', 'SPI.DR/0'])
    // `uart.` is not a prefix of `uartx.mode`; beta's UART registers are another range.
    expect(ns(await store.queryFacts(q('alpha', 'registers', { prefixes: ['Uart.'] })))).toEqual(['UART.CTRL/0', 'UART.CTRL.EN/0', 'UART.DATA/0', 'UART.STAT/0'])
    expect(ns(await store.queryFacts(q('alpha', 'registers', { names: ['TIMER.CNT', 'SPI.CR'], prefixes: ['spi.c'] })))).toEqual(['SPI.CR/0', 'SPI.CR.EN/0', 'TIMER.CNT/0'])
    expect(ns(await store.queryFacts(q('alpha', 'registers', { names: ['TIMER.CNT'], prefixes: ['spi.c'], limit: 2 })))).toEqual(['SPI.CR/0', 'SPI.CR.EN/0'])
    expect(ns(await store.queryFacts(q('alpha', 'registers', { names: ['uart.ctrl'], prefixes: ['zz'] })))).toEqual(['UART.CTRL/0'])
  })

  it('a peripheral within the range, alone or with names, after a position', async () => {
    ready()
     expect(ns(await store.queryFacts(q('alpha', 'registers', { peripheral: 'UART' })))).toEqual(['UART.CTRL/0', 'UART.CTRL.EN/0', 'UART.DATA/0', 'UART.STAT/0'])
    expect(ns(await store.queryFacts(q('alpha', 'registers', { peripheral: 'UART', limit: 2 })))).toEqual(['UART.CTRL/0', 'UART.CTRL.EN/0'])
    expect(ns(await store.queryFacts(q('alpha', 'registers', { peripheral: 'UART', after: { score: 0, ord: ordOf('UART.CTRL.EN') } })))).toEqual(['UART.DATA/0', 'UART.STAT/0'])
    expect(ns(await store.queryFacts(q('alpha', 'registers', { peripheral: 'UART2' })))).toEqual(['UART.DATA/0'])
    expect(ns(await store.queryFacts(q('beta', 'registers', { peripheral: 'UART' })))).toEqual(['UART.CTRL/0', 'UART.DATA/0'])
    expect(ns(await store.queryFacts(q('alpha', 'registers', { peripheral: 'UART', names: ['SPI.CR', 'UART.STAT'] })))).toEqual(['UART.STAT/0'])
    expect(ns(await store.queryFacts(q('alpha', 'registers', { peripheral: 'UART', names: ['SPI.CR', 'UART.DATA', 'UART.STAT'], limit: 1 })))).toEqual(['UART.DATA/0'])
    expect(await store.queryFacts(q('alpha', 'registers', { peripheral: 'NOPE' }))).toEqual([])
  })

  it('packages compare ASCII letters without case, other letters exactly', async () => {
    ready()
     expect(ns(await store.queryFacts(q('alpha', 'pins', { package: 'lqfp48' })))).toEqual(['PA0/0', 'PB0/0'])
    expect(ns(await store.queryFacts(q('alpha', 'pins', { package: 'Lqfp48', limit: 1 })))).toEqual(['PA0/0'])
    expect(ns(await store.queryFacts(q('alpha', 'pins', { package: 'LQFP48', after: { score: 0, ord: ordOf('PA0') } })))).toEqual(['PB0/0'])
    expect(ns(await store.queryFacts(q('alpha', 'pins', { package: 'Éqfn' })))).toEqual(['PB1/0'])
    expect(await store.queryFacts(q('alpha', 'pins', { package: 'éqfn' }))).toEqual([])
    expect(ns(await store.queryFacts(q('alpha', 'pins', { package: 'qfn32', names: ['PA0', 'pa1', 'PA2'] })))).toEqual(['PA1/0'])
    expect(ns(await store.queryFacts(q('alpha', 'pins', { package: 'LQFP48', prefixes: ['p'], limit: 1 })))).toEqual(['PA0/0'])
  })

  it('a silicon revision: no column, listed as applying, or unlisted ones apply and it is not listed as not', async () => {
    ready()
     const rev = async (code: string, more: Partial<FactQuery> = {}) => ns(await store.queryFacts(q('alpha', 'errata', { siliconRevision: code, ...more })))
    expect(await rev('0x01')).toEqual(['ERR-1/0', 'ERR-3/0'])
    expect(await rev('0x02')).toEqual(['ERR-2/0', 'ERR-3/0'])
    expect(await rev('0x010')).toEqual(['ERR-2/0', 'ERR-3/0', 'ERR-4/0'])
    expect(await rev('0x02', { limit: 1 })).toEqual(['ERR-2/0'])
    expect(await rev('0x01', { names: ['ERR-1', 'ERR-2'] })).toEqual(['ERR-1/0'])
    // Both filters hold: ERR-3 (no revisions, package LQFP48); ERR-1 applies to 0x01 but has no package.
    expect(await rev('0x01', { package: 'lqfp48' })).toEqual(['ERR-3/0'])
    expect(await rev('0x02', { package: 'qfn32' })).toEqual([])
    // A package alone hides no errata fact by its revisions.
    expect(ns(await store.queryFacts(q('alpha', 'errata', { package: 'qfn32' })))).toEqual(['ERR-1/0'])
  })
})

describe('pages with query terms (most terms matched first, then ord)', () => {
  const terms = async (t: string[], more: Partial<FactQuery> = {}, target = 'alpha', topic: Topic = 'registers') => ns(await store.queryFacts(q(target, topic, { terms: t, ...more })))

  it('counts the terms each fact matches as prefixes, within its own target and topic', async () => {
    ready()
     expect(await terms(['uart', 'ctrl'])).toEqual(['UART.CTRL/2', 'UART.CTRL.EN/2', 'UART.DATA/1', 'UART.STAT/1', 'TIMER.CTRL/1', 'UARTX.MODE/1'])
    expect(await terms(['uart', 'ctrl'], { limit: 3 })).toEqual(['UART.CTRL/2', 'UART.CTRL.EN/2', 'UART.DATA/1'])
    expect(await terms(['uart', 'ctrl'], { limit: 1 })).toEqual(['UART.CTRL/2'])
    expect(await terms(['uart', 'ctrl'], { after: { score: 2, ord: ordOf('UART.CTRL') } })).toEqual(['UART.CTRL.EN/2', 'UART.DATA/1', 'UART.STAT/1', 'TIMER.CTRL/1', 'UARTX.MODE/1'])
    expect(await terms(['uart', 'ctrl'], { after: { score: 1, ord: ordOf('UART.STAT') } })).toEqual(['TIMER.CTRL/1', 'UARTX.MODE/1'])
    expect(await terms(['uart', 'ctrl'], { after: { score: 2, ord: ordOf('UART.CTRL.EN') }, limit: 1 })).toEqual(['UART.DATA/1'])
    expect(await terms(['en', 'control', 'cr'])).toEqual(['SPI.CR/2', 'SPI.CR.EN/2', 'UART.CTRL/1', 'UART.CTRL.EN/1', 'TIMER.CTRL/1'])
    expect(await terms(['spi', 'cr', 'en'])).toEqual(['SPI.CR.EN/3', 'SPI.CR/2', 'UART.CTRL.EN/1', 'SPI.DR/1'])
    // After a position of a higher score: every row of a lower score follows, whatever its ord.
    expect(await terms(['timer', 'ctrl'], { after: { score: 2, ord: ordOf('TIMER.CTRL') } })).toEqual(['UART.CTRL/1', 'UART.CTRL.EN/1', 'TIMER.CNT/1'])
    expect(await terms(['zzz'])).toEqual([])
    expect(await terms(['uart'], {}, 'beta')).toEqual(['UART.CTRL/1', 'UART.DATA/1'])
    expect(await terms(['usart1'], {}, 'alpha', 'pins')).toEqual(['PA0/1', 'PA1/1', 'PB0/1', 'PB1/1'])
    expect(ns(await store.queryFacts(q('gamma', 'registers', { terms: ['gamma'] })), UNIT1)).toEqual(['UART.CTRL/1'])
  })

  it('with other filters, chosen in SQL: names, prefixes, peripheral, package, revision, after a position', async () => {
    ready()
     expect(await terms(['uart'], { names: ['UART.DATA', 'uart.stat', 'SPI.DR'] })).toEqual(['UART.DATA/1', 'UART.STAT/1'])
    expect(await terms(['uart', 'ctrl'], { prefixes: ['uart.ctrl'] })).toEqual(['UART.CTRL/2', 'UART.CTRL.EN/2'])
    expect(await terms(['data', 'uart'], { names: ['SPI.DR'], prefixes: ['UART.'] })).toEqual(['UART.DATA/2', 'UART.CTRL/1', 'UART.CTRL.EN/1', 'UART.STAT/1', 'SPI.DR/1'])
    expect(await terms(['data', 'uart'], { names: ['SPI.DR'], prefixes: ['UART.'], after: { score: 1, ord: ordOf('UART.CTRL') }, limit: 2 })).toEqual(['UART.CTRL.EN/1', 'UART.STAT/1'])
    expect(await terms(['ctrl'], { peripheral: 'UART' })).toEqual(['UART.CTRL/1', 'UART.CTRL.EN/1'])
    expect(await terms(['uart', 'ctrl'], { peripheral: 'UART', after: { score: 2, ord: ordOf('UART.CTRL') } })).toEqual(['UART.CTRL.EN/2', 'UART.DATA/1', 'UART.STAT/1'])
    expect(await terms(['uart'], { peripheral: 'UART' }, 'beta')).toEqual(['UART.CTRL/1', 'UART.DATA/1'])
    expect(await terms(['usart1', 'tx'], { package: 'lqfp48' }, 'alpha', 'pins')).toEqual(['PA0/2', 'PB0/1'])
    expect(await terms(['usart1'], { package: 'éqfn' }, 'alpha', 'pins')).toEqual([])
    expect(await terms(['usart1'], { package: 'Éqfn' }, 'alpha', 'pins')).toEqual(['PB1/1'])
    expect(await terms(['dma'], { siliconRevision: '0x01' }, 'alpha', 'errata')).toEqual(['ERR-1/1', 'ERR-3/1'])
    expect(await terms(['dma', 'usb'], { siliconRevision: '0x010' }, 'alpha', 'errata')).toEqual(['ERR-3/2', 'ERR-2/1', 'ERR-4/1'])
    expect(await terms(['dma'], { siliconRevision: '0x02', package: 'LQFP48' }, 'alpha', 'errata')).toEqual(['ERR-3/1'])
    // Other filters without a revision hide no errata fact by its revisions.
    expect(await terms(['dma'], { names: ['ERR-1', 'ERR-2'] }, 'alpha', 'errata')).toEqual(['ERR-1/1', 'ERR-2/1'])
    expect(await terms(['dma'], { package: 'qfn32' }, 'alpha', 'errata')).toEqual(['ERR-1/1'])
    expect(await terms(['timer', 'ctrl'], { prefixes: ['TIMER.', 'uart.'], after: { score: 2, ord: ordOf('TIMER.CTRL') } })).toEqual(['UART.CTRL/1', 'UART.CTRL.EN/1', 'TIMER.CNT/1'])
  })

  it('keeps one prepared statement per shard: the same query shape on another shard reads that shard', async () => {
    ready()
     const shape = { terms: ['uart'], names: ['UART.CTRL'] }
    expect(await terms(shape.terms, { names: shape.names })).toEqual(['UART.CTRL/1'])
    expect(ns(await store.queryFacts(q('gamma', 'registers', shape)), UNIT1)).toEqual(['UART.CTRL/1'])
    expect(await terms(shape.terms, { names: shape.names })).toEqual(['UART.CTRL/1'])
  })

  it('lets go of every shard on close: a later query opens the files again', async () => {
    ready()
     const other = tmp('hwfacts-store-close-')
    const r = writeRelease(other, ID)
    const s = openSqliteRelease(join(r, 'release.sqlite'))
    expect(ns(await s.queryFacts(q('beta', 'registers')))).toEqual(['UART.CTRL/0', 'UART.DATA/0'])
    await s.close()
    rmSync(join(r, 'shards'), { recursive: true })
    await expect(s.queryFacts(q('beta', 'registers'))).rejects.toThrow(/^Corpus release aaaaaaaaaaaaaaaa is not served: shards\/[0-9a-f]{64}\.sqlite cannot be opened/)
  })

  it('reopens its shards and statements after close', async () => {
    ready()
     const s = openSqliteRelease(join(rel, 'release.sqlite'))
    const shape = q('alpha', 'registers', { terms: ['ctrl'], peripheral: 'TIMER' })
    expect(ns(await s.queryFacts(shape))).toEqual(['TIMER.CTRL/1'])
    await s.close()
    expect(ns(await s.queryFacts(shape))).toEqual(['TIMER.CTRL/1'])
    await s.close()
  })
})

describe('selectFacts: every row of the page, bodies read for the rows kept', () => {
  it('reads bodies across blocks, in answer order, for the first rows asked', async () => {
    ready()
     // alpha's registers are ords 10..19: blocks of 8 from 10 (10..17) and 18..19; terms order them otherwise.
    const sel = await store.selectFacts(q('alpha', 'registers', { terms: ['mode', 'timer', 'uart'] }))
    const want = ['UARTX.MODE/2', 'UART.CTRL/1', 'UART.CTRL.EN/1', 'UART.DATA/1', 'UART.STAT/1', 'TIMER.CNT/1', 'TIMER.CTRL/1']
    expect(sel.rows.map((r) => `${UNIT0[r.ord - 1]!.name}/${r.score}/${r.tokens}`)).toEqual(want.map((w) => `${w}/${tok(w.split('/')[0]!)}`))
    expect(ns(await sel.read(3))).toEqual(want.slice(0, 3))
    // Read after other queries of the same shard: its connection is still the one the page was chosen on.
    expect(ns(await store.queryFacts(q('beta', 'registers', { terms: ['data'] })))).toEqual(['UART.DATA/1'])
    expect(ns(await sel.read(100))).toEqual(want)
    expect(await sel.read(0)).toEqual([])
    expect(await sel.read(-2)).toEqual([])
    const plain = await store.selectFacts(q('alpha', 'registers', { after: { score: 0, ord: ordOf('SPI.DR') } }))
    expect(plain.rows.map((r) => UNIT0[r.ord - 1]!.name)).toEqual(['TIMER.CNT', 'TIMER.CTRL', 'UARTX.MODE'])
    expect(ns(await plain.read(2))).toEqual(['TIMER.CNT/0', 'TIMER.CTRL/0'])
    expect(ns(await store.queryFacts(q('alpha', 'registers')))).toEqual(UNIT0.filter((f) => f.target === 'alpha' && f.topic === 'registers').map((f) => `${f.name}/0`))
  })
})

describe('a shard that cannot be opened', () => {
  it('fails the queries it holds with release-unavailable, naming it; the others are answered', async () => {
    ready()
     const other = tmp('hwfacts-store-gone-')
    const r = writeRelease(other, ID)
    const s = openSqliteRelease(join(r, 'release.sqlite'))
    const top = new Database(join(r, 'release.sqlite'), { readonly: true })
    const gammaShard = (top.prepare("SELECT s.sha256 AS sha256 FROM shards s JOIN fact_ranges r ON r.shard = s.shard WHERE r.target = 'gamma'").get() as { sha256: string }).sha256
    top.close()
    rmSync(join(r, shardFileName(gammaShard)))
    const err = await s.queryFacts(q('gamma', 'registers')).then(
      () => undefined,
      (e: unknown) => e
    )
    expect(err).toBeInstanceOf(StoreError)
    expect((err as StoreError).failure).toBe('release-unavailable')
    expect((err as StoreError).message).toMatch(new RegExp(`^Corpus release ${ID} is not served: shards/${gammaShard}\\.sqlite cannot be opened \\(.+\\)\\.$`))
    expect(ns(await s.queryFacts(q('beta', 'registers')))).toEqual(['UART.CTRL/0', 'UART.DATA/0'])
    await s.close()
  })
})

describe('reading never creates a file', () => {
  it('a missing top file or shard fails, and is not created', () => {
    ready()
    const d = tmp('hwfacts-store-missing-')
    expect(() => openSqliteRelease(join(d, 'release.sqlite'))).toThrow()
    expect(() => [...readStoredFacts(join(d, 'release.sqlite'))]).toThrow()
    const r = writeRelease(d, ID)
    const m = JSON.parse(readFileSync(join(r, 'manifest.json'), 'utf8')) as { shards: Array<{ sha256: string }> }
    const shard = join(r, shardFileName(m.shards[0]!.sha256))
    rmSync(shard)
    expect(() => [...readStoredFacts(join(r, 'release.sqlite'))]).toThrow()
    expect(readdirSync(d)).not.toContain('release.sqlite')
    expect(existsSync(shard)).toBe(false)
  })
})

describe('readStoredFacts', () => {
  it('gives nothing for a release without facts', () => {
    ready()
    const r = writeRelease(tmp('hwfacts-store-empty-'), ID, { units: [] })
    expect([...readStoredFacts(join(r, 'release.sqlite'))]).toEqual([])
  })

  it('gives every fact of the release in canonical order, with its row, peripherals and body', () => {
    ready()
     const got = [...readStoredFacts(join(rel, 'release.sqlite'))]
    const want = [...UNIT0.map((f, i) => ({ f, ord: i + 1, unit: UNIT0 })), ...UNIT1.map((f, i) => ({ f, ord: i + 1, unit: UNIT1 }))].map(({ f, ord, unit }) => ({
      ord,
      target: f.target,
      topic: f.topic,
      name_key: f.name.toLowerCase(),
      package: f.pkg ?? null,
      revisions: f.rev ?? null,
      tokens: tokensOf(unit, f),
      peripherals: [...(f.periph ?? [])].sort(),
      body: bodyOf(f)
    }))
    expect(got).toEqual(want)
  })

  it('fails naming the fact a body block is missing for', () => {
    ready()
     const other = tmp('hwfacts-store-noblock-')
    const r = writeRelease(other, ID)
    const top = new Database(join(r, 'release.sqlite'), { readonly: true })
    const sha0 = (top.prepare('SELECT sha256 FROM shards WHERE shard = 0').get() as { sha256: string }).sha256
    top.close()
    const file = join(r, shardFileName(sha0))
    chmodSync(file, 0o644)
    const db = new Database(file)
    // The second block of alpha's registers (ords 18, 19).
    expect(db.prepare('DELETE FROM fact_bodies WHERE first = 18').run().changes).toBe(1)
    db.close()
    const it = readStoredFacts(join(r, 'release.sqlite'))
    const seen: string[] = []
    expect(() => {
      for (const f of it) seen.push(f.name_key)
    }).toThrow(`${join(r, 'release.sqlite')}: no body block of shard 0 holds fact 18`)
    expect(seen).toHaveLength(17)
  })
})

describe('releaseFileProblems', () => {
  const copy = () => {
    const d = join(tmp('hwfacts-store-files-'), 'r')
    cpSync(rel, d, { recursive: true })
    for (const n of readdirSync(join(d, 'shards'))) chmodSync(join(d, 'shards', n), 0o644)
    return d
  }
  const manifestOf = (d: string) => JSON.parse(readFileSync(join(d, 'manifest.json'), 'utf8')) as { database?: { sha256: string; bytes: number }; shards?: Array<{ sha256: string; bytes: number }> }

  it('is empty for a sound release', async () => {
    ready()
     expect(await releaseFileProblems(rel)).toEqual([])
  })

  it('says when manifest.json is unreadable or records no database digest', async () => {
    ready()
     const d = copy()
    rmSync(join(d, 'manifest.json'))
    expect(await releaseFileProblems(d)).toEqual([expect.stringMatching(/^manifest\.json is unreadable \(ENOENT.*\)$/)])
    writeFileSync(join(d, 'manifest.json'), JSON.stringify({ id: ID }))
    expect(await releaseFileProblems(d)).toEqual(['manifest.json records no database digest (a release of an older indexer: rebuild it)'])
  })

  it('names each file missing, of another size, or of another digest, and only then the shard list', async () => {
    ready()
     const d = copy()
    const m = manifestOf(d)
    const [s0, s1] = m.shards!
    rmSync(join(d, shardFileName(s0!.sha256)))
    writeFileSync(join(d, shardFileName(s1!.sha256)), 'x')
    const top = readFileSync(join(d, 'release.sqlite'))
    top.writeUInt8(top.readUInt8(top.length - 1) ^ 0xff, top.length - 1)
    writeFileSync(join(d, 'release.sqlite'), top)
    expect(await releaseFileProblems(d)).toEqual([
      `${shardFileName(s0!.sha256)} cannot be read (ENOENT)`,
      `${shardFileName(s1!.sha256)} has 1 bytes; its manifest records ${s1!.bytes}`,
      `release.sqlite has sha256 ${sha(top)}; its manifest records ${m.database!.sha256}`
    ])
  })

  it('a manifest without shards checks the top file alone, and its shard list against none', async () => {
    ready()
     const d = copy()
    const m = manifestOf(d)
    delete m.shards
    writeFileSync(join(d, 'manifest.json'), JSON.stringify(m))
    expect(await releaseFileProblems(d)).toEqual(['release.sqlite refers to other shards than manifest.json lists'])
  })

  it('with a file problem, names only the files (the shard list is compared once they are sound)', async () => {
    ready()
    const d = copy()
    const m = manifestOf(d)
    const gone = shardFileName(m.shards![1]!.sha256)
    m.shards = [m.shards![1]!, m.shards![0]!]
    writeFileSync(join(d, 'manifest.json'), JSON.stringify(m))
    rmSync(join(d, gone))
    expect(await releaseFileProblems(d)).toEqual([`${gone} cannot be read (ENOENT)`])
  })

  it('refuses a top file listing other shards (or the same in another order) than manifest.json', async () => {
    ready()
     const d = copy()
    const m = manifestOf(d)
    m.shards = [m.shards![1]!, m.shards![0]!]
    writeFileSync(join(d, 'manifest.json'), JSON.stringify(m))
    expect(await releaseFileProblems(d)).toEqual(['release.sqlite refers to other shards than manifest.json lists'])
    m.shards = [m.shards[1]!, { ...m.shards[0]!, bytes: m.shards[0]!.bytes }]
    writeFileSync(join(d, 'manifest.json'), JSON.stringify(m))
    expect(await releaseFileProblems(d)).toEqual([])
  })

  it('names a file that has its recorded size but cannot be hashed', async () => {
    ready()
     const d = copy()
    const m = manifestOf(d)
    const name = shardFileName(m.shards![0]!.sha256)
    rmSync(join(d, name))
    mkdirSync(join(d, name))
    m.shards![0]!.bytes = statSync(join(d, name)).size
    writeFileSync(join(d, 'manifest.json'), JSON.stringify(m))
    expect(await releaseFileProblems(d)).toEqual([expect.stringMatching(new RegExp(`^${name.replace('.', '\\.')} cannot be read \\(.*EISDIR.*\\)$`))])
  })

  it('a top file that is no database has no shard list to compare (opening it says what is wrong)', async () => {
    ready()
     const d = copy()
    const m = manifestOf(d)
    writeFileSync(join(d, 'release.sqlite'), 'not a database at all')
    m.database = { sha256: sha('not a database at all'), bytes: 21 }
    writeFileSync(join(d, 'manifest.json'), JSON.stringify(m))
    expect(await releaseFileProblems(d)).toEqual([])
  })
})

describe('SqliteRepository', () => {
  afterEach(() => {
    vi.restoreAllMocks()
  })

  it('opens kept releases once, refuses ids that are not release ids or not kept', async () => {
    ready()
     const repo = new SqliteRepository(root)
    expect(repo.kind).toBe('sqlite')
    expect(await repo.list()).toEqual([ID])
    expect(await repo.promotedId()).toBe(ID)
    expect(repo.pointerStatus()).toEqual({ ok: true })
    expect(await repo.open('AAAAAAAAAAAAAAAA')).toBeUndefined()
    // A path to a kept release is no release id.
    expect(await repo.open(`../releases/${ID}`)).toBeUndefined()
    expect(await repo.open(`${ID}/`)).toBeUndefined()
    expect(await repo.open(ID2)).toBeUndefined()
    const [a, b] = await Promise.all([repo.open(ID), repo.open(ID)])
    expect(a).toBe(b)
    expect(await repo.open(ID)).toBe(a)
    expect(a!.manifest.id).toBe(ID)
    expect(ns(await a!.queryFacts(q('beta', 'registers')))).toEqual(['UART.CTRL/0', 'UART.DATA/0'])
    await repo.close()
    // Closed: opened again on the next request.
    const c = await repo.open(ID)
    expect(c).not.toBe(a)
    expect(ns(await c!.queryFacts(q('beta', 'registers')))).toEqual(['UART.CTRL/0', 'UART.DATA/0'])
    await repo.close()
  })

  it('refuses a release whose files fail their check, and keeps refusing it for a while', async () => {
    ready()
     const d = tmp('hwfacts-store-refused-')
    const r = writeRelease(d, ID)
    const m = JSON.parse(readFileSync(join(r, 'manifest.json'), 'utf8')) as { shards: Array<{ sha256: string }> }
    const file = join(r, shardFileName(m.shards[1]!.sha256))
    const good = readFileSync(file)
    chmodSync(file, 0o644)
    writeFileSync(file, 'x')
    const repo = new SqliteRepository(d)
    const refusal = `Corpus release ${ID} is not served: ${shardFileName(m.shards[1]!.sha256)} has 1 bytes; its manifest records ${good.length}.`
    await expect(repo.open(ID)).rejects.toThrow(refusal)
    await expect(repo.open(ID)).rejects.toMatchObject({ failure: 'release-unavailable' })
    // Restored: still refused until the refusal expires (30 s), with the same reason.
    writeFileSync(file, good)
    await expect(repo.open(ID)).rejects.toThrow(refusal)
    expect(await new SqliteRepository(d).open(ID)).toBeDefined()
    await repo.close()
  })

  it('refuses a release whose top file is not its own (nor a database), naming the digest check', async () => {
    ready()
    const d = tmp('hwfacts-store-garbage-')
    const r = writeRelease(d, ID)
    const m = JSON.parse(readFileSync(join(r, 'manifest.json'), 'utf8')) as { database: { sha256: string; bytes: number } }
    const garbage = 'x'.repeat(m.database.bytes)
    writeFileSync(join(r, 'release.sqlite'), garbage)
    await expect(new SqliteRepository(d).open(ID)).rejects.toThrow(`Corpus release ${ID} is not served: release.sqlite has sha256 ${sha(garbage)}; its manifest records ${m.database.sha256}.`)
  })

  it('refuses a release whose top file cannot be opened, with the reason opening it gave', async () => {
    ready()
     const d = tmp('hwfacts-store-schema4-')
    writeRelease(d, ID, { schema: '4' })
    const repo = new SqliteRepository(d)
    await expect(repo.open(ID)).rejects.toThrow(`Corpus release ${ID} is not served: release file has schema 4; this service reads schema ${SCHEMA_VERSION}: rebuild the release.`)
  })

  it('re-reads the promoted pointer at most once a second, and only when the file changed', async () => {
    ready()
     const d = tmp('hwfacts-store-promoted-')
    writeRelease(d, ID)
    writeRelease(d, ID2)
    const pointer = join(d, 'promoted')
    writeFileSync(pointer, ID)
    let now = 1_000_000
    vi.spyOn(performance, 'now').mockImplementation(() => now)
    const repo = new SqliteRepository(d)
    expect(await repo.promotedId()).toBe(ID)
    writeFileSync(pointer, ID2)
    utimesSync(pointer, new Date(5_000_000), new Date(5_000_000))
    now += 999
    expect(await repo.promotedId()).toBe(ID)
    now += 1
    expect(await repo.promotedId()).toBe(ID2)
    // The same modification time: not read again.
    writeFileSync(pointer, ID)
    utimesSync(pointer, new Date(5_000_000), new Date(5_000_000))
    now += 5000
    expect(await repo.promotedId()).toBe(ID2)
    rmSync(pointer)
    now += 5000
    expect(await repo.promotedId()).toBe(ID2)
    expect(repo.pointerStatus()).toEqual({ ok: false, detail: `the promoted pointer is missing: still serving the last good release ${ID2}` })
    expect(existsSync(pointer)).toBe(false)
  })

  it('says a pointer missing from the start is missing, for readiness, and serves it once it appears', async () => {
    const d = tmp('hwfacts-store-nopointer-')
    writeRelease(d, ID)
    let now = 1_000_000
    vi.spyOn(performance, 'now').mockImplementation(() => now)
    const repo = new SqliteRepository(d)
    expect(repo.pointerStatus()).toEqual({ ok: false, detail: 'the promoted pointer is missing' })
    expect(await repo.promotedId()).toBeUndefined()
    writeFileSync(join(d, 'promoted'), ID)
    now += 1000
    expect(await repo.promotedId()).toBe(ID)
    expect(repo.pointerStatus()).toEqual({ ok: true })
  })
})
