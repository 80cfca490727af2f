import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { deflateRawSync } from 'node:zlib'
import Database from 'better-sqlite3'
import { countTokens as reference } from 'gpt-tokenizer/encoding/cl100k_base'
import { describe, expect, it } from 'vitest'
import { encodeFact, encodeInOrder, ENCODER, type EncodedFact } from '../../indexer/encode.js'
import type { ArtifactRef } from '../../indexer/inventory.js'
import { cachedShard, pruneCache, readEntry, shardTmpPath, unitKey, writeEntry, type UnitSummary } from '../../indexer/parse-cache.js'
import { writeShard } from '../../indexer/shard.js'
import { factTerms, valueTerms } from '../../src/model/fact-terms.js'
import type { FactDraft } from '../../src/model/fact.js'
import { erratumColumn } from '../../src/store/revisions.js'
import { BODY_BLOCK_FACTS, packBodies, scopedTermPrefix, unpackBodies } from '../../src/store/sqlite/schema.js'
import { scratchDirs } from '../helpers/scratch.js'

/**
 * Fact encoding (indexer/encode.ts), shard writing (indexer/shard.ts) and the parse cache
 * (indexer/parse-cache.ts) on a few facts written here, no corpus. Expected values from the
 * definitions: a fact's body is JSON.stringify of its public members in their documented order,
 * its tokens are the reference cl100k_base count of that body, its id is stable for the same
 * target/topic/name/package (and disagreeing source); a shard holds the facts in canonical order
 * with their ranges, bodies and scoped terms, and the same facts give the same bytes; the cache's
 * layout, misses and pruning as parse-cache.ts documents them.
 */

const tmp = scratchDirs()
const ev = [{ sourceSha256: 'a'.repeat(64), sourcePath: 'svd/x.svd', locator: 'line 3: /device', excerpt: '<register name="CR">' }]

function draft(target: string, topic: FactDraft['topic'], name: string, over: Partial<FactDraft> = {}): FactDraft {
  return { target, topic, name, value: { offset: 4, description: `${name} control "register"` }, scope: { device: target.split(':')[1]! }, evidence: ev, ...over }
}

describe('encodeFact', () => {
  it('the body is the public fact as JSON.stringify writes it, tokens its reference count', () => {
    const f = draft('svd:STM32F407', 'registers', 'RCC.CR', { scope: { device: 'STM32F407', package: 'LQFP100' }, peripherals: ['rcc', 'Gpioa'], agreement: 'agree' })
    const e = encodeFact(f)
    expect(e.body).toBe(JSON.stringify({ id: e.id, topic: f.topic, name: f.name, value: f.value, scope: f.scope, evidence: f.evidence, agreement: 'agree' }))
    expect(e.tokens).toBe(reference(e.body))
    expect(e).toMatchObject({ target: 'svd:STM32F407', topic: 'registers', name: 'RCC.CR', package: 'LQFP100', revisions: null, peripherals: ['RCC', 'GPIOA'] })
    expect(e.terms).toBe(factTerms(f.name, f.value, valueTerms(f.value)).join(' '))
    const plain = encodeFact(draft('svd:X', 'registers', 'A\u00e9"\\'))
    expect(plain.body).toBe(JSON.stringify({ id: plain.id, topic: 'registers', name: 'A\u00e9"\\', value: plain && draft('svd:X', 'registers', 'A\u00e9"\\').value, scope: { device: 'X' }, evidence: ev }))
    expect([plain.package, plain.peripherals]).toEqual([null, []])
  })

  it('an errata fact carries the revisions column the store filters on; others none', () => {
    const value = { revisions: [{ code: 'A', applies: true }, { code: 'B', applies: false }], appliesToUnlistedRevisions: false }
    expect(encodeFact(draft('nordic-errata:N', 'errata', 'errata.1', { value })).revisions).toBe(erratumColumn(value))
    expect(encodeFact(draft('nordic-errata:N', 'errata', 'errata.2', { value: {} })).revisions).toBe(erratumColumn({}))
    expect(encodeFact(draft('svd:N', 'registers', 'R', { value })).revisions).toBeNull()
  })

  it('the id: 20 hex digits, the same for the same target, topic, name, package and source whatever the value; another for any of them', () => {
    const base = draft('svd:A', 'registers', 'R')
    const id = encodeFact(base).id
    expect(id).toMatch(/^[0-9a-f]{20}$/)
    // Stable across releases: the sha256 of target, topic, name and package (empty when none), NUL-separated.
    expect(id).toBe(createHash('sha256').update('svd:A\0registers\0R\0').digest('hex').slice(0, 20))
    expect(encodeFact({ ...base, scope: { device: 'A', source: 'svd/y.svd' } }).id).toBe(createHash('sha256').update('svd:A\0registers\0R\0\0svd/y.svd').digest('hex').slice(0, 20))
    expect(encodeFact({ ...base, value: { other: 1 }, evidence: [], agreement: 'agree' }).id).toBe(id)
    const others = [
      { ...base, target: 'svd:B' },
      { ...base, topic: 'pins' as const },
      { ...base, name: 'S' },
      { ...base, scope: { device: 'A', package: 'P' } },
      { ...base, scope: { device: 'A', source: 'svd/y.svd' } },
      { ...base, scope: { device: 'A', package: 'P', source: 'svd/y.svd' } },
      // The separators keep fields apart: moving text from one to the next is another fact.
      { ...base, target: 'svd:A\u0000registers', topic: '' as never },
      { ...base, name: 'R', scope: { device: 'A', package: '' } }
    ]
    const ids = others.map((f) => encodeFact(f).id)
    expect(ids.slice(0, 7).every((x) => x !== id)).toBe(true)
    expect(new Set(ids.slice(0, 7)).size).toBe(7)
    // An empty package is no package.
    expect(ids[7]).toBe(id)
  })

  it('terms of a value seen before are the same (memo), also past the memo size', () => {
    const shared = { description: 'baud rate generator', offset: 12 }
    const a = encodeFact(draft('svd:A', 'registers', 'USART1.BRR', { value: shared }))
    for (let i = 0; i < (1 << 14) + 5; i++) encodeFact(draft('svd:A', 'registers', `R${i}`, { value: { description: `v${i}` } }))
    const b = encodeFact(draft('svd:B', 'registers', 'USART2.BRR', { value: { ...shared } }))
    expect(a.terms).toBe(factTerms('USART1.BRR', shared, valueTerms(shared)).join(' '))
    expect(b.terms).toBe(factTerms('USART2.BRR', shared, valueTerms(shared)).join(' '))
  })

  it('ENCODER names the indexer format, the schema, the tokenizer and the deflate level the bodies are packed at', () => {
    const m = /^indexer \d+\nschema \d+\ntokenizer \S+\ndeflate (\d)$/.exec(ENCODER)
    expect(m).not.toBeNull()
    // Bodies whose deflated bytes differ between levels 1, 6 and 9 (318, 308 and 281 bytes).
    const bodies = Array.from({ length: 40 }, (_, i) => `{"name":"GPIO${i % 7}.MODER${i}","value":{"offset":"0x${(i * 4).toString(16)}"}}`)
    const at = (level: number) => deflateRawSync(bodies.join('\n'), { level })
    expect(new Set([1, 6, 9].map((l) => at(l).toString('hex'))).size).toBe(3)
    expect(packBodies(bodies)).toEqual(at(Number(m![1])))
  })
})

describe('encodeInOrder', () => {
  it('targets by key, topics by name, facts in document order; the first of a duplicate wins; each draft released once encoded', () => {
    const facts: Array<FactDraft | undefined> = [
      draft('svd:B', 'registers', 'b1'),
      draft('stm32:A', 'pins', 'PA1'),
      draft('svd:B', 'errata', 'e1'),
      draft('stm32:A', 'electrical', 'vdd'),
      draft('svd:B', 'registers', 'b0'),
      draft('stm32:A', 'pins', 'PA0'),
      draft('svd:B', 'registers', 'b1', { value: { second: true } })
    ]
    const it = encodeInOrder(facts)
    const first = it.next().value as EncodedFact
    expect([first.target, first.topic, first.name]).toEqual(['stm32:A', 'electrical', 'vdd'])
    expect(facts.map((f) => f === undefined)).toEqual([false, false, false, true, false, false, false])
    const rest = [...it]
    expect([first, ...rest].map((e) => `${e.target} ${e.topic} ${e.name}`)).toEqual([
      'stm32:A electrical vdd',
      'stm32:A pins PA1',
      'stm32:A pins PA0',
      'svd:B errata e1',
      'svd:B registers b1',
      'svd:B registers b0'
    ])
    expect(JSON.parse(rest[3]!.body).value).toEqual(draft('svd:B', 'registers', 'b1').value)
    expect(facts.every((f) => f === undefined)).toBe(true)
  })
})

describe('writeShard', () => {
  function facts(): EncodedFact[] {
    const drafts: FactDraft[] = []
    for (let i = 0; i < BODY_BLOCK_FACTS + 3; i++) drafts.push(draft('svd:A', 'registers', `GPIOA.R${i}`, { peripherals: i % 2 ? ['GPIOA', 'gpioa'] : ['GPIOA'] }))
    drafts.push(draft('svd:A', 'errata', 'errata.1', { value: { revisions: [{ code: 'A', applies: true }] } }))
    drafts.push(draft('svd:B', 'pins', 'PA9', { scope: { device: 'B', package: 'LQFP48' }, value: {} }))
    return [...encodeInOrder(drafts)]
  }

  it('a read-only SQLite file at its content address: ranges, rows, bodies, peripherals and scoped terms', () => {
    const dir = tmp()
    const es = facts()
    const places: string[] = []
    const info = writeShard(join(dir, 'work', 'x.tmp'), es, (sha) => {
      places.push(sha)
      return join(dir, 'shards', sha.slice(0, 2), `${sha}.sqlite`)
    })
    const file = join(dir, 'shards', info.sha256.slice(0, 2), `${info.sha256}.sqlite`)
    expect(places).toEqual([info.sha256])
    expect(createHash('sha256').update(readFileSync(file)).digest('hex')).toBe(info.sha256)
    expect(statSync(file).size).toBe(info.bytes)
    expect(statSync(file).mode & 0o777).toBe(0o444)
    expect(existsSync(join(dir, 'work', 'x.tmp'))).toBe(false)
    const n = BODY_BLOCK_FACTS + 3
    // Targets by key (svd:A, svd:B), topics by name (errata before registers).
    expect(info.ranges).toEqual([
      { target: 'svd:A', topic: 'errata', tt: 1, first: 1, last: 1, scope: scopedTermPrefix(0, 'errata') },
      { target: 'svd:A', topic: 'registers', tt: 2, first: 2, last: n + 1, scope: scopedTermPrefix(0, 'registers') },
      { target: 'svd:B', topic: 'pins', tt: 3, first: n + 2, last: n + 2, scope: scopedTermPrefix(1, 'pins') }
    ])
    const db = new Database(file, { readonly: true })
    try {
      expect(db.prepare('SELECT tt, target, topic, first, last, scope FROM fact_ranges ORDER BY tt').all()).toEqual(info.ranges.map(({ tt, target, topic, first, last, scope }) => ({ tt, target, topic, first, last, scope })))
      const rows = db.prepare('SELECT ord, tt, name_key, package, revisions, tokens FROM facts ORDER BY ord').all() as Array<Record<string, unknown>>
      expect(rows.map((r) => r.ord)).toEqual(es.map((_, i) => i + 1))
      expect(rows).toEqual(es.map((e, i) => ({ ord: i + 1, tt: i === 0 ? 1 : i <= n ? 2 : 3, name_key: e.name.toLowerCase(), package: e.package, revisions: e.revisions, tokens: e.tokens })))
      // Bodies in blocks of BODY_BLOCK_FACTS within a range, keyed by the first ord of the block.
      const blocks = db.prepare('SELECT first, data FROM fact_bodies ORDER BY first').all() as Array<{ first: number; data: Buffer }>
      expect(blocks.map((b) => b.first)).toEqual([1, 2, 2 + BODY_BLOCK_FACTS, n + 2])
      expect(blocks.flatMap((b) => unpackBodies(b.data))).toEqual(es.map((e) => e.body))
      const periph = db.prepare('SELECT peripheral, ord FROM fact_peripherals ORDER BY ord, peripheral').all()
      expect(periph).toEqual(es.flatMap((e, i) => [...new Set(e.peripherals)].map((p) => ({ peripheral: p, ord: i + 1 }))))
      // Each term under its target's and topic's prefix: a prefix query finds only that range's facts.
      const match = (q: string) => (db.prepare('SELECT rowid FROM fact_terms WHERE fact_terms MATCH ? ORDER BY rowid').all(q) as Array<{ rowid: number }>).map((r) => r.rowid)
      const term = es[1]!.terms.split(' ')[0]!
      expect(match(`"${scopedTermPrefix(0, 'registers')}${term}"`)).toContain(2)
      expect(match(`"${scopedTermPrefix(1, 'registers')}${term}"`)).toEqual([])
      for (const [i, e] of es.entries()) if (e.terms) for (const t of e.terms.split(' ')) expect(match(`"${info.ranges.find((r) => r.first <= i + 1 && i + 1 <= r.last)!.scope}${t}"`), t).toContain(i + 1)
      expect(db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'facts_by_name'").get()).toEqual({ n: 1 })
      expect((db.prepare("SELECT count(*) AS n FROM sqlite_stat1 WHERE tbl = 'facts'").get() as { n: number }).n).toBeGreaterThan(0)
    } finally {
      db.close()
    }
  })

  it('a fact without terms has no terms row', () => {
    const dir = tmp()
    const e = { ...encodeFact(draft('svd:A', 'registers', 'R')), terms: '' }
    const info = writeShard(join(dir, 'x.tmp'), [e], (sha) => join(dir, `${sha}.sqlite`))
    const db = new Database(join(dir, `${info.sha256}.sqlite`), { readonly: true })
    try {
      expect(db.prepare('SELECT count(*) AS n FROM fact_terms WHERE fact_terms MATCH ?').get(`${scopedTermPrefix(0, 'registers')}*`)).toEqual({ n: 0 })
      expect(db.prepare('SELECT count(*) AS n FROM facts').get()).toEqual({ n: 1 })
    } finally {
      db.close()
    }
  })

  it('a range of exactly one body block has that one block', () => {
    const dir = tmp()
    const es = [...encodeInOrder(Array.from({ length: BODY_BLOCK_FACTS }, (_, i) => draft('svd:A', 'registers', `R${i}`)).concat([draft('svd:B', 'registers', 'S')]))]
    const info = writeShard(join(dir, 'x.tmp'), es, (sha) => join(dir, `${sha}.sqlite`))
    const db = new Database(join(dir, `${info.sha256}.sqlite`), { readonly: true })
    try {
      const blocks = db.prepare('SELECT first, data FROM fact_bodies ORDER BY first').all() as Array<{ first: number; data: Buffer }>
      expect(blocks.map((b) => [b.first, unpackBodies(b.data).length])).toEqual([
        [1, BODY_BLOCK_FACTS],
        [BODY_BLOCK_FACTS + 1, 1]
      ])
    } finally {
      db.close()
    }
  })

  it('terms over the default 1 MiB of pending terms stay one write: no pages freed by merges left in the file', () => {
    const dir = tmp()
    const es: EncodedFact[] = []
    for (let i = 0; i < 12_000; i++) {
      const terms = Array.from({ length: 12 }, (_, j) => `w${i}x${j}abcdefgh`).join(' ')
      es.push({ target: 'svd:A', topic: 'registers', id: String(i), name: `R${i}`, package: null, revisions: null, tokens: 1, body: '{}', peripherals: [], terms })
    }
    const info = writeShard(join(dir, 'x.tmp'), es, (sha) => join(dir, `${sha}.sqlite`))
    const db = new Database(join(dir, `${info.sha256}.sqlite`), { readonly: true })
    try {
      expect(db.pragma('freelist_count', { simple: true })).toBe(0)
    } finally {
      db.close()
    }
  })

  it('a failure while writing closes the file it opened', () => {
    if (!existsSync('/proc/self/fd')) return
    const dir = tmp()
    const open = readdirSync('/proc/self/fd').length
    function* failing(): Generator<EncodedFact> {
      yield encodeFact(draft('svd:A', 'registers', 'R'))
      throw new Error('adapter bug')
    }
    expect(() => writeShard(join(dir, 'x.tmp'), failing(), (sha) => join(dir, sha))).toThrow('adapter bug')
    expect(readdirSync('/proc/self/fd').length).toBe(open)
  })

  it('the same facts give the same bytes, whatever a failed earlier build left in the temporary file', () => {
    const dir = tmp()
    const a = writeShard(join(dir, 'a.tmp'), facts(), (sha) => join(dir, 'a', `${sha}.sqlite`))
    writeFileSync(join(dir, 'b.tmp'), 'not a database, left by a build that died')
    const b = writeShard(join(dir, 'b.tmp'), facts(), (sha) => join(dir, 'b', `${sha}.sqlite`))
    expect(b).toEqual(a)
    expect(readFileSync(join(dir, 'b', `${b.sha256}.sqlite`))).toEqual(readFileSync(join(dir, 'a', `${a.sha256}.sqlite`)))
  })

  it('a temporary file it cannot make is a WriteError naming it', () => {
    const dir = tmp()
    writeFileSync(join(dir, 'blocked'), '')
    expect(() => writeShard(join(dir, 'blocked', 'x.tmp'), facts(), (sha) => join(dir, sha))).toThrow(new RegExp(`^cannot write ${join(dir, 'blocked', 'x.tmp')}: E`))
  })
})

describe('the parse cache', () => {
  const artifact = (over: Partial<ArtifactRef> = {}): ArtifactRef => ({ path: 'svd/a.svd', sha256: 'b'.repeat(64), bytes: 10, kind: 'svd', publisher: 'P', license: 'MIT', mediaType: 'text/xml', ...over })
  const summary = (shard?: UnitSummary['shard']): UnitSummary => ({
    targets: [{ key: 'svd:A', topics: ['registers'], device: 'A', sourceSha256: 'b'.repeat(64), sourcePath: 'svd/a.svd' }],
    parts: [],
    problems: [{ file: 'svd/a.svd', line: 3, reason: 'odd' }] as UnitSummary['problems'],
    ...(shard ? { shard } : {})
  })

  it('a unit key changes with the encoder, the adapter, its version and every member and order of the artifacts', () => {
    const k = unitKey(ENCODER, { name: 'svd', version: '2' }, [artifact()])
    expect(k).toMatch(/^[0-9a-f]{64}$/)
    expect(unitKey(ENCODER, { name: 'svd', version: '2' }, [artifact()])).toBe(k)
    const others = [
      unitKey(`${ENCODER}x`, { name: 'svd', version: '2' }, [artifact()]),
      unitKey(ENCODER, { name: 'stm32', version: '2' }, [artifact()]),
      unitKey(ENCODER, { name: 'svd', version: '3' }, [artifact()]),
      unitKey(ENCODER, { name: 'svd' }, [artifact()]),
      unitKey(ENCODER, { name: 'svd', version: '2' }, [artifact({ sha256: 'c'.repeat(64) })]),
      unitKey(ENCODER, { name: 'svd', version: '2' }, [artifact({ license: 'BSD-3-Clause' })]),
      unitKey(ENCODER, { name: 'svd', version: '2' }, [artifact(), artifact({ path: 'svd/b.svd' })]),
      unitKey(ENCODER, { name: 'svd', version: '2' }, [artifact({ path: 'svd/b.svd' }), artifact()]),
      unitKey(ENCODER, { name: 'svd', version: '2' }, [])
    ]
    expect(new Set([k, ...others]).size).toBe(others.length + 1)
    // An adapter without a version is its first.
    expect(unitKey(ENCODER, { name: 'svd' }, [artifact()])).toBe(unitKey(ENCODER, { name: 'svd', version: '1' }, [artifact()]))
  })

  it('paths: entries under cache/parse/<2>/, shards under cache/shards/<2>/ by sha256, temporary shards beside them per process', () => {
    expect(cachedShard('/d', 'ab'.repeat(32))).toBe(join('/d', 'cache', 'shards', 'ab', `${'ab'.repeat(32)}.sqlite`))
    expect(shardTmpPath('/d', 'k'.repeat(64))).toBe(join('/d', 'cache', 'shards', `${'k'.repeat(64)}.${process.pid}.tmp`))
  })

  it('an entry written is read back and touched; a missing, garbled, other-format or shard-less one is a miss', () => {
    const root = tmp()
    const key = 'c7'.repeat(32)
    const shardBytes = Buffer.from('shard bytes')
    const sha = createHash('sha256').update(shardBytes).digest('hex')
    const s = summary({ sha256: sha, bytes: shardBytes.length, ranges: [] })
    expect(readEntry(root, key)).toBeUndefined()
    writeEntry(root, key, s)
    const file = join(root, 'cache', 'parse', 'c7', `${key}.json`)
    expect(readdirSync(dirname(file))).toEqual([`${key}.json`])
    // Without its shard: a miss.
    expect(readEntry(root, key)).toBeUndefined()
    const shard = cachedShard(root, sha)
    mkdirSync(dirname(shard), { recursive: true })
    writeFileSync(shard, 'short')
    expect(readEntry(root, key)).toBeUndefined()
    writeFileSync(shard, shardBytes)
    const old = new Date('2020-01-01T00:00:00Z')
    utimesSync(file, old, old)
    utimesSync(shard, old, old)
    expect(readEntry(root, key)).toEqual(s)
    expect(statSync(file).mtimeMs).toBeGreaterThan(Date.now() - 60_000)
    expect(statSync(shard).mtimeMs).toBeGreaterThan(Date.now() - 60_000)
    // A unit without facts has no shard.
    const bare = 'd8'.repeat(32)
    writeEntry(root, bare, summary())
    expect(readEntry(root, bare)).toEqual(summary())
    // Another format, garbled text: misses.
    const entry = JSON.parse(readFileSync(file, 'utf8'))
    expect(entry.format).toMatch(/^hwfacts-parse-cache\/\d+$/)
    writeFileSync(file, JSON.stringify({ ...entry, format: 'hwfacts-parse-cache/0' }))
    expect(readEntry(root, key)).toBeUndefined()
    writeFileSync(file, '{"format":')
    expect(readEntry(root, key)).toBeUndefined()
  })

  it('a failed entry write names the entry and leaves no temporary file', () => {
    const root = tmp()
    const key = 'e9'.repeat(32)
    const file = join(root, 'cache', 'parse', 'e9', `${key}.json`)
    mkdirSync(dirname(file), { recursive: true })
    symlinkSync('/dev/full', `${file}.${process.pid}.tmp`)
    expect(() => writeEntry(root, key, summary())).toThrow(new RegExp(`^cannot write ${file}: ENOSPC: `))
    expect(readdirSync(dirname(file))).toEqual([])
  })

  it('pruneCache removes entries and shards unused for over 14 days and temporary files over a day old', () => {
    const root = tmp()
    const now = Date.parse('2026-06-01T00:00:00Z')
    const DAY = 24 * 3600 * 1000
    const files: Record<string, number> = {
      'parse/aa/old.json': now - 14 * DAY - 1000,
      'parse/aa/kept.json': now - 14 * DAY + 1000,
      'parse/aa/edge.json': now - 14 * DAY,
      'shards/bb/old.sqlite': now - 15 * DAY,
      'shards/bb/kept.sqlite': now - 2 * DAY,
      'shards/k.123.tmp': now - DAY - 1000,
      'shards/young.123.tmp': now - DAY + 1000,
      'parse/aa/x.json.9.tmp': now - 2 * DAY,
      'parse/stray.json': now - 20 * DAY
    }
    for (const [p, t] of Object.entries(files)) {
      const f = join(root, 'cache', p)
      mkdirSync(dirname(f), { recursive: true })
      writeFileSync(f, 'x')
      utimesSync(f, new Date(t), new Date(t))
    }
    pruneCache(root, now)
    const left = Object.keys(files).filter((p) => existsSync(join(root, 'cache', p)))
    expect(left.sort()).toEqual(['parse/aa/edge.json', 'parse/aa/kept.json', 'shards/bb/kept.sqlite', 'shards/young.123.tmp'])
    // No cache at all: nothing to do.
    expect(() => pruneCache(tmp(), now)).not.toThrow()
  })
})
