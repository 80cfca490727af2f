import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { deflateRawSync, inflateRawSync } from 'node:zlib'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { decodeFact, LazyFact } from '../../src/store/fact-body.js'
import { DataDir, RELEASE_ID } from '../../src/store/layout.js'
import { BODY_BLOCK_FACTS, byTargetThenTopic, packBodies, scopedTermPrefix, shardFileName, unpackBodies } from '../../src/store/sqlite/schema.js'

/*
 * The release format's helpers (src/store/sqlite/schema.ts), a stored body read lazily (src/store/fact-body.ts) and the data directory's layout and promoted
 * pointer (src/store/layout.ts). Bodies are written here as the indexer lays them out
 * (`{"id","topic","name","value","scope","evidence"[,"agreement"]}`) or otherwise; every expected
 * member is the one put in. Paths and pointer states from layout.ts's own description.
 */

const SHA_A = 'a'.repeat(64)
const SHA_B = '0123456789abcdef'.repeat(4)
const fact = {
  id: '0123456789abcdef0123',
  topic: 'registers',
  name: 'UART "main" \\ CTRL',
  value: { offset: 4, note: 'a ,"scope": inside a string', list: [1, 2] },
  scope: { device: 'QZ7101', package: 'QFN8', parts: ['QZ7101A'] },
  evidence: [
    { sourceSha256: SHA_A, sourcePath: 'svd/Quazar/QZ "7101".svd', locator: 'line 3: /device', excerpt: '<name>' },
    { sourceSha256: SHA_B, sourcePath: 'pins/b.xml', locator: 'line 9', excerpt: 'x' }
  ],
  agreement: 'agree'
}
const laidOut = JSON.stringify(fact)

describe('LazyFact', () => {
  it('reads a body laid out by the indexer member by member, unescaping its name', () => {
    const f = new LazyFact(laidOut)
    expect(f.name).toBe('UART "main" \\ CTRL')
    expect(f.scope).toEqual(fact.scope)
    expect(f.value).toEqual(fact.value)
    expect(f.evidence).toEqual(fact.evidence)
    // Asked again: the same objects.
    expect(f.value).toBe(f.value)
    expect(f.scope).toBe(f.scope)
    expect(f.evidence).toBe(f.evidence)
  })

  it('each member may be asked first', () => {
    expect(new LazyFact(laidOut).evidence).toEqual(fact.evidence)
    expect(new LazyFact(laidOut).scope).toEqual(fact.scope)
    expect(new LazyFact(laidOut).value).toEqual(fact.value)
    const plain = JSON.stringify({ ...fact, name: 'PA9', agreement: undefined })
    const p = new LazyFact(plain)
    expect(p.name).toBe('PA9')
    expect(p.evidence).toEqual(fact.evidence)
    expect(p.value).toEqual(fact.value)
  })

  it('parses only what is asked: the name at once, each member when first asked for', () => {
    // A body cut inside its evidence (as no stored body is): what comes before it reads, the evidence does not.
    const cut = laidOut.slice(0, laidOut.indexOf('"locator"'))
    const f = new LazyFact(cut)
    expect(f.name).toBe(fact.name)
    expect(f.value).toEqual(fact.value)
    expect(f.scope).toEqual(fact.scope)
    expect(() => f.evidence).toThrow()
    expect(new LazyFact(cut).scope).toEqual(fact.scope)
  })

  it('finds the artifacts of the evidence without parsing the evidence or what follows it', () => {
    const broken = laidOut.replace('"agreement":"agree"', '"agreement":agree')
    expect(() => JSON.parse(broken)).toThrow()
    const m = new Map<string, string>()
    new LazyFact(broken).sources(m)
    expect(Object.fromEntries(m)).toEqual({ 'svd/Quazar/QZ "7101".svd': SHA_A, 'pins/b.xml': SHA_B })
  })

  it('decodes a body laid out otherwise whole', () => {
    const { id, ...rest } = fact
    for (const body of [
      JSON.stringify({ ...rest, id }), // id not first
      JSON.stringify({ id, topic: fact.topic, name: fact.name, scope: fact.scope, value: fact.value, evidence: fact.evidence }), // value not after name
      JSON.stringify({ id, topic: fact.topic, name: fact.name, value: fact.value, evidence: fact.evidence, scope: fact.scope }), // evidence before scope
      JSON.stringify({ id, topic: fact.topic, name: fact.name, value: fact.value, evidence: fact.evidence }), // no scope
      // id not first, and a value holding members named like the markers: read whole, not by them.
      JSON.stringify({ topic: fact.topic, value: { k: 1, name: 'inner', value: 2 }, name: fact.name, scope: fact.scope, evidence: fact.evidence, id })
    ]) {
      for (const first of ['value', 'scope', 'evidence'] as const) {
        const f = new LazyFact(body)
        const whole = JSON.parse(body) as Record<string, unknown>
        expect(f.name).toBe(fact.name)
        expect(f[first]).toEqual(whole[first])
        expect([f.value, f.scope, f.evidence]).toEqual([whole.value, whole.scope, whole.evidence])
      }
    }
  })

  it('finds the artifacts the evidence names, also where the pattern cannot', () => {
    const seen = (body: string) => {
      const m = new Map<string, string>([['earlier/path', SHA_B]])
      new LazyFact(body).sources(m)
      return Object.fromEntries(m)
    }
    const want = { 'earlier/path': SHA_B, 'svd/Quazar/QZ "7101".svd': SHA_A, 'pins/b.xml': SHA_B }
    expect(seen(laidOut)).toEqual(want)
    // Path before digest: the pattern misses it, the body is read whole.
    const swapped = JSON.stringify({ ...fact, evidence: fact.evidence.map((e) => ({ sourcePath: e.sourcePath, sourceSha256: e.sourceSha256, locator: e.locator, excerpt: e.excerpt })) })
    expect(seen(swapped)).toEqual(want)
    // A body laid out otherwise: decoded whole, read from that.
    const { id, ...rest } = fact
    expect(seen(JSON.stringify({ ...rest, id }))).toEqual(want)
    // Read after a member was: the same.
    const f = new LazyFact(swapped)
    expect(f.value).toEqual(fact.value)
    const m = new Map<string, string>()
    f.sources(m)
    expect(Object.fromEntries(m)).toEqual({ 'svd/Quazar/QZ "7101".svd': SHA_A, 'pins/b.xml': SHA_B })
  })

  it('a body whose name is not a string is read whole', () => {
    const body = JSON.stringify({ id: fact.id, name: null, topic: fact.topic, value: fact.value, scope: fact.scope, evidence: fact.evidence })
    const f = new LazyFact(body)
    expect(f.name).toBeNull()
    expect(f.value).toEqual(fact.value)
  })

  it('decodeFact is the body parsed', () => {
    expect(decodeFact(laidOut)).toEqual(fact)
  })
})

const dirs: string[] = []
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), 'hwfacts-layout-'))
  dirs.push(d)
  return d
}
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})
const ID = '0123456789abcdef'
const ID2 = 'fedcba9876543210'
const keep = (root: string, id: string) => {
  mkdirSync(join(root, 'releases', id), { recursive: true })
  writeFileSync(join(root, 'releases', id, 'manifest.json'), '{}')
}

describe('DataDir', () => {
  it('lays out releases and the archive under its root', () => {
    const d = new DataDir('/data')
    expect(d.releaseDir(ID)).toBe(`/data/releases/${ID}`)
    expect(d.releaseDb(ID)).toBe(`/data/releases/${ID}/release.sqlite`)
    expect(d.manifestPath(ID)).toBe(`/data/releases/${ID}/manifest.json`)
    expect(d.archiveRel(SHA_B)).toBe(`archive/sha256/01/${SHA_B}`)
    expect(d.archivePath(SHA_B)).toBe(`/data/archive/sha256/01/${SHA_B}`)
  })

  it('release ids are 16 lowercase hex digits', () => {
    expect([ID, 'ABCDEF0123456789', `${ID}0`, ID.slice(1), `x${ID}`, `${ID}\n`].map((s) => RELEASE_ID.test(s))).toEqual([true, false, false, false, false, false])
  })

  it('lists the kept releases: directories named by an id with a manifest, sorted', () => {
    const root = tmp()
    expect(new DataDir(root).releaseIds()).toEqual([])
    const ids = ['f0', 'a1', '3c', 'e9', '07', 'b5', '5d', '92'].map((p) => p.repeat(8))
    for (const id of ids) keep(root, id)
    keep(root, 'not-a-release-id')
    mkdirSync(join(root, 'releases', '1111111111111111'))
    expect(new DataDir(root).releaseIds()).toEqual([...ids].sort())
  })

  it('the promoted pointer: sound, missing, garbled, naming no kept release, and the last good id served meanwhile', () => {
    const root = tmp()
    keep(root, ID)
    keep(root, ID2)
    const d = new DataDir(root)
    expect(d.promotedId()).toBeUndefined()
    expect(d.pointerStatus()).toEqual({ ok: false, detail: 'the promoted pointer is missing' })
    writeFileSync(join(root, 'promoted'), 'garbage')
    expect(d.promotedId()).toBeUndefined()
    expect(d.pointerStatus()).toEqual({ ok: false, detail: 'the promoted pointer is garbled' })
    writeFileSync(join(root, 'promoted'), '1111111111111111')
    expect(d.promotedId()).toBeUndefined()
    expect(d.pointerStatus()).toEqual({ ok: false, detail: 'the promoted pointer names 1111111111111111, which is not kept' })
    writeFileSync(join(root, 'promoted'), `  ${ID}\n`)
    expect(d.promotedId()).toBe(ID)
    expect(d.pointerStatus()).toEqual({ ok: true })
    writeFileSync(join(root, 'promoted'), '')
    expect(d.promotedId()).toBe(ID)
    expect(d.pointerStatus()).toEqual({ ok: false, detail: `the promoted pointer is garbled: still serving the last good release ${ID}` })
    rmSync(join(root, 'promoted'))
    expect(d.promotedId()).toBe(ID)
    expect(d.pointerStatus()).toEqual({ ok: false, detail: `the promoted pointer is missing: still serving the last good release ${ID}` })
    writeFileSync(join(root, 'promoted'), ID2)
    expect(d.promotedId()).toBe(ID2)
    expect(d.pointerStatus()).toEqual({ ok: true })
  })

  it('promote writes the id and a line break in place of the pointer, creating the root, leaving no temporary file', () => {
    const root = join(tmp(), 'new', 'data')
    const d = new DataDir(root)
    d.promote(ID)
    expect(readFileSync(join(root, 'promoted'), 'utf8')).toBe(`${ID}\n`)
    d.promote(ID2)
    expect(readFileSync(join(root, 'promoted'), 'utf8')).toBe(`${ID2}\n`)
    expect(readdirSync(root)).toEqual(['promoted'])
    expect(existsSync(join(root, 'releases'))).toBe(false)
  })
})

describe('the release format (schema.ts)', () => {
  it('orders ranges by target key, then topic name', () => {
    const r = (target: string, topic: string) => ({ target, topic })
    const list = [r('b', 'pins'), r('a', 'registers'), r('b', 'errata'), r('a', 'errata'), r('B', 'pins'), r('b', 'pins')]
    expect([...list].sort(byTargetThenTopic).map((x) => `${x.target}/${x.topic}`)).toEqual(['B/pins', 'a/errata', 'a/registers', 'b/errata', 'b/pins', 'b/pins'])
    expect([byTargetThenTopic(r('a', 'x'), r('b', 'a')), byTargetThenTopic(r('b', 'a'), r('a', 'x')), byTargetThenTopic(r('a', 'x'), r('a', 'x'))]).toEqual([-1, 1, 0])
    expect([byTargetThenTopic(r('a', 'pins'), r('a', 'errata')), byTargetThenTopic(r('a', 'errata'), r('a', 'pins'))]).toEqual([1, -1])
  })

  it('names shard files by digest, and scopes terms by a fixed-width target ordinal and the topic', () => {
    expect(shardFileName(SHA_B)).toBe(`shards/${SHA_B}.sqlite`)
    expect(scopedTermPrefix(12, 'registers')).toBe('t00012re')
    expect(scopedTermPrefix(0, 'pins')).toBe('t00000pi')
    expect(scopedTermPrefix(99999, 'errata')).toBe('t99999er')
  })

  it('packs a block of bodies (raw deflate of the bodies joined by line breaks) and unpacks it', () => {
    const bodies = ['{"a":"x y"}', '{"b":"ü…"}', '{}']
    const packed = packBodies(bodies)
    expect(inflateRawSync(packed).toString('utf8')).toBe(bodies.join('\n'))
    expect(unpackBodies(deflateRawSync(bodies.join('\n')))).toEqual(bodies)
    expect(unpackBodies(packed)).toEqual(bodies)
    expect(BODY_BLOCK_FACTS).toBe(8)
  })
})
