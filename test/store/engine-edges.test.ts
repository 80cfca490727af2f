import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest'
import { engineCommand } from '../../indexer/engine-cli.js'
import { EngineCommandError, listReleases, loadRelease, promoteRelease, retireRelease } from '../../indexer/engine.js'
import { DataDir } from '../../src/store/layout.js'
import { EngineError } from '../../src/store/search-engine/transport.js'
import { A, B, bodyOf, C, CATALOG, cleanup, dataDir, dirs, engine, FACTS_FORMAT, MANIFEST, RELEASES_MAPPING, repoOf, rewriteManifest, freshPrefix, skip, transport, UNIT0, writeRelease } from './engine-release.js'

/*
 * The engine loader (indexer/engine.ts) and `hwfacts engine` (engine-cli.ts) against a real engine,
 * on the hand-made release of engine-release.ts (13 facts: a load takes a second or two). Each test
 * works under a prefix of its own and builds what it checks inside itself (never in a hook: a mutant
 * that throws there fails no test). Expected outcomes are the loader's contract (engine.ts: what a
 * load, promotion and retirement leave in the engine, and what each refuses), worked out from the
 * release's facts; transports that watch, fail or doctor requests stand in for a misbehaving engine.
 */

afterAll(cleanup)

describe.skipIf(skip !== undefined)(`the engine loader and command (${engine?.flavor ?? 'none'})`, () => {
  afterEach(() => vi.restoreAllMocks())

  describe('loading', () => {
    it('copies every fact in canonical order, verifies, merges, seals the index, and records the release last', async () => {
      const data = dataDir()
      const bulks: number[] = []
      let inFlight = 0
      const repo = await repoOf(
        await transport(async (r, send) => {
          if (!r.path.endsWith('/_bulk')) return send()
          bulks.push(r.ndjson!.split('\n').length - 1)
          inFlight++
          try {
            expect(inFlight).toBe(1)
            return await send()
          } finally {
            inFlight--
          }
        })
      )
      const progress: string[] = []
      const t0 = new Date().toISOString()
      const r = await loadRelease(repo, data, A, { bulkDocs: 5, concurrency: 1, onProgress: (d, n) => progress.push(`${d}/${n}`) })
      expect({ ...r, timingsMs: Object.keys(r.timingsMs) }).toEqual({ id: A, index: `${repo.names.prefix}-facts-${A}`, facts: 13, reused: false, retries: 0, timingsMs: ['create', 'bulk', 'verify', 'merge', 'record'] })
      expect(bulks).toEqual([10, 10, 6])
      expect(progress).toEqual(['5/13', '10/13', '13/13'])

      // Documents: _id the position in canonical order, the columns of the shard row.
      const doc = async (id: number) => (await repo.engine.request<{ _source: Record<string, unknown> }>({ method: 'GET', path: `/${r.index}/_doc/${id}` })).body._source
      expect(await doc(0)).toMatchObject({ ord: 1, target: 'alpha', topic: 'errata', name_key: 'e1', package: 'QFN32', revisions: ' 0x01 ', tokens: 100, body: bodyOf(UNIT0[0]!) })
      expect(await doc(12)).toMatchObject({ ord: 1, target: 'gamma', topic: 'registers', name_key: 'uart.ctrl', peripherals: ['UART'], tokens: 112 })

      const settings = (await repo.engine.request<Record<string, { settings: { index: Record<string, unknown> } }>>({ method: 'GET', path: `/${r.index}/_settings`, querystring: { flat_settings: true } })).body[r.index]!
        .settings as unknown as Record<string, unknown>
      expect(settings).toMatchObject({ 'index.blocks.write': 'true', 'index.auto_expand_replicas': '0-1', 'index.translog.durability': 'request', 'index.number_of_shards': '1' })
      expect(settings['index.refresh_interval']).toBeUndefined()
      const segs = (await repo.engine.request<{ indices: Record<string, { shards: Record<string, Array<{ num_search_segments: number }>> }> }>({ method: 'GET', path: `/${r.index}/_segments` })).body
      expect(segs.indices[r.index]!.shards['0']![0]!.num_search_segments).toBe(1)
      const mapping = (await repo.engine.request<Record<string, { mappings: { _meta: { format: string } } }>>({ method: 'GET', path: `/${r.index}/_mapping` })).body[r.index]!
      expect(mapping.mappings._meta.format).toBe(FACTS_FORMAT)
      const relMapping = (await repo.engine.request<Record<string, { mappings: unknown }>>({ method: 'GET', path: `/${repo.names.releases}/_mapping` })).body[repo.names.releases]!
      expect(relMapping.mappings).toMatchObject(RELEASES_MAPPING)

      const rec = await repo.record(A)
      expect(rec).toMatchObject({ id: A, index: r.index, format: FACTS_FORMAT, createdAt: MANIFEST.createdAt, facts: 13, complete: true, manifest: JSON.stringify({ ...MANIFEST, id: A }), catalog: JSON.stringify(CATALOG) })
      expect(rec!.loadedAt >= t0 && rec!.loadedAt <= new Date().toISOString()).toBe(true)
      // Loaded, not promoted: the alias is never touched by a load.
      expect(await repo.readPromoted()).toBeUndefined()
      expect(await repo.readKept()).toEqual([A])
    })

    it('keeps at most `concurrency` bulk requests in flight; without a merge there is no merge step', async () => {
      let inFlight = 0
      let most = 0
      const repo = await repoOf(
        await transport(async (r, send) => {
          if (r.path.endsWith('/_forcemerge')) throw new Error('merged')
          if (!r.path.endsWith('/_bulk')) return send()
          most = Math.max(most, ++inFlight)
          await new Promise((res) => setTimeout(res, 30))
          try {
            return await send()
          } finally {
            inFlight--
          }
        })
      )
      const r = await loadRelease(repo, dataDir(), A, { bulkDocs: 2, concurrency: 3, forceMerge: false })
      expect(most).toBe(3)
      expect(Object.keys(r.timingsMs)).toEqual(['create', 'bulk', 'verify', 'record'])
      const two = await repoOf(
        await transport(async (r, send) => {
          if (!r.path.endsWith('/_bulk')) return send()
          most = Math.max(most, ++inFlight)
          await new Promise((res) => setTimeout(res, 30))
          try {
            return await send()
          } finally {
            inFlight--
          }
        })
      )
      most = 0
      await loadRelease(two, dataDir(), A, { bulkDocs: 2 })
      expect(most).toBe(2)
    })

    it('sends 2000 documents a request by default', async () => {
      const bulks: number[] = []
      const repo = await repoOf(await transport(async (r, send) => (r.path.endsWith('/_bulk') && bulks.push(r.ndjson!.split('\n').length - 1), send())))
      await loadRelease(repo, dataDir(), A)
      expect(bulks).toEqual([26])
    })

    it('reuses a complete load, taking over a rebuilt manifest but keeping when it was loaded', async () => {
      const data = dataDir()
      const repo = await repoOf()
      await loadRelease(repo, data, A)
      const before = (await repo.record(A))!
      const writes: string[] = []
      const watched = await repoOf(
        await transport(async (r, send) => (r.method !== 'GET' && r.method !== 'HEAD' && writes.push(`${r.method} ${r.path}`), send())),
        repo.names.prefix
      )
      const logs: string[] = []
      expect(await loadRelease(watched, data, A, { log: (m) => logs.push(m) })).toEqual({ id: A, index: before.index, facts: 13, reused: true, retries: 0, timingsMs: {} })
      expect(writes).toEqual([])
      expect(logs).toEqual([])

      const dir = mkdtempSync(join(tmpdir(), 'hwfacts-engine-rebuilt-'))
      dirs.push(dir)
      writeRelease(dir, A, {})
      const rebuilt = new DataDir(dir)
      const manifest = rewriteManifest(rebuilt, A, { createdAt: '2026-11-27T00:00:00.000Z' })
      expect((await loadRelease(watched, rebuilt, A, { log: (m) => logs.push(m) })).reused).toBe(true)
      expect(logs).toEqual([`release ${A} is already loaded; its record now carries this build's manifest`])
      expect(writes).toEqual([`PUT /${repo.names.releases}/_doc/${A}`])
      const after = (await repo.record(A))!
      expect(after).toMatchObject({ manifest, createdAt: '2026-11-27T00:00:00.000Z', loadedAt: before.loadedAt, facts: 13 })
    })

    it('loads again when the record is of other mappings, counts other facts, or the index is gone or short', async () => {
      const data = dataDir()
      const repo = await repoOf()
      await loadRelease(repo, data, A)
      const index = repo.names.release(A)
      const rec = (await repo.record(A))!
      const put = (over: Partial<typeof rec>) => repo.engine.request({ method: 'PUT', path: `/${repo.names.releases}/_doc/${A}`, querystring: { refresh: 'true' }, body: { ...rec, ...over } })
      const logs: string[] = []
      const reload = async () => (await loadRelease(repo, data, A, { log: (m) => logs.push(m) })).reused

      await put({ format: 'hwfacts-facts/0' })
      expect(await reload()).toBe(false)
      expect(logs.splice(0)).toEqual([`reloading ${index}: it was loaded with other mappings or is incomplete`])
      expect((await repo.record(A))!.format).toBe(FACTS_FORMAT)

      await put({ facts: 12 })
      expect(await reload()).toBe(false)
      expect(logs.splice(0)).toEqual([`reloading ${index}: it was loaded with other mappings or is incomplete`])
      expect((await repo.record(A))!.facts).toBe(13)

      await repo.engine.request({ method: 'DELETE', path: `/${index}` })
      expect(await reload()).toBe(false)
      expect(logs.splice(0)).toEqual([])
      expect(await reload()).toBe(true)

      // The record claims 13 facts of the current format, but the index holds one fewer.
      await repo.engine.request({ method: 'PUT', path: `/${index}/_settings`, body: { index: { 'blocks.write': false } } })
      await repo.engine.request({ method: 'DELETE', path: `/${index}/_doc/3`, querystring: { refresh: 'true' } })
      expect(await reload()).toBe(false)
      expect(await repo.engine.request<{ count: number }>({ method: 'GET', path: `/${index}/_count` })).toMatchObject({ body: { count: 13 } })
    })

    it('discards the index of an interrupted load and starts over; an unrecorded index is listed as unfinished', async () => {
      const data = dataDir()
      let fail = true
      const repo = await repoOf(await transport(async (r, send) => (fail && r.path.endsWith('/_bulk') && r.ndjson!.includes('"_id":"4"') ? Promise.reject(new EngineError(400, 'injected', 'injected failure')) : send())))
      await expect(loadRelease(repo, data, A, { bulkDocs: 4, concurrency: 1 })).rejects.toThrow('injected failure')
      expect(await repo.record(A)).toBeUndefined()
      expect(await repo.readKept()).toEqual([])
      const listed = await listReleases(repo)
      expect(listed).toEqual([{ id: A, index: repo.names.release(A), promoted: false, loaded: false, documents: 0 }])
      fail = false
      const logs: string[] = []
      const r = await loadRelease(repo, data, A, { log: (m) => logs.push(m) })
      expect(r.reused).toBe(false)
      expect(logs).toEqual([`discarding the unfinished index ${repo.names.release(A)} of an earlier load`])
      expect(await repo.readKept()).toEqual([A])
    })

    it('a chunk that fails stops reading: no later chunk is sent', async () => {
      const sent: string[] = []
      const repo = await repoOf(
        await transport(async (r, send) => {
          if (!r.path.endsWith('/_bulk')) return send()
          sent.push(/"_id":"(\d+)"/.exec(r.ndjson!)![1]!)
          if (sent.length === 1) throw new EngineError(400, 'injected', 'injected failure')
          return send()
        })
      )
      await expect(loadRelease(repo, dataDir(), A, { bulkDocs: 2, concurrency: 1 })).rejects.toThrow('injected failure')
      expect(sent).toEqual(['0'])
      sent.length = 0
      // The last, partial chunk alone failing: nothing is recorded.
      const last = await repoOf(
        await transport(async (r, send) => {
          if (r.path.endsWith('/_bulk') && r.ndjson!.includes('"_id":"12"')) throw new EngineError(400, 'injected', 'last chunk')
          return send()
        })
      )
      await expect(loadRelease(last, dataDir(), A, { bulkDocs: 5, concurrency: 2 })).rejects.toThrow('last chunk')
      expect(await last.record(A)).toBeUndefined()
    })

    it('retries a transiently failed request and re-sends only the documents rejected as overloaded; a refused document fails the load', async () => {
      vi.spyOn(Math, 'random').mockReturnValue(0)
      let n = 0
      const resent: number[] = []
      const repo = await repoOf(
        await transport(async (r, send) => {
          if (!r.path.endsWith('/_bulk')) return send()
          n++
          if (n === 1) throw new EngineError(503, 'unavailable', 'try later')
          resent.push(r.ndjson!.split('\n').length - 1)
          const res = (await send()) as { status: number; body: { errors: boolean; items: Array<{ index: { status: number; error?: unknown } }> } }
          if (n !== 2) return res
          res.body.items.forEach((it, i) => i % 2 === 0 && (it.index = { status: i === 0 ? 429 : 503, error: { type: 'es_rejected_execution_exception' } }))
          return { status: res.status, body: { ...res.body, errors: true } }
        })
      )
      const r = await loadRelease(repo, dataDir(), A, { bulkDocs: 20, concurrency: 1 })
      expect(r.retries).toBe(2)
      // 13 documents, then the 7 at even positions again.
      expect(resent).toEqual([26, 14])
      expect(r.facts).toBe(13)

      const refused = await repoOf(
        await transport(async (r, send) => {
          const res = (await send()) as { status: number; body: { errors: boolean; items: Array<{ index: { status: number; error?: unknown } }> } }
          if (!r.path.endsWith('/_bulk')) return res
          res.body.items[1]!.index = { status: 400, error: { type: 'mapper_parsing_exception', reason: 'bad field' } }
          res.body.items[2]!.index = { status: 409 }
          return { status: res.status, body: { ...res.body, errors: true } }
        })
      )
      await expect(loadRelease(refused, dataDir(), A, { bulkDocs: 20 })).rejects.toMatchObject({ status: 400, type: 'mapper_parsing_exception', message: 'document {"index":{"_id":"1"}}: bad field' })
      const noReason = await repoOf(
        await transport(async (r, send) => {
          const res = (await send()) as { status: number; body: { errors: boolean; items: Array<{ index: { status: number; error?: unknown } }> } }
          if (!r.path.endsWith('/_bulk')) return res
          res.body.items[2]!.index = { status: 409 }
          return { status: res.status, body: { ...res.body, errors: true } }
        })
      )
      await expect(loadRelease(noReason, dataDir(), A, { bulkDocs: 20 })).rejects.toMatchObject({ status: 409, type: 'bulk_item', message: 'document {"index":{"_id":"2"}}: 409' })
    })

    it('gives up on a non-transient error at once, and after 8 attempts on a transient one', async () => {
      vi.spyOn(Math, 'random').mockReturnValue(0)
      const sleeps: number[] = []
      const realSetTimeout = globalThis.setTimeout
      vi.spyOn(globalThis, 'setTimeout').mockImplementation(((fn: () => void, ms?: number) => {
        if (ms !== undefined && ms >= 100) sleeps.push(ms)
        return realSetTimeout(fn, ms !== undefined && ms >= 100 ? 0 : ms)
      }) as typeof setTimeout)
      let bulks = 0
      const repo = await repoOf(await transport(async (r, send) => (r.path.endsWith('/_bulk') ? (bulks++, Promise.reject(new EngineError(429, 'too_many', 'busy'))) : send())))
      await expect(loadRelease(repo, dataDir(), A)).rejects.toThrow('busy')
      expect(bulks).toBe(8)
      // 250 ms doubling up to 8 s, times 0.5 to 1 (here 0.5).
      expect(sleeps.filter((ms) => ms < 60_000)).toEqual([125, 250, 500, 1000, 2000, 4000, 4000])

      bulks = 0
      const rejecting = await repoOf(
        await transport(async (r, send) => {
          const res = (await send()) as { status: number; body: { errors: boolean; items: Array<{ index: { status: number } }> } }
          if (!r.path.endsWith('/_bulk')) return res
          bulks++
          res.body.items[0]!.index = { status: 429 }
          return { status: res.status, body: { ...res.body, errors: true } }
        })
      )
      await expect(loadRelease(rejecting, dataDir(), A)).rejects.toMatchObject({ status: 429, type: 'bulk_rejected', message: '1 documents still rejected after 8 attempts' })
      expect(bulks).toBe(8)

      bulks = 0
      const broken = await repoOf(await transport(async (r, send) => (r.path.endsWith('/_bulk') ? (bulks++, Promise.reject(new Error('not an engine error'))) : send())))
      await expect(loadRelease(broken, dataDir(), A)).rejects.toThrow('not an engine error')
      expect(bulks).toBe(1)
    })

    it('refuses a release the data dir does not keep, and one whose facts do not match its manifest', async () => {
      const repo = await repoOf()
      await expect(loadRelease(repo, dataDir(), 'dddddddddddddddd')).rejects.toThrow(new EngineCommandError(`no kept release dddddddddddddddd in ${dataDir().root}`))
      await expect(loadRelease(repo, dataDir(), '../releases')).rejects.toThrow(EngineCommandError)
      await expect(loadRelease(repo, dataDir(), C)).rejects.toThrow(`index ${repo.names.release(C)} holds 13 documents, 13 rows were read, the manifest counts 14: not recorded`)
      expect(await repo.record(C)).toBeUndefined()
    })

    it('does not reload the promoted release under readers; the records index made by another loader first is fine', async () => {
      const data = dataDir()
      const repo = await repoOf()
      await loadRelease(repo, data, A)
      await promoteRelease(repo, A)
      const rec = (await repo.record(A))!
      await repo.engine.request({ method: 'PUT', path: `/${repo.names.releases}/_doc/${A}`, querystring: { refresh: 'true' }, body: { ...rec, format: 'old' } })
      await expect(loadRelease(repo, data, A)).rejects.toThrow(
        new EngineCommandError(`release ${A} is promoted but its index ${repo.names.release(A)} is incomplete or has older mappings; promote another release, retire this one, then load it again`)
      )
      // The records index exists, but this loader's check said it did not (another loader won the race).
      const racing = await repoOf(await transport(async (r, send) => (r.method === 'HEAD' && r.path === `/${repo.names.releases}` ? { status: 404, body: '' } : send())), repo.names.prefix)
      expect((await loadRelease(racing, data, B)).reused).toBe(false)
      const other = await repoOf(await transport(async (r, send) => (r.method === 'PUT' && r.path.endsWith('-releases') ? Promise.reject(new EngineError(400, 'illegal_argument_exception', 'no')) : send())))
      await expect(loadRelease(other, data, B)).rejects.toThrow('no')
    })
  })

  describe('promoting, retiring and listing', () => {
    it('promotes a loaded, complete release with one alias move and says which it replaced', async () => {
      const data = dataDir()
      const repo = await repoOf()
      await expect(promoteRelease(repo, A)).rejects.toThrow(new EngineCommandError(`release ${A} is not loaded into the engine (run: engine load ${A})`))
      await expect(promoteRelease(repo, 'nope')).rejects.toThrow(new EngineCommandError(`release nope is not loaded into the engine (run: engine load nope)`))
      await loadRelease(repo, data, A)
      await loadRelease(repo, data, B)
      const moves: unknown[] = []
      const watched = await repoOf(await transport(async (r, send) => (r.path === '/_aliases' && moves.push(r.body), send())), repo.names.prefix)
      expect(await promoteRelease(watched, A)).toEqual({ previous: undefined })
      await expect(promoteRelease(watched, B)).rejects.toThrow(new EngineCommandError(`release ${B} is partial (its sources had problems); not promoted (use --allow-partial to override)`))
      expect(await promoteRelease(watched, B, { allowPartial: true })).toEqual({ previous: A })
      expect(await repo.aliasHolders()).toEqual([repo.names.release(B)])
      expect(moves.length).toBe(2)
      expect(await promoteRelease(watched, A, { allowPartial: false })).toEqual({ previous: B })
      expect(await repo.aliasHolders()).toEqual([repo.names.release(A)])

      const rec = (await repo.record(B))!
      expect(rec.complete).toBe(false)
      await repo.engine.request({ method: 'PUT', path: `/${repo.names.releases}/_doc/${B}`, querystring: { refresh: 'true' }, body: { ...rec, facts: 12 } })
      await expect(promoteRelease(repo, B, { allowPartial: true })).rejects.toThrow(new EngineCommandError(`index ${repo.names.release(B)} holds 13 documents, its record says 12: not promoted`))
      expect(await repo.readPromoted()).toBe(A)
    })

    it('retires a release that is not promoted, record and index; refuses the promoted one and unknown ones', async () => {
      const data = dataDir()
      const repo = await repoOf()
      await expect(retireRelease(repo, 'nope')).rejects.toThrow(new EngineCommandError('nope is not a release id'))
      await expect(retireRelease(repo, A)).rejects.toThrow(new EngineCommandError(`no release ${A} in the engine`))
      await loadRelease(repo, data, A)
      await loadRelease(repo, data, B)
      await promoteRelease(repo, A)
      await expect(retireRelease(repo, A)).rejects.toThrow(new EngineCommandError(`release ${A} is promoted; promote another release before retiring it`))
      await retireRelease(repo, B)
      expect(await repo.record(B)).toBeUndefined()
      expect(await repo.readKept()).toEqual([A])
      expect((await repo.engine.request({ method: 'HEAD', path: `/${repo.names.release(B)}`, ignore: [404] })).status).toBe(404)
      // A record without its index, and an index without its record, are each retired.
      await loadRelease(repo, data, B)
      await repo.engine.request({ method: 'DELETE', path: `/${repo.names.release(B)}` })
      await retireRelease(repo, B)
      expect(await repo.readKept()).toEqual([A])
      await repo.engine.request({ method: 'PUT', path: `/${repo.names.release(B)}` })
      await retireRelease(repo, B)
      expect((await repo.engine.request({ method: 'HEAD', path: `/${repo.names.release(B)}`, ignore: [404] })).status).toBe(404)
    })

    it('lists every release index by id: promoted, loaded with its record, or unfinished with its documents', async () => {
      const data = dataDir()
      const repo = await repoOf()
      expect(await listReleases(repo)).toEqual([])
      await loadRelease(repo, data, B)
      await loadRelease(repo, data, A)
      await promoteRelease(repo, A)
      await repo.engine.request({ method: 'PUT', path: `/${repo.names.release(C)}` })
      // Not ours: another prefix's index, and an index of this prefix not named by a release id.
      await repo.engine.request({ method: 'PUT', path: `/${repo.names.prefix}-facts-tmp` })
      const recA = (await repo.record(A))!
      const recB = (await repo.record(B))!
      expect(await listReleases(repo)).toEqual([
        { id: A, index: recA.index, promoted: true, loaded: true, documents: 13, facts: 13, createdAt: MANIFEST.createdAt, loadedAt: recA.loadedAt, complete: true },
        { id: B, index: recB.index, promoted: false, loaded: true, documents: 13, facts: 13, createdAt: MANIFEST.createdAt, loadedAt: recB.loadedAt, complete: false },
        { id: C, index: repo.names.release(C), promoted: false, loaded: false, documents: 0 }
      ])
    })
  })

  describe('the engine command', () => {
    /** Runs `hwfacts engine …` under `prefix`, returning the exit code, stdout and stderr. */
    async function cli(prefix: string, ...args: string[]): Promise<[number, string, string]> {
      const out: string[] = []
      const err: string[] = []
      vi.spyOn(process.stdout, 'write').mockImplementation((s) => (out.push(String(s)), true))
      vi.spyOn(process.stderr, 'write').mockImplementation((s) => (err.push(String(s)), true))
      vi.stubEnv('HWFACTS_INDEX_PREFIX', prefix)
      vi.stubEnv('ELASTICSEARCH_URL', '')
      // `--url U` (first) stands for another engine address.
      vi.stubEnv('OPENSEARCH_URL', args[1] === '--url' ? args[2]! : engine!.url)
      try {
        return [await engineCommand(args[1] === '--url' ? [args[0]!, ...args.slice(3)] : args), out.join(''), err.join('')]
      } finally {
        vi.restoreAllMocks()
        vi.unstubAllEnvs()
      }
    }

    it('loads the promoted release, promotes it, lists, promotes another and retires', async () => {
      const data = dataDir()
      const p = freshPrefix()
      const repo = await repoOf(undefined, p)
      const [code, out, err] = await cli(p, 'load', '--data-dir', data.root, '--bulk-docs', '1', '--concurrency', '1', '--promote')
      expect([code, out]).toEqual([0, `${A}\n`])
      const lines = err.split('\n')
      // One line per tenth reached: 5/13 and 9/13 (floor 3.8 and 6.9) fall in the tenths of 4/13 and 8/13.
      expect(lines.slice(0, 11)).toEqual([1, 2, 3, 4, 6, 7, 8, 10, 11, 12, 13].map((d) => `hwfacts: load ${d}/13`))
      expect(lines[11]).toMatch(new RegExp(`^hwfacts: loaded 13 facts into ${p}-facts-${A}, 0 bulk retries; \\{"create":\\d+,"bulk":\\d+,"verify":\\d+,"merge":\\d+,"record":\\d+\\}$`))
      expect(lines.slice(12)).toEqual([`hwfacts: promoted ${A}`, ''])
      expect(await repo.readPromoted()).toBe(A)

      // A partial release loads, but is not promoted without --allow-partial.
      const [c2, o2, e2] = await cli(p, 'load', B, '--data-dir', data.root, '--no-merge', '--promote', '--bulk-docs=2', '--concurrency=1')
      expect([c2, o2]).toEqual([1, ''])
      expect(e2).toMatch(new RegExp(`^${[2, 4, 6, 8, 10, 12, 13].map((d) => `hwfacts: load ${d}/13\\n`).join('')}hwfacts: loaded 13 facts into ${p}-facts-${B}, 0 bulk retries; \\{"create":\\d+,"bulk":\\d+,"verify":\\d+,"record":\\d+\\}\\nhwfacts: release ${B} is partial \\(its sources had problems\\); not promoted \\(use --allow-partial to override\\)\\n$`))
      expect(await cli(p, 'load', B, '--data-dir', data.root, '--promote', '--allow-partial')).toEqual([0, `${B}\n`, `hwfacts: release ${B} is already loaded in ${p}-facts-${B}\nhwfacts: promoted ${B} (was ${A})\n`])
      expect(await cli(p, 'load', B, '--data-dir', data.root, '--promote', '--allow-partial')).toEqual([0, `${B}\n`, `hwfacts: release ${B} is already loaded in ${p}-facts-${B}\nhwfacts: promoted ${B}\n`])
      await repo.engine.request({ method: 'PUT', path: `/${p}-facts-${C}` })
      const recA = (await repo.record(A))!
      expect(await cli(p, 'list')).toEqual([0, `  ${A}  ${recA.createdAt}  13 facts\n* ${B}  ${MANIFEST.createdAt}  13 facts  PARTIAL\n  ${C}  unfinished load (0 documents; retire it or load again)\n`, ''])
      expect(await cli(p, 'promote', A)).toEqual([0, `promoted ${A} (was ${B})\n`, ''])
      expect(await cli(p, 'promote', A)).toEqual([0, `promoted ${A}\n`, ''])
      expect(await cli(p, 'promote', B)).toEqual([1, '', `hwfacts: release ${B} is partial (its sources had problems); not promoted (use --allow-partial to override)\n`])
      expect(await cli(p, 'promote', B, '--allow-partial')).toEqual([0, `promoted ${B} (was ${A})\n`, ''])
      expect(await cli(p, 'retire', A)).toEqual([0, `retired ${A}\n`, ''])
      expect(await cli(p, 'retire', B)).toEqual([1, '', `hwfacts: release ${B} is promoted; promote another release before retiring it\n`])
      expect(await repo.readKept()).toEqual([B])
    })

    it('usage, missing arguments, bad numbers, no engine, and errors that are not the command\'s', async () => {
      const data = dataDir()
      const p = freshPrefix()
      const [c0, o0] = await cli(p)
      expect(c0).toBe(2)
      expect(o0).toMatch(/^usage:\n  hwfacts engine load /)
      expect(o0.endsWith('retire deletes a release that is not promoted.\n')).toBe(true)
      expect(await cli(p, '--help')).toEqual([0, o0, ''])
      expect(await cli(p, '-h', 'list')).toEqual([0, o0, ''])
      for (const args of [['promote'], ['retire'], ['frobnicate']]) expect(await cli(p, ...args)).toEqual([2, '', o0])
      for (const [flag, v] of [['bulk-docs', '0'], ['bulk-docs', '2.5'], ['concurrency', '-1'], ['concurrency', 'x']])
        expect(await cli(p, 'load', A, '--data-dir', data.root, `--${flag}=${v}`)).toEqual([1, '', `hwfacts: --${flag} must be a positive integer\n`])
      // Without --promote the alias stays where it is (nowhere here).
      const [c3, o3] = await cli(p, 'load', A, '--data-dir', data.root)
      expect([c3, o3]).toEqual([0, `${A}\n`])
      expect(await (await repoOf(undefined, p)).readPromoted()).toBeUndefined()
      const empty = mkdtempSync(join(tmpdir(), 'hwfacts-engine-empty-'))
      dirs.push(empty)
      expect(await cli(p, 'load', '--data-dir', empty)).toEqual([1, '', `hwfacts: no release id given and none is promoted in ${empty}\n`])
      expect(await cli(p, 'retire', 'x')).toEqual([1, '', 'hwfacts: x is not a release id\n'])
      vi.stubEnv('OPENSEARCH_URL', '')
      const out: string[] = []
      vi.spyOn(process.stderr, 'write').mockImplementation((s) => (out.push(String(s)), true))
      vi.stubEnv('ELASTICSEARCH_URL', '')
      try {
        expect(await engineCommand(['list'])).toBe(2)
      } finally {
        vi.restoreAllMocks()
        vi.unstubAllEnvs()
      }
      expect(out).toEqual(['hwfacts: set ELASTICSEARCH_URL or OPENSEARCH_URL\n'])
      // An engine error is reported as the command's failure; anything else is thrown.
      const [c1, o1, e1] = await cli(p, 'list', '--url', 'http://127.0.0.1:1')
      expect([c1, o1]).toEqual([1, ''])
      expect(e1).toMatch(/^hwfacts: \w+: .*ECONNREFUSED.*\n$/)
      const junk = join(data.root, 'releases', 'eeeeeeeeeeeeeeee')
      mkdirSync(junk, { recursive: true })
      writeFileSync(join(junk, 'release.sqlite'), 'not a database')
      await expect(cli(p, 'load', 'eeeeeeeeeeeeeeee', '--data-dir', data.root)).rejects.toThrow(/not a database/)
      await expect(cli('Bad', 'list')).rejects.toThrow('index prefix "Bad" must be')
    })
  })
})
