import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { buildRelease } from '../../indexer/build.js'
import { ApiKeyStore, generateKey } from '../../src/auth/keys.js'
import { buildApp } from '../../src/http/app.js'
import { HardwareFacts } from '../../src/service/facts.js'
import { DataDir } from '../../src/store/layout.js'
import { SqliteRepository } from '../../src/store/sqlite/store.js'
import { SAMPLE_CORPUS, sampleCorpusWithout } from '../helpers/sample-corpus.js'

/** resolve, coverage and catalog search answers go through the same answer cache as context. */
describe('answer cache of the resolution routes', () => {
  let dataDir: string
  let second: string
  const corpora: string[] = []
  const key = generateKey('t')
  const restricted = generateKey('r')
  const auth = { authorization: `Bearer ${key.secret}` }

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'hwfacts-answers-'))
    const first = (await buildRelease({ inventory: SAMPLE_CORPUS, dataDir })).id
    corpora.push(sampleCorpusWithout('errata/'))
    second = (await buildRelease({ inventory: corpora[0]!, dataDir })).id
    new DataDir(dataDir).promote(first)
  })
  afterAll(() => {
    for (const d of [dataDir, ...corpora]) rmSync(d, { recursive: true, force: true })
  })

  async function app(cacheBytes: number) {
    const facts = new HardwareFacts(new SqliteRepository(dataDir), 's', { contextCacheBytes: cacheBytes })
    const keys = new ApiKeyStore([key.record, { ...restricted.record, releases: [] }])
    const a = await buildApp({ facts, keys, rateLimit: { max: 100_000, timeWindowMs: 60_000 } })
    await a.ready()
    return { app: a, facts }
  }

  const routes = [
    ['resolveOn', '/v1/parts/resolve?q=STM32F407VGT6', '/v1/parts/resolve?q=STM32F407VGT6&candidate_limit=3'],
    ['coverageOn', '/v1/coverage?part=nRF52840', '/v1/coverage?part=nrf52840'],
    ['catalogSearchOn', '/v1/catalog/search?q=STM32F4', '/v1/catalog/search?q=STM32F40']
  ] as const

  it('answers a repeated request from the cache with the bytes and type the uncached route gives', async () => {
    const on = await app(1 << 20)
    const off = await app(0)
    try {
      for (const [method, url, other] of routes) {
        const made = vi.spyOn(on.facts, method)
        const a = await on.app.inject({ url, headers: auth })
        const b = await on.app.inject({ url, headers: auth })
        const fresh = await off.app.inject({ url, headers: auth })
        expect(a.statusCode, url).toBe(200)
        expect(b.body, url).toBe(a.body)
        expect(a.body, url).toBe(fresh.body)
        expect(b.headers['content-type'], url).toBe(fresh.headers['content-type'])
        expect(made, url).toHaveBeenCalledTimes(1)
        // Another parameter value is another answer.
        const c = await on.app.inject({ url: other, headers: auth })
        expect(made, other).toHaveBeenCalledTimes(2)
        expect(c.body, other).toBe((await off.app.inject({ url: other, headers: auth })).body)
      }
    } finally {
      await on.app.close()
      await off.app.close()
    }
  })

  it('keys answers by release, checks the key before answering from the cache, and keeps no errors', async () => {
    const { app: a } = await app(1 << 20)
    try {
      const url = `/v1/coverage?part=nRF52840&corpus_release=${second}`
      const onSecond = await a.inject({ url, headers: auth })
      const promoted = await a.inject({ url: '/v1/coverage?part=nRF52840', headers: auth })
      expect(JSON.parse(onSecond.body).release).toBe(second)
      expect(JSON.parse(promoted.body).release).not.toBe(second)
      // The second release has no errata source: its answer is its own, not the promoted one's.
      expect(JSON.parse(onSecond.body).topics.errata.status).not.toBe(JSON.parse(promoted.body).topics.errata.status)
      // Cached or not, a key that may not read the release is refused.
      const refused = await a.inject({ url, headers: { authorization: `Bearer ${restricted.secret}` } })
      expect(refused.statusCode).toBe(403)
      for (let i = 0; i < 2; i++) {
        const unknown = await a.inject({ url: '/v1/coverage?part=nRF52840&corpus_release=0000000000000000', headers: auth })
        expect(JSON.parse(unknown.body).code).toBe('UNKNOWN_CORPUS_RELEASE')
      }
    } finally {
      await a.close()
    }
  })
})
