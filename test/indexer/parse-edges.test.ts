import { createHash } from 'node:crypto'
import { EventEmitter } from 'node:events'
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ENCODER } from '../../indexer/encode.js'
import { archiveBytes, WriteError, type ArtifactRef } from '../../indexer/inventory.js'
import { cachedShard, readEntry, shardTmpPath, unitKey } from '../../indexer/parse-cache.js'
import { ownFacts, parseAll, parseUnit, parseUnits, request, type ParseUnit } from '../../indexer/parse-units.js'
import { ADAPTERS } from '../../indexer/sources/index.js'
import { stopwatch } from '../../indexer/stopwatch.js'
import type { FactDraft } from '../../src/model/fact.js'
import { DataDir } from '../../src/store/layout.js'
import { scratchDirs } from '../helpers/scratch.js'

/*
 * The build's parse step (indexer/parse-units.ts, parse-worker.ts, workers.ts) on artifacts written
 * into a scratch archive here: units by adapter and inventory order, a unit's own facts, a unit parsed
 * into the parse cache, and parseAll on this thread, in worker threads, from the cache, and failing.
 * Expected values follow the doc comments of those files and of parse-cache.ts.
 */

const tmp = scratchDirs()
const sha = (b: Buffer | string) => createHash('sha256').update(b).digest('hex')
const adapter = (name: string) => ADAPTERS.find((a) => a.name === name)!

/** An SVD of one peripheral P at 0x1000 with `registers` 32-bit registers R0, R1, … at 4-byte steps. */
function svd(device: string, registers: number): string {
  const regs = Array.from({ length: registers }, (_, i) => `<register><name>R${i}</name><addressOffset>0x${(i * 4).toString(16)}</addressOffset><size>32</size></register>`)
  return ['<?xml version="1.0"?>', `<device><name>${device}</name>`, '<peripherals><peripheral><name>P</name><baseAddress>0x1000</baseAddress>', '<registers>', ...regs, '</registers></peripheral></peripherals></device>', ''].join('\n')
}

/** A data directory whose archive holds the given files; their inventory records (path order as given). */
function archive(files: Array<{ path: string; text: string; kind?: string }>): { root: string; data: DataDir; refs: ArtifactRef[] } {
  const root = tmp('hwfacts-parse-')
  const data = new DataDir(root)
  const refs = files.map((f) => {
    const bytes = Buffer.from(f.text)
    archiveBytes(data, sha(bytes), bytes)
    return { path: f.path, sha256: sha(bytes), bytes: bytes.length, kind: f.kind ?? 'cmsis-svd', publisher: 'Acme', license: 'MIT', mediaType: 'application/xml' }
  })
  return { root, data, refs }
}

const unitOf = (name: string, refs: ArtifactRef[]): ParseUnit => ({ adapter: name, artifacts: refs, key: unitKey(ENCODER, adapter(name), refs) })

describe('parseUnits', () => {
  it('adapter by adapter (the ADAPTERS order), each adapter`s artifacts in inventory order, split where it says; unclaimed kinds reported', () => {
    const nordic = adapter('nordic-errata').kinds[0]!
    const probe = adapter('probe-rs').kinds[0]!
    const { data, refs } = archive([
      { path: 'errata/nordic/b_erratas.h', text: '/* b */', kind: nordic },
      { path: 'misc/notes.txt', text: 'hello', kind: 'plain-text' },
      { path: 'svd/Acme/A1.svd', text: svd('A1', 1) },
      { path: 'errata/nordic/a_erratas.h', text: '/* a */', kind: nordic },
      { path: 'svd/Acme/B2.svd', text: svd('B2', 1) },
      { path: 'misc/other.bin', text: 'x', kind: 'firmware' },
      { path: 'targets/probe-rs/x.yaml', text: 'name: x', kind: probe }
    ])
    const { units, unclaimed } = parseUnits(refs, data)
    // SVDs first (one unit per device), then the Nordic errata (no `units`: one group), then probe-rs, as ADAPTERS lists them.
    expect(units.map((u) => [u.adapter, u.artifacts.map((a) => a.path)])).toEqual([
      ['cmsis-svd', ['svd/Acme/A1.svd']],
      ['cmsis-svd', ['svd/Acme/B2.svd']],
      ['nordic-errata', ['errata/nordic/b_erratas.h', 'errata/nordic/a_erratas.h']],
      ['probe-rs', ['targets/probe-rs/x.yaml']]
    ])
    // The units hold the inventory records themselves (no content), keyed by the cache's key.
    expect(units[0]!.artifacts[0]).toBe(refs[2])
    expect(Object.keys(units[0]!.artifacts[0]!)).not.toContain('content')
    for (const u of units) expect(u.key).toBe(unitKey(ENCODER, adapter(u.adapter), u.artifacts))
    expect(unclaimed).toEqual([
      { file: 'misc/notes.txt', reason: 'no adapter for source kind "plain-text"' },
      { file: 'misc/other.bin', reason: 'no adapter for source kind "firmware"' }
    ])
    expect(parseUnits([], data)).toEqual({ units: [], unclaimed: [] })
  })
})

describe('ADAPTERS', () => {
  it('every adapter is listed once, with kinds no other adapter claims', () => {
    const names = ADAPTERS.map((a) => a.name)
    expect(new Set(names).size).toBe(names.length)
    expect(names.length).toBe(7)
    const kinds = ADAPTERS.flatMap((a) => a.kinds)
    expect(new Set(kinds).size).toBe(kinds.length)
    // The order is the catalog's (index.ts): the SVD adapter first, then ST's pin data.
    expect(ADAPTERS[0]!.kinds).toContain('cmsis-svd')
    expect(ADAPTERS[1]!.kinds).toContain('stm32-pin-data-mcu')
  })
})

describe('ownFacts', () => {
  const fact = (target: string, name: string, sourcePath?: string): FactDraft => ({
    target,
    topic: 'registers',
    name,
    value: {},
    scope: { device: 'D' },
    evidence: sourcePath ? [{ sourcePath, sourceSha256: 'a'.repeat(64), locator: 'line 1', excerpt: '' }] : []
  })

  it('keeps the facts of the unit`s own targets; each other is a problem naming fact, target and file', () => {
    const mine = [fact('svd:A', 'P.R0', 'svd/A.svd'), fact('svd:A', 'P.R1', 'svd/A.svd')]
    const r = ownFacts({ targets: [{ key: 'svd:A', topics: ['registers'], device: 'A', sourceSha256: 'a'.repeat(64), sourcePath: 'svd/A.svd' }], facts: [mine[0]!, fact('svd:B', 'Q', 'svd/B.svd'), mine[1]!, fact('svd:C', 'Z')] })
    expect(r.facts).toEqual(mine)
    expect(r.problems).toEqual([
      { file: 'svd/B.svd', reason: 'fact Q names target svd:B, which its parse unit does not give; not served' },
      { file: '?', reason: 'fact Z names target svd:C, which its parse unit does not give; not served' }
    ])
    expect(ownFacts({ targets: [], facts: [] })).toEqual({ facts: [], problems: [] })
  })
})

describe('parseUnit', () => {
  it('parses the unit from the archive, writes its shard into the cache and records its entry', () => {
    const { root, refs } = archive([{ path: 'svd/Acme/A1.svd', text: svd('A1', 3) }])
    const unit = unitOf('cmsis-svd', refs)
    const s = parseUnit(unit, root)
    expect(s.targets.map((t) => [t.key, t.device, t.sourcePath, t.sourceSha256])).toEqual([['svd:Acme/A1', 'A1', 'svd/Acme/A1.svd', refs[0]!.sha256]])
    expect(s.parts).toEqual([])
    expect(s.problems).toEqual([])
    expect('partNumbers' in s).toBe(false)
    // The shard is in the cache under its own digest, whole; no temporary file is left.
    const file = cachedShard(root, s.shard!.sha256)
    expect(sha(readFileSync(file))).toBe(s.shard!.sha256)
    expect(statSync(file).size).toBe(s.shard!.bytes)
    expect(existsSync(shardTmpPath(root, unit.key))).toBe(false)
    expect(readdirSync(dirname(shardTmpPath(root, unit.key))).filter((f) => f.endsWith('.tmp'))).toEqual([])
    // The entry says the same as the answer.
    expect(readEntry(root, unit.key)).toEqual(JSON.parse(JSON.stringify(s)))
  })

  it('the part numbers a unit`s source gives are in its summary and entry', () => {
    const text = ['name: Q Series', 'manufacturer:', '  id: 0x20', '  cc: 0x0', 'variants:', '- name: Q4', '  cores: [{name: a, type: armv6m}]', '  memory_map:', '  - !Nvm {range: {start: 0x0, end: 0x800}}', ''].join('\n')
    const { root, refs } = archive([{ path: 'targets/probe-rs/Q.yaml', text, kind: 'probe-rs-target' }])
    const unit = unitOf('probe-rs', refs)
    const s = parseUnit(unit, root)
    expect(s.partNumbers?.map((p) => [p.name, p.vendor, p.sourcePath])).toEqual([['Q4', 'STMicroelectronics', 'targets/probe-rs/Q.yaml']])
    expect(readEntry(root, unit.key)!.partNumbers).toEqual(JSON.parse(JSON.stringify(s.partNumbers)))
  })

  it('a unit without facts writes no shard but its entry, with the problems', () => {
    const { root, refs } = archive([{ path: 'svd/Acme/Bad.svd', text: '<device>\n<name>Bad</name>\n<peripherals>\n' }])
    const unit = unitOf('cmsis-svd', refs)
    const s = parseUnit(unit, root)
    expect(s.shard).toBeUndefined()
    expect(s.targets).toEqual([])
    expect(s.problems.map((p) => p.file)).toEqual(['svd/Acme/Bad.svd'])
    expect(readEntry(root, unit.key)).toEqual(JSON.parse(JSON.stringify(s)))
    expect(existsSync(join(root, 'cache', 'shards'))).toBe(false)
  })

  it('a shard that cannot be put in place fails as a WriteError and leaves no temporary file', () => {
    const files = [{ path: 'svd/Acme/A1.svd', text: svd('A1', 2) }]
    const first = archive(files)
    const { sha256 } = parseUnit(unitOf('cmsis-svd', first.refs), first.root).shard!
    // The same unit in a new data directory, where a file stands where the shard's directory must go.
    const { root, refs } = archive(files)
    const unit = unitOf('cmsis-svd', refs)
    mkdirSync(join(root, 'cache', 'shards'), { recursive: true })
    writeFileSync(join(root, 'cache', 'shards', sha256.slice(0, 2)), 'in the way')
    expect(() => parseUnit(unit, root)).toThrow(WriteError)
    expect(() => parseUnit(unit, root)).toThrow(`cannot write ${cachedShard(root, sha256)}: `)
    expect(existsSync(shardTmpPath(root, unit.key))).toBe(false)
    expect(readEntry(root, unit.key)).toBeUndefined()
  })

  it('an adapter no one has is refused', () => {
    const { root } = archive([])
    expect(() => parseUnit({ adapter: 'nope', artifacts: [], key: 'k'.repeat(64) }, root)).toThrow('no adapter named nope')
  })
})

/** Makes the entry of a unit unwritable: its temporary file (this process's) a link to /dev/full. */
function fullDisk(root: string, key: string): string {
  const file = join(root, 'cache', 'parse', key.slice(0, 2), `${key}.json`)
  mkdirSync(dirname(file), { recursive: true })
  symlinkSync('/dev/full', `${file}.${process.pid}.tmp`)
  return file
}

describe('parseAll', () => {
  it('one unit: parsed here, its summary the one parseUnit gives, counted; a second run reads it from the cache', async () => {
    const { root, refs } = archive([{ path: 'svd/Acme/A1.svd', text: svd('A1', 2) }])
    const unit = unitOf('cmsis-svd', refs)
    let calls = 0
    const first = await parseAll([unit], root, () => calls++)
    expect(first.stats).toEqual({ parsed: 1, cached: 0 })
    expect(calls).toBe(1)
    expect(first.summaries[0]!.targets.map((t) => t.key)).toEqual(['svd:Acme/A1'])
    const again = await parseAll([unit], root, () => calls++)
    expect(again.stats).toEqual({ parsed: 0, cached: 1 })
    expect(calls).toBe(2)
    expect(again.summaries).toEqual(JSON.parse(JSON.stringify(first.summaries)))
  })

  it('several units: parsed in worker threads, each summary in unit order whatever finishes first', async () => {
    // Sizes differ so the biggest goes out first; the summaries still follow the units.
    const { root, refs } = archive([
      { path: 'svd/Acme/S1.svd', text: svd('S1', 1) },
      { path: 'svd/Acme/L2.svd', text: svd('L2', 40) },
      { path: 'svd/Acme/M3.svd', text: svd('M3', 8) }
    ])
    const units = refs.map((r) => unitOf('cmsis-svd', [r]))
    let calls = 0
    const { summaries, stats } = await parseAll(units, root, () => calls++)
    expect(stats).toEqual({ parsed: 3, cached: 0 })
    expect(calls).toBe(3)
    expect(summaries.map((s) => s.targets.map((t) => t.key))).toEqual([['svd:Acme/S1'], ['svd:Acme/L2'], ['svd:Acme/M3']])
    // What a worker wrote is what this thread reads back, and what parseUnit writes here.
    for (const [i, u] of units.entries()) expect(readEntry(root, u.key)).toEqual(summaries[i])
    const here = archive([{ path: 'svd/Acme/L2.svd', text: svd('L2', 40) }])
    expect(parseUnit(unitOf('cmsis-svd', here.refs), here.root).shard).toEqual(summaries[1]!.shard)
    // Cached and new together: only the new one is parsed.
    const more = archive([{ path: 'svd/Acme/N4.svd', text: svd('N4', 1) }])
    archiveBytes(new DataDir(root), more.refs[0]!.sha256, Buffer.from(svd('N4', 1)))
    const mixed = await parseAll([...units, unitOf('cmsis-svd', more.refs)], root, () => calls++)
    expect(mixed.stats).toEqual({ parsed: 1, cached: 3 })
    expect(calls).toBe(7)
    expect(mixed.summaries.map((s) => s.targets[0]!.key)).toEqual(['svd:Acme/S1', 'svd:Acme/L2', 'svd:Acme/M3', 'svd:Acme/N4'])
  })

  it('a unit that cannot be parsed fails the step naming its first file, on this thread and in a worker', async () => {
    const { root, data, refs } = archive([
      { path: 'svd/Acme/A1.svd', text: svd('A1', 1) },
      { path: 'svd/Acme/B2.svd', text: svd('B2', 1) }
    ])
    // B2's archived bytes no longer match their digest: reading them throws.
    archiveBytes(data, 'f'.repeat(64), Buffer.from('not what the digest says'))
    const bad = unitOf('cmsis-svd', [{ ...refs[1]!, sha256: 'f'.repeat(64) }])
    await expect(parseAll([bad], root, () => {})).rejects.toThrow(/^parsing svd\/Acme\/B2\.svd: Error: .*archived bytes hash to/)
    await expect(parseAll([unitOf('cmsis-svd', [refs[0]!]), bad], root, () => {})).rejects.toThrow(/^parsing svd\/Acme\/B2\.svd: Error: .*archived bytes hash to/)
    await expect(parseAll([{ adapter: 'nope', artifacts: [], key: 'e'.repeat(64) }], root, () => {})).rejects.toThrow(/^parsing nope: Error: no adapter named nope/)
  })

  it('a write the build cannot make is the one-line WriteError naming the file, on this thread and in a worker', async () => {
    const { root, refs } = archive([
      { path: 'svd/Acme/A1.svd', text: svd('A1', 1) },
      { path: 'svd/Acme/B2.svd', text: svd('B2', 1) }
    ])
    const [a, b] = refs.map((r) => unitOf('cmsis-svd', [r]))
    const fileA = fullDisk(root, a!.key)
    const here = await parseAll([a!], root, () => {}).catch((e: unknown) => e)
    expect(here).toBeInstanceOf(WriteError)
    expect((here as Error).message).toBe(`cannot write ${fileA}: ENOSPC: no space left on device, write`)
    const fileB = fullDisk(root, b!.key)
    const there = await parseAll([a!, b!], root, () => {}).catch((e: unknown) => e)
    expect(there).toBeInstanceOf(WriteError)
    expect((there as Error).message).toMatch(new RegExp(`^cannot write (${fileA}|${fileB}): ENOSPC: no space left on device, write$`))
    // No unit's shard is left half-written.
    expect(readdirSync(join(root, 'cache', 'shards')).filter((f) => f.endsWith('.tmp'))).toEqual([])
  })
})

describe('stopwatch', () => {
  it('names each lap with the whole milliseconds since the previous one', async () => {
    const w = stopwatch()
    await new Promise((r) => setTimeout(r, 30))
    w.lap('first')
    w.lap('second')
    await new Promise((r) => setTimeout(r, 20))
    w.lap('third')
    expect(Object.keys(w.timings)).toEqual(['first', 'second', 'third'])
    expect(w.timings.first).toBeGreaterThanOrEqual(29)
    expect(w.timings.second).toBeLessThan(w.timings.first!)
    expect(w.timings.third).toBeGreaterThanOrEqual(19)
    expect(w.timings.third).toBeLessThan(w.timings.first! + 1000)
    for (const v of Object.values(w.timings)) expect(Number.isInteger(v)).toBe(true)
  })
})

describe('request: one unit sent to a worker', () => {
  /** A stand-in for a worker thread: records what it is sent; the test emits its reply, error or exit. */
  class FakeWorker extends EventEmitter {
    sent: unknown[] = []
    postMessage(m: unknown) {
      this.sent.push(m)
    }
  }
  const unit: ParseUnit = { adapter: 'cmsis-svd', artifacts: [{ path: 'svd/A/X.svd', sha256: 'a'.repeat(64), bytes: 1, kind: 'cmsis-svd', publisher: 'Acme', license: 'MIT', mediaType: 'application/xml' }], key: 'k' }
  const listeners = (w: FakeWorker) => ['message', 'error', 'exit'].map((e) => w.listenerCount(e))
  const settled = async (w: FakeWorker, emit: () => void) => {
    const p = request(w as never, unit, '/data').then(
      (v) => ({ ok: v }),
      (e: Error) => ({ err: e })
    )
    expect(w.sent).toEqual([{ unit, dataRoot: '/data' }])
    expect(listeners(w)).toEqual([1, 1, 1])
    emit()
    const r = await p
    // Settled once: every listener of this request is gone, whatever settled it.
    expect(listeners(w)).toEqual([0, 0, 0])
    return r as { ok?: unknown; err?: Error }
  }

  it('a summary resolves; an error reply rejects naming the unit`s first file; a failed write is a WriteError with its own message', async () => {
    const summary = { targets: [], parts: [], problems: [] }
    const w1 = new FakeWorker()
    expect(await settled(w1, () => w1.emit('message', { summary }))).toEqual({ ok: summary })
    const w2 = new FakeWorker()
    const e2 = (await settled(w2, () => w2.emit('message', { error: 'boom', write: false }))).err!
    expect(e2).not.toBeInstanceOf(WriteError)
    expect(e2.message).toBe('parsing svd/A/X.svd: boom')
    const w3 = new FakeWorker()
    const e3 = (await settled(w3, () => w3.emit('message', { error: 'cannot write /x: ENOSPC', write: true }))).err!
    expect(e3).toBeInstanceOf(WriteError)
    expect(e3.message).toBe('cannot write /x: ENOSPC')
  })

  it('a worker that fails or exits rejects with its error or its exit code', async () => {
    const w1 = new FakeWorker()
    const crash = new Error('worker crashed')
    expect((await settled(w1, () => w1.emit('error', crash))).err).toBe(crash)
    const w2 = new FakeWorker()
    expect((await settled(w2, () => w2.emit('exit', 3))).err!.message).toBe('parse worker exited with code 3')
  })
})
