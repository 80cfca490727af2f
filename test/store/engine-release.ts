import Database from 'better-sqlite3'
import { createHash } from 'node:crypto'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { writeShard } from '../../indexer/shard.js'
import type { Topic } from '../../src/model/fact.js'
import { DataDir } from '../../src/store/layout.js'
import { EngineRepository } from '../../src/store/search-engine/repository.js'
import { openTransport, type EngineRequest, type EngineTransport } from '../../src/store/search-engine/transport.js'
import { SCHEMA_VERSION, shardFileName, TOP_SCHEMA } from '../../src/store/sqlite/schema.js'
import { enginesFromEnv, NO_ENGINE, skipReason } from '../helpers/services.js'

/*
 * A hand-made release of 13 facts for the search-engine suites (engine-store, engine-edges): two
 * shards written by the indexer's shard writer, the top file and manifest written here, so loading
 * it takes a second or two. Every test that changes the engine works under a prefix of its own.
 */

export interface F {
  target: string
  topic: Topic
  name: string
  words: string
  pkg?: string
  rev?: string
  periph?: string[]
}

export const UNIT0: F[] = [
  { target: 'alpha', topic: 'errata', name: 'E1', words: 'dma stall', rev: ' 0x01 ', pkg: 'QFN32' },
  { target: 'alpha', topic: 'errata', name: 'E2', words: 'dma lost', rev: ' !0x01 * ' },
  { target: 'alpha', topic: 'errata', name: 'E3', words: 'usb', rev: ' 0x010 ' },
  { target: 'alpha', topic: 'errata', name: 'E4', words: 'adc' },
  { target: 'alpha', topic: 'pins', name: 'PA0', words: 'usart1 tx', pkg: 'LQFP48' },
  { target: 'alpha', topic: 'pins', name: 'PA1', words: 'usart1 rx', pkg: 'lqfp48' },
  { target: 'alpha', topic: 'pins', name: 'PB1', words: 'spi sck', pkg: 'ÉQFN' },
  { target: 'alpha', topic: 'registers', name: 'UART.CTRL', words: 'control enable', periph: ['UART'] },
  { target: 'alpha', topic: 'registers', name: 'UART.DATA', words: 'data', periph: ['UART', 'UART2'] },
  { target: 'alpha', topic: 'registers', name: 'UARTX.MODE', words: 'mode', periph: ['UARTX'] },
  { target: 'alpha', topic: 'registers', name: 'SPI.CR', words: 'control', periph: ['SPI'] },
  { target: 'beta', topic: 'registers', name: 'UART.CTRL', words: 'control', periph: ['UART'] }
]
export const UNIT1: F[] = [{ target: 'gamma', topic: 'registers', name: 'UART.CTRL', words: 'gamma', periph: ['UART'] }]
export const ALL = [...UNIT0, ...UNIT1]

export const sha = (b: string | Buffer) => createHash('sha256').update(b).digest('hex')
export const tokensOf = (f: F) => 100 + ALL.indexOf(f)
export const bodyOf = (f: F) => JSON.stringify({ id: sha(`${f.target}/${f.topic}/${f.name}`).slice(0, 20), topic: f.topic, name: f.name, value: { description: f.words }, scope: { device: f.target } })
export const FACTS_FORMAT = JSON.parse(readFileSync(join(import.meta.dirname, '../../mappings/facts-index.json'), 'utf8')).mappings._meta.format as string
export const RELEASES_MAPPING = JSON.parse(readFileSync(join(import.meta.dirname, '../../mappings/releases-index.json'), 'utf8')).mappings

export const A = 'aaaaaaaaaaaaaaaa' // complete
export const B = 'bbbbbbbbbbbbbbbb' // partial: its sources had problems
export const C = 'cccccccccccccccc' // its manifest counts one fact more than it holds
export const MANIFEST = { format: 'hwfacts-release/1', createdAt: '2026-11-26T00:00:00.000Z', indexerFormat: 1, tokenizer: 't', sources: [], counts: { facts: 13, parts: 0, targets: 3, byTopic: {} }, problems: [], coverageNotes: [] }
export const CATALOG = { entities: [{ name: 'ALPHA' }], targets: [] }

export const dirs: string[] = []
let root: string | undefined
/** The data dir with releases A, B and C, written on first use; A promoted. */
export function dataDir(): DataDir {
  if (!root) {
    root = mkdtempSync(join(tmpdir(), 'hwfacts-engine-edges-'))
    dirs.push(root)
    writeRelease(root, A, {})
    writeRelease(root, B, { problems: [{ source: 'svd/x.svd', message: 'bad' }] })
    writeRelease(root, C, { counts: { ...MANIFEST.counts, facts: 14 } })
    writeFileSync(join(root, 'promoted'), A + '\n')
  }
  return new DataDir(root)
}

export function writeRelease(dir: string, id: string, over: Record<string, unknown>): void {
  const rel = join(dir, 'releases', id)
  mkdirSync(join(rel, 'shards'), { recursive: true })
  const shards = [UNIT0, UNIT1].map((unit, u) =>
    writeShard(
      join(dir, `tmp-${id}-${u}.sqlite`),
      unit.map((f) => ({ target: f.target, topic: f.topic, id: '', name: f.name, package: f.pkg ?? null, revisions: f.rev ?? null, tokens: tokensOf(f), body: bodyOf(f), peripherals: f.periph ?? [], terms: f.words })),
      (s) => join(rel, shardFileName(s))
    )
  )
  const db = new Database(join(rel, 'release.sqlite'))
  db.exec(TOP_SCHEMA)
  shards.forEach((s, i) => {
    db.prepare('INSERT INTO shards (shard, sha256, bytes) VALUES (?, ?, ?)').run(i, s.sha256, s.bytes)
    for (const r of s.ranges) db.prepare('INSERT INTO fact_ranges VALUES (?, ?, ?, ?, ?, ?, ?)').run(r.target, r.topic, i, r.tt, r.first, r.last, r.scope)
  })
  const manifest = JSON.stringify({ ...MANIFEST, id, ...over })
  db.prepare('INSERT INTO meta VALUES (?, ?)').run('schema', String(SCHEMA_VERSION))
  db.prepare('INSERT INTO meta VALUES (?, ?)').run('manifest', manifest)
  db.prepare('INSERT INTO meta VALUES (?, ?)').run('catalog', JSON.stringify(CATALOG))
  db.close()
  writeFileSync(join(rel, 'manifest.json'), manifest)
}

/** The manifest stored in a release file (the loader reads that one), rewritten with `over`. */
export function rewriteManifest(data: DataDir, id: string, over: Record<string, unknown>): string {
  const db = new Database(data.releaseDb(id))
  const m = JSON.stringify({ ...JSON.parse(db.prepare<[], { value: string }>("SELECT value FROM meta WHERE key = 'manifest'").get()!.value), ...over })
  db.prepare("UPDATE meta SET value = ? WHERE key = 'manifest'").run(m)
  db.close()
  return m
}

export const engine = enginesFromEnv().find((e) => e?.flavor === 'opensearch') ?? enginesFromEnv()[0]
export const skip = skipReason('engine edges', engine ? undefined : NO_ENGINE)
/** This run's prefixes: unique per run, as a Stryker worker runs a file once per mutant in one process. */
export const RUN = `hwfacts-test-edges-${process.pid}-${Date.now().toString(36)}`
export const repos: EngineRepository[] = []
let fresh = 0
/** A prefix no other test of this run uses. */
export const freshPrefix = () => `${RUN}-${fresh++}`

/** A transport to the engine whose requests `hook` may watch, fail or doctor. */
export async function transport(hook?: (r: EngineRequest, send: () => Promise<{ status: number; body: unknown }>) => Promise<{ status: number; body: unknown }>): Promise<EngineTransport> {
  const real = await openTransport(engine!.url, engine!.flavor)
  if (!hook) return real
  return { flavor: real.flavor, close: () => real.close(), request: ((r: EngineRequest) => hook(r, () => real.request(r))) as EngineTransport['request'] } as EngineTransport
}

/** A repository under a prefix of its own (nothing of another test in it), closed after the file. */
export async function repoOf(t?: EngineTransport, prefix = freshPrefix()): Promise<EngineRepository> {
  const r = new EngineRepository(t ?? (await transport()), prefix, { recheckMs: 0 })
  repos.push(r)
  return r
}


/** Deletes this run's indices, and those of runs over ten minutes old (a mutant's run that timed out never cleaned up), and the temp dirs. */
export async function cleanup(): Promise<void> {
  if (!skip) {
    const t = await transport()
    const idx = await t.request<Array<{ index: string; 'creation.date': string }>>({ method: 'GET', path: '/_cat/indices/hwfacts-test-edges-*', querystring: { format: 'json', h: 'index,creation.date' } })
    for (const i of idx.body)
      if (i.index.startsWith(RUN + '-') || Number(i['creation.date']) < Date.now() - 600_000) await t.request({ method: 'DELETE', path: `/${i.index}`, ignore: [404] })
    await t.close()
    for (const r of repos) await r.close()
  }
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
}
