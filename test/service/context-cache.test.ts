import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildRelease } from '../../indexer/build.js'
import { HardwareFacts } from '../../src/service/facts.js'
import { ServiceError } from '../../src/service/errors.js'
import { DataDir } from '../../src/store/layout.js'
import { SqliteRepository } from '../../src/store/sqlite/store.js'
import type { FactQuery } from '../../src/store/types.js'
import { recordingRepository } from '../helpers/recording-repo.js'
import { SAMPLE_CORPUS, sampleCorpusWithout } from '../helpers/sample-corpus.js'

describe('context answer cache', () => {
  let dataDir: string
  let first: string
  let second: string
  const corpora: string[] = []

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'hwfacts-cache-'))
    first = (await buildRelease({ inventory: SAMPLE_CORPUS, dataDir })).id
    corpora.push(sampleCorpusWithout('errata/'))
    second = (await buildRelease({ inventory: corpora[0]!, dataDir })).id
    new DataDir(dataDir).promote(first)
  })
  afterAll(() => {
    for (const d of [dataDir, ...corpora]) rmSync(d, { recursive: true, force: true })
  })

  const params = { part: 'STM32F407VGT6', topic: 'registers' as const, fact_name_prefixes: 'RCC.', limit: 2 }

  it('answers a repeated request with the same bytes without querying the store again', async () => {
    const queries: FactQuery[] = []
    const facts = new HardwareFacts(recordingRepository(new SqliteRepository(dataDir), (q) => queries.push(q)), 's', { contextCacheBytes: 1 << 20 })
    const a = await facts.context(params)
    expect(queries).toHaveLength(1)
    expect(JSON.parse(a.body).facts.length).toBe(2)
    const b = await facts.context({ ...params })
    expect(b.body).toBe(a.body)
    expect(queries).toHaveLength(1)
    // Any parameter that shapes the answer is part of the key: the next page, another limit.
    const cursor = JSON.parse(a.body).page.nextCursor as string
    const next = await facts.context({ ...params, cursor })
    await facts.context({ ...params, limit: 3 })
    expect(queries).toHaveLength(3)
    expect(next.body).not.toBe(a.body)
  })

  it('keys answers by release: another release, or a promotion, is queried afresh', async () => {
    const queries: FactQuery[] = []
    const repo = recordingRepository(new SqliteRepository(dataDir), (q) => queries.push(q))
    const facts = new HardwareFacts(repo, 's', { contextCacheBytes: 1 << 20 })
    const onFirst = await facts.context(params)
    const onSecond = await facts.context({ ...params, corpus_release: second })
    expect(queries).toHaveLength(2)
    expect(JSON.parse(onFirst.body).release).toBe(first)
    expect(JSON.parse(onSecond.body).release).toBe(second)
    // The cursor of the first release's page still pins that release, from the cache or not.
    const cursor = JSON.parse(onFirst.body).page.nextCursor as string
    expect(JSON.parse((await facts.context({ ...params, cursor })).body).release).toBe(first)
    // After a promotion, the same parameters answer from the newly promoted release.
    new DataDir(dataDir).promote(second)
    try {
      await new Promise((r) => setTimeout(r, 1100)) // the repository re-reads the pointer once a second
      expect(JSON.parse((await facts.context(params)).body).release).toBe(second)
    } finally {
      new DataDir(dataDir).promote(first)
    }
  })

  it('keeps answers byte for byte: multi-byte characters come back from the cache as they were made', async () => {
    const queries: FactQuery[] = []
    const facts = new HardwareFacts(recordingRepository(new SqliteRepository(dataDir), (q) => queries.push(q)), 's', { contextCacheBytes: 1 << 20 })
    // A cut evidence excerpt ends in "…", three bytes in UTF-8 (and a two-byte string in V8).
    const made = await facts.context(params)
    expect(made.body).toContain('…"')
    expect(Buffer.byteLength(made.body)).toBeGreaterThan(made.body.length)
    const kept = await facts.context({ ...params })
    expect(queries).toHaveLength(1)
    expect(kept.body).toBe(made.body)
  })

  it('never caches an error: the same bad request fails every time', async () => {
    const facts = new HardwareFacts(new SqliteRepository(dataDir), 's', { contextCacheBytes: 1 << 20 })
    for (let i = 0; i < 2; i++) await expect(facts.context({ ...params, fact_names: ' , ' })).rejects.toBeInstanceOf(ServiceError)
  })

  it('is bounded: answers beyond the byte budget are evicted and recomputed, and 0 turns it off', async () => {
    const queries: FactQuery[] = []
    const one = (await new HardwareFacts(new SqliteRepository(dataDir), 's').context(params)).body.length
    // Room for one answer: the second evicts the first.
    const facts = new HardwareFacts(recordingRepository(new SqliteRepository(dataDir), (q) => queries.push(q)), 's', { contextCacheBytes: Math.round(one * 1.5) + 200 })
    await facts.context(params)
    await facts.context({ ...params, limit: 3 })
    await facts.context(params)
    expect(queries).toHaveLength(3)
    const off = new HardwareFacts(recordingRepository(new SqliteRepository(dataDir), (q) => queries.push(q)), 's', { contextCacheBytes: 0 })
    await off.context(params)
    await off.context(params)
    expect(queries).toHaveLength(5)
  })
})
