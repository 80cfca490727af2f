import { createHash } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest'
import { StoreError } from '../../src/store/errors.js'
import { hashFiles } from '../../src/store/hash-files.js'
import { factDocument } from '../../src/store/search-engine/document.js'
import { IndexNames } from '../../src/store/search-engine/names.js'
import { factRows, factSearchBody } from '../../src/store/search-engine/query.js'
import { EngineRepository } from '../../src/store/search-engine/repository.js'
import { adaptClient, EngineError, openTransport, toEngineError, type EngineRequest, type EngineTransport } from '../../src/store/search-engine/transport.js'
import { selectionOf, type FactQuery } from '../../src/store/types.js'

/*
 * The search-engine store's parts that need no engine: index names, the document of a fact, the
 * search request of a FactQuery (its clauses as the Elasticsearch/OpenSearch query DSL states them),
 * the transport seam (request building, error mapping, the two clients against a local HTTP server
 * that answers as the engine would), the repository's re-read memo on a scripted transport, and the
 * store's small shared pieces (StoreError, selectionOf, hashFiles). test/store/engine-edges.test.ts
 * runs the same store and the loader against a real OpenSearch.
 */

const ID = '0123456789abcdef'

describe('index names', () => {
  it('accepts lowercase letters, digits, - and _ up to 64 characters, starting with a letter or digit', () => {
    for (const p of ['a', '9', 'hw-facts_2', 'x'.repeat(64)]) expect(new IndexNames(p).prefix).toBe(p)
    for (const p of ['', 'A', 'hwFacts', '-a', '_a', 'a.b', 'a b', 'x'.repeat(65), 'abc\n', '\nabc', 'é'])
      expect(() => new IndexNames(p), JSON.stringify(p)).toThrow(`index prefix ${JSON.stringify(p)} must be lowercase letters, digits, - or _ (at most 64)`)
  })

  it('names the release indices, the alias, the records index and the pattern after the prefix', () => {
    const n = new IndexNames('hw')
    expect([n.release(ID), n.alias, n.releases, n.releasePattern]).toEqual([`hw-facts-${ID}`, 'hw-facts', 'hw-releases', 'hw-facts-*'])
  })

  it('reads the release id back only from an index of its own prefix holding a release id', () => {
    const n = new IndexNames('p')
    expect(n.idOf(`p-facts-${ID}`)).toBe(ID)
    // Same length as the head, another prefix: not ours.
    expect(n.idOf(`q-facts-${ID}`)).toBeUndefined()
    expect(n.idOf(`xp-facts-${ID}`)).toBeUndefined()
    expect(n.idOf('p-facts-')).toBeUndefined()
    expect(n.idOf('p-facts-0123456789ABCDEF')).toBeUndefined()
    expect(n.idOf(`p-facts-${ID}0`)).toBeUndefined()
    expect(n.idOf(`p-releases`)).toBeUndefined()
  })
})

describe('the document of a fact', () => {
  const body = JSON.stringify({ id: 'f00d', topic: 'registers', name: 'UART0.CTRL_A', value: { description: 'Control A: enable, mode.', fields: ['EN', 'Mode'] } })
  const row = { ord: 7, target: 'alpha', topic: 'registers', name_key: 'uart0.ctrl_a', package: null, revisions: null, tokens: 42, peripherals: [] as string[], body }

  it('holds the columns, the id of the body, and the terms of the name then of the value', () => {
    // Terms: lowercase runs of [a-z0-9], the name's first, then the value's not already there (src/model/fact-terms.ts).
    expect(factDocument(row)).toStrictEqual({
      ord: 7,
      id: 'f00d',
      target: 'alpha',
      topic: 'registers',
      name_key: 'uart0.ctrl_a',
      terms: ['uart0', 'ctrl', 'a', 'control', 'enable', 'mode', 'en'],
      tokens: 42,
      body
    })
  })

  it('holds package, revisions and peripherals only where the fact has them', () => {
    const d = factDocument({ ...row, package: 'QFN32', revisions: ' 0x01 * ', peripherals: ['UART0', 'UART1'] })
    expect(d).toMatchObject({ package: 'QFN32', revisions: ' 0x01 * ', peripherals: ['UART0', 'UART1'] })
    expect(Object.keys(d)).toEqual(['ord', 'id', 'target', 'topic', 'name_key', 'package', 'revisions', 'peripherals', 'terms', 'tokens', 'body'])
    // An empty package or revisions string is still a value (only SQL NULL is absent).
    expect(factDocument({ ...row, package: '', revisions: '' })).toMatchObject({ package: '', revisions: '' })
  })
})

const q = (more: Partial<FactQuery> = {}): FactQuery => ({ target: 'alpha', topic: 'registers', names: [], prefixes: [], terms: [], limit: 10, ...more })
const base = [{ term: { target: 'alpha' } }, { term: { topic: 'registers' } }]

describe('the search request of a FactQuery', () => {
  it('without filters or terms: the target and topic, in ord order, the page size, no total, the three stored fields', () => {
    expect(factSearchBody(q())).toStrictEqual({ query: { bool: { filter: base } }, sort: [{ ord: 'asc' }], size: 10, track_total_hits: false, _source: ['ord', 'tokens', 'body'] })
  })

  it('names match their lowercased keys and prefixes the byte range below the prefix followed by U+FFFF, either one', () => {
    const b = factSearchBody(q({ names: ['UART.Ctrl', 'spi.cr'], prefixes: ['Tim', 'gp*'] })) as { query: { bool: { filter: unknown[] } } }
    expect(b.query.bool.filter).toStrictEqual([
      ...base,
      {
        bool: {
          should: [{ terms: { name_key: ['uart.ctrl', 'spi.cr'] } }, { range: { name_key: { gte: 'tim', lt: 'tim\uffff' } } }, { range: { name_key: { gte: 'gp*', lt: 'gp*\uffff' } } }],
          minimum_should_match: 1
        }
      }
    ])
    const onlyPrefix = factSearchBody(q({ prefixes: ['A'] })) as { query: { bool: { filter: unknown[] } } }
    expect(onlyPrefix.query.bool.filter[2]).toStrictEqual({ bool: { should: [{ range: { name_key: { gte: 'a', lt: 'a\uffff' } } }], minimum_should_match: 1 } })
    const onlyName = factSearchBody(q({ names: ['B'] })) as { query: { bool: { filter: unknown[] } } }
    expect(onlyName.query.bool.filter[2]).toStrictEqual({ bool: { should: [{ terms: { name_key: ['b'] } }], minimum_should_match: 1 } })
  })

  it('package and peripheral are terms as given (the package field folds case itself)', () => {
    const b = factSearchBody(q({ package: 'LQFP48', peripheral: 'UART0' })) as { query: { bool: { filter: unknown[] } } }
    expect(b.query.bool.filter).toStrictEqual([...base, { term: { package: 'LQFP48' } }, { term: { peripherals: 'UART0' } }])
  })

  it('a silicon revision: no revisions, or the code listed, or `*` and not `!code` (wildcards with * ? \\ escaped)', () => {
    const b = factSearchBody(q({ siliconRevision: '0x0*?\\' })) as { query: { bool: { filter: unknown[] } } }
    const c = '0x0\\*\\?\\\\'
    expect(b.query.bool.filter).toStrictEqual([
      ...base,
      {
        bool: {
          should: [
            { bool: { must_not: [{ exists: { field: 'revisions' } }] } },
            { wildcard: { revisions: { value: `* ${c} *` } } },
            { bool: { filter: [{ wildcard: { revisions: { value: '* \\* *' } } }, { bool: { must_not: [{ wildcard: { revisions: { value: `* !${c} *` } } }] } }] } }
          ],
          minimum_should_match: 1
        }
      }
    ])
  })

  it('terms: one constant-score prefix clause each, at least one matching, best first then ord, continuing after (score, ord)', () => {
    expect(factSearchBody(q({ terms: ['uart', 'en'], after: { score: 2, ord: 5 }, limit: 3 }))).toStrictEqual({
      query: {
        bool: {
          filter: base,
          should: [{ constant_score: { filter: { prefix: { terms: 'uart' } }, boost: 1 } }, { constant_score: { filter: { prefix: { terms: 'en' } }, boost: 1 } }],
          minimum_should_match: 1
        }
      },
      sort: [{ _score: 'desc' }, { ord: 'asc' }],
      search_after: [2, 5],
      size: 3,
      track_total_hits: false,
      _source: ['ord', 'tokens', 'body']
    })
    expect(factSearchBody(q({ after: { score: 0, ord: 9 } }))).toMatchObject({ search_after: [9], sort: [{ ord: 'asc' }] })
  })

  it('rows: the score is the first sort value with terms, 0 without', () => {
    const hits = [{ _source: { ord: 3, tokens: 11, body: '{"a":1}' }, sort: [2, 3] }]
    expect(factRows(q({ terms: ['x'] }), hits)).toStrictEqual([{ ord: 3, score: 2, tokens: 11, body: '{"a":1}' }])
    expect(factRows(q(), [{ ...hits[0]!, sort: [3] }])).toStrictEqual([{ ord: 3, score: 0, tokens: 11, body: '{"a":1}' }])
  })
})

describe('engine errors', () => {
  it('keeps status, type and message, and retries only overload, server errors and no answer', () => {
    const e = new EngineError(503, 'unavailable', 'down')
    expect([e.name, e.status, e.type, e.message, e instanceof Error]).toEqual(['EngineError', 503, 'unavailable', 'down', true])
    const transient = (s: number) => new EngineError(s, 't', 'm').transient
    expect([0, 429, 500, 502, 599].map(transient)).toEqual([true, true, true, true, true])
    expect([200, 400, 404, 408, 428, 430, 499].map(transient)).toEqual([false, false, false, false, false, false, false])
  })

  it("maps the clients' errors: the status with a response, the engine's type and reason, else the error's name and message", () => {
    const same = new EngineError(400, 'x', 'y')
    expect(toEngineError(same)).toBe(same)
    const shape = (e: EngineError) => [e.status, e.type, e.message]
    expect(shape(toEngineError({ name: 'ResponseError', statusCode: 404, body: { error: { type: 'index_not_found_exception', reason: 'no such index [x]' } }, message: 'm' }))).toEqual([
      404,
      'index_not_found_exception',
      'index_not_found_exception: no such index [x]'
    ])
    expect(shape(toEngineError({ name: 'ResponseError', statusCode: 400, body: { error: 'bad request text' }, message: 'm' }))).toEqual([400, 'ResponseError', 'ResponseError: bad request text'])
    expect(shape(toEngineError({ name: 'ResponseError', statusCode: 500, body: { error: { type: 'boom' } }, message: 'the message' }))).toEqual([500, 'boom', 'boom: the message'])
    expect(shape(toEngineError({ name: 'ResponseError', statusCode: 500, body: { error: { reason: 'why' } } }))).toEqual([500, 'ResponseError', 'ResponseError: why'])
    expect(shape(toEngineError({ statusCode: '500', body: {}, message: 'm' }))).toEqual([0, 'error', 'error: m'])
    expect(shape(toEngineError(new Error('connect ECONNREFUSED')))).toEqual([0, 'Error', 'Error: connect ECONNREFUSED'])
    expect(shape(toEngineError('plain'))).toEqual([0, 'error', 'error: plain'])
    expect(shape(toEngineError({ body: 'not an object' }))).toEqual([0, 'error', 'error: [object Object]'])
    expect(shape(toEngineError({ name: 'ResponseError', statusCode: 502, body: { error: null }, message: 'bad gateway' }))).toEqual([502, 'ResponseError', 'ResponseError: bad gateway'])
  })
})

describe('the transport seam', () => {
  const sent: Array<[unknown, unknown]> = []
  const t = adaptClient(
    'opensearch',
    async (params, options) => {
      sent.push([params, options])
      if (params.path === '/fail') throw { name: 'ResponseError', statusCode: 409, body: { error: { type: 'conflict', reason: 'exists' } } }
      return { statusCode: params.path === '/none' ? null : 201, body: { ok: true } }
    },
    async () => void sent.push(['closed', null])
  )

  it('passes only what a request sets: body or NDJSON, query string, ignored statuses, timeout and retries', async () => {
    sent.length = 0
    expect(await t.request({ method: 'GET', path: '/a' })).toEqual({ status: 201, body: { ok: true } })
    await t.request({ method: 'POST', path: '/b', body: { q: 1 }, querystring: { x: 'y' }, ignore: [404], timeoutMs: 500, maxRetries: 0 })
    await t.request({ method: 'POST', path: '/c', ndjson: '{}\n', timeoutMs: 0, maxRetries: 3 })
    await t.request({ method: 'POST', path: '/d', body: null })
    expect(sent).toStrictEqual([
      [{ method: 'GET', path: '/a' }, {}],
      [{ method: 'POST', path: '/b', body: { q: 1 }, querystring: { x: 'y' } }, { ignore: [404], requestTimeout: 500, maxRetries: 0 }],
      [{ method: 'POST', path: '/c', bulkBody: '{}\n' }, { maxRetries: 3 }],
      [{ method: 'POST', path: '/d', body: null }, {}]
    ])
    expect(t.flavor).toBe('opensearch')
  })

  it('reports no status as 0, throws EngineErrors, and closes the client', async () => {
    expect((await t.request({ method: 'GET', path: '/none' })).status).toBe(0)
    const err = await t.request({ method: 'GET', path: '/fail' }).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(EngineError)
    expect(err).toMatchObject({ status: 409, type: 'conflict', message: 'conflict: exists' })
    sent.length = 0
    await t.close()
    expect(sent).toEqual([['closed', null]])
  })
})

describe('the two clients against a local server', () => {
  let server: Server
  let url: string
  const hits: string[] = []
  let health = 408
  /** Each path answers as the test needs: JSON with the Elasticsearch product header, 503s, or never. */
  async function start(): Promise<void> {
    if (server) return
    server = createServer((req, res) => {
      hits.push(`${req.method} ${req.url}`)
      if (req.url?.startsWith('/hang') || (req.url?.startsWith('/_cluster/health') && health === 0)) return
      if (req.url?.startsWith('/_cluster/health')) {
        res.writeHead(health, { 'content-type': 'application/json' })
        return void res.end(JSON.stringify({ status: 'red', timed_out: true }))
      }
      const status = req.url?.startsWith('/busy') ? 503 : req.url?.startsWith('/missing') ? 404 : 200
      res.writeHead(status, { 'content-type': 'application/json', 'x-elastic-product': 'Elasticsearch' })
      res.end(JSON.stringify(status === 200 ? { seen: req.url } : { error: { type: status === 404 ? 'index_not_found_exception' : 'unavailable', reason: 'r' }, status }))
    })
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}`
  }
  afterAll(() => server?.close())

  it('connects a repository with the flavor and prefix given', async () => {
    await start()
    const repo = await EngineRepository.connect(url, 'opensearch', 'hw')
    expect([repo.engine.flavor, repo.names.prefix, repo.kind]).toEqual(['opensearch', 'hw', 'search-engine'])
    await repo.close()
  })

  it('health asks the cluster to answer within a second, takes a 408 as an answer, and neither retries nor waits past 2 s', async () => {
    await start()
    const repo = await EngineRepository.connect(url, 'elasticsearch', 'hw')
    health = 408
    hits.length = 0
    expect(await repo.health()).toEqual({ ok: false, detail: 'elasticsearch cluster red' })
    expect(hits).toEqual(['GET /_cluster/health?timeout=1s'])
    health = 503
    hits.length = 0
    await expect(repo.health()).rejects.toMatchObject({ status: 503 })
    expect(hits.length).toBe(1)
    health = 0
    const t0 = performance.now()
    await expect(repo.health()).rejects.toMatchObject({ status: 0 })
    expect(performance.now() - t0).toBeLessThan(6000)
    await repo.close()
  })

  for (const flavor of ['elasticsearch', 'opensearch'] as const) {
    it(`${flavor}: the envelope of an answer, ignored statuses, errors with the engine's type, two retries by default`, async () => {
      await start()
      const t = await openTransport(url, flavor)
      expect(t.flavor).toBe(flavor)
      expect(await t.request({ method: 'GET', path: '/ok', querystring: { a: 1 } })).toEqual({ status: 200, body: { seen: '/ok?a=1' } })
      expect(await t.request({ method: 'GET', path: '/missing', ignore: [404] })).toMatchObject({ status: 404 })
      await expect(t.request({ method: 'GET', path: '/missing' })).rejects.toMatchObject({ status: 404, type: 'index_not_found_exception' })
      hits.length = 0
      await expect(t.request({ method: 'GET', path: '/busy' })).rejects.toMatchObject({ status: 503, transient: true })
      expect(hits).toEqual(['GET /busy', 'GET /busy', 'GET /busy'])
      await t.close()
      // Closed: the client sends nothing more.
      hits.length = 0
      await expect(t.request({ method: 'GET', path: '/ok' })).rejects.toBeInstanceOf(EngineError)
      expect(hits).toEqual([])
      const once = await openTransport(url, flavor, { maxRetries: 0, requestTimeoutMs: 300 })
      hits.length = 0
      await expect(once.request({ method: 'GET', path: '/busy' })).rejects.toMatchObject({ status: 503 })
      expect(hits).toEqual(['GET /busy'])
      const t0 = performance.now()
      await expect(once.request({ method: 'GET', path: '/hang' })).rejects.toMatchObject({ status: 0, transient: true })
      expect(performance.now() - t0).toBeLessThan(5000)
      await once.close()
    })
  }
})

/** A transport answering from `answer`, counting requests; `gate` holds the answers until released. */
function scripted(answer: (r: EngineRequest) => { status: number; body: unknown } | Error): EngineTransport & { requests: EngineRequest[]; closed: number } {
  const t = {
    flavor: 'opensearch' as const,
    requests: [] as EngineRequest[],
    closed: 0,
    async request<T>(r: EngineRequest) {
      t.requests.push(r)
      await Promise.resolve()
      const a = answer(r)
      if (a instanceof Error) throw a
      // As the clients do: an error status not in `ignore` is thrown.
      if (a.status >= 400 && !r.ignore?.includes(a.status)) throw new EngineError(a.status, 'status', `status ${a.status}`)
      return a as { status: number; body: T }
    },
    async close() {
      t.closed++
    }
  }
  return t
}

const RECORD = { id: ID, index: `p-facts-${ID}`, format: 'f', createdAt: 'c', loadedAt: 'l', facts: 1, complete: true, manifest: '{"id":"m"}', catalog: '{"entities":[]}' }

describe('the repository on a scripted transport', () => {
  afterEach(() => vi.useRealTimers())

  it('re-reads the alias and the kept list only after the recheck interval; a failed read is not remembered', async () => {
    vi.useFakeTimers({ toFake: ['performance'] })
    let fail = false
    const t = scripted((r) => (fail ? new EngineError(0, 'down', 'down') : r.path.startsWith('/_alias') ? { status: 200, body: { [`p-facts-${ID}`]: {} } } : { status: 200, body: { hits: { hits: [{ _id: ID }] } } }))
    const repo = new EngineRepository(t, 'p', { recheckMs: 100 })
    expect(await Promise.all([repo.promotedId(), repo.promotedId()])).toEqual([ID, ID])
    expect(await repo.list()).toEqual([ID])
    expect(t.requests.length).toBe(2)
    vi.advanceTimersByTime(99)
    await repo.promotedId()
    expect(t.requests.length).toBe(2)
    vi.advanceTimersByTime(1)
    fail = true
    await expect(repo.promotedId()).rejects.toThrow('down')
    await Promise.resolve()
    fail = false
    expect(await repo.promotedId()).toBe(ID)
    expect(t.requests.length).toBe(4)
  })

  it('a failed read that a newer one replaced does not drop the newer', async () => {
    vi.useFakeTimers({ toFake: ['performance'] })
    let release!: () => void
    const held = new Promise<void>((r) => (release = r))
    let n = 0
    const t = scripted(() => ({ status: 200, body: {} }))
    t.request = (async (r: EngineRequest) => {
      t.requests.push(r)
      if (n++ === 0) {
        await held
        throw new EngineError(0, 'late', 'late')
      }
      return { status: 200, body: { [`p-facts-${ID}`]: {} } }
    }) as EngineTransport['request']
    const repo = new EngineRepository(t, 'p', { recheckMs: 100 })
    const first = repo.promotedId()
    vi.advanceTimersByTime(100)
    expect(await repo.promotedId()).toBe(ID)
    release()
    await expect(first).rejects.toThrow('late')
    await new Promise((r) => setImmediate(r))
    vi.advanceTimersByTime(50)
    expect(await repo.promotedId()).toBe(ID)
    expect(t.requests.length).toBe(2)
  })

  it('a read that fails after a newer one failed and was dropped leaves nothing behind', async () => {
    let release!: () => void
    const held = new Promise<void>((r) => (release = r))
    let n = 0
    const t = scripted(() => ({ status: 200, body: {} }))
    t.request = (async (r: EngineRequest) => {
      t.requests.push(r)
      if (n++ === 0) await held
      throw new EngineError(0, `failed ${n}`, `failed ${n}`)
    }) as EngineTransport['request']
    const unhandled: unknown[] = []
    const on = (e: unknown) => void unhandled.push(e)
    process.on('unhandledRejection', on)
    try {
      const repo = new EngineRepository(t, 'p', { recheckMs: 0 })
      const first = repo.promotedId()
      await expect(repo.promotedId()).rejects.toThrow('failed 2')
      release()
      await expect(first).rejects.toThrow('failed 2')
      await new Promise((r) => setTimeout(r, 20))
    } finally {
      process.off('unhandledRejection', on)
    }
    expect(unhandled).toEqual([])
  })

  it('the default recheck interval is a second', async () => {
    vi.useFakeTimers({ toFake: ['performance'] })
    const t = scripted(() => ({ status: 200, body: {} }))
    const repo = new EngineRepository(t, 'p')
    await repo.promotedId()
    vi.advanceTimersByTime(999)
    await repo.promotedId()
    expect(t.requests.length).toBe(1)
    vi.advanceTimersByTime(1)
    await repo.promotedId()
    expect(t.requests.length).toBe(2)
  })

  it('opens a release from its record, keeps the open store while the release is kept, and forgets failures', async () => {
    let kept = [ID]
    let record: unknown = { found: true, _source: RECORD }
    const t = scripted((r) =>
      r.path === '/p-releases/_search' ? { status: 200, body: { hits: { hits: kept.map((_id) => ({ _id })) } } } : record instanceof Error ? record : { status: 200, body: record }
    )
    const repo = new EngineRepository(t, 'p', { recheckMs: 0 })
    expect(await repo.open('not-an-id')).toBeUndefined()
    expect(await repo.open(ID.toUpperCase())).toBeUndefined()
    expect(t.requests).toEqual([])
    const s = await repo.open(ID)
    expect(s?.manifest).toEqual({ id: 'm' })
    expect(s?.catalog).toEqual({ entities: [] })
    expect(t.requests.map((r) => `${r.method} ${r.path}`)).toEqual([`GET /p-releases/_doc/${ID}`])
    expect(await repo.open(ID)).toBe(s)
    kept = []
    record = { found: false }
    expect(await repo.open(ID)).toBeUndefined()
    // Not remembered as missing: loaded later, it opens.
    record = { found: true, _source: RECORD }
    kept = [ID]
    const again = await repo.open(ID)
    expect(again).toBeDefined()
    expect(again).not.toBe(s)
    kept = []
    record = new EngineError(503, 'down', 'down')
    await expect(repo.open(ID)).rejects.toThrow('down')
    record = { found: true, _source: RECORD }
    kept = [ID]
    expect(await repo.open(ID)).toBeDefined()
    await s!.close()
    await repo.close()
    expect(t.closed).toBe(1)
  })

  it('the kept list holds only release ids, sorted; a missing records index means none', async () => {
    let status = 200
    const t = scripted(() => ({ status, body: status === 404 ? { error: 'x' } : { hits: { hits: [{ _id: 'fedcba9876543210' }, { _id: 'junk' }, { _id: ID }] } } }))
    const repo = new EngineRepository(t, 'p')
    expect(await repo.readKept()).toEqual([ID, 'fedcba9876543210'])
    status = 404
    expect(await repo.readKept()).toEqual([])
    const empty = new EngineRepository(
      scripted(() => ({ status: 200, body: {} })),
      'p'
    )
    expect(await empty.readKept()).toEqual([])
  })

  it('the alias: no holder, one, or a conflict; the record of a release only when found', async () => {
    // The engine's answer when the alias is missing.
    let body: unknown = { error: 'alias [p-facts] missing', status: 404 }
    let status = 404
    const t = scripted(() => ({ status, body }))
    const repo = new EngineRepository(t, 'p')
    expect(await repo.aliasHolders()).toEqual([])
    expect(await repo.readPromoted()).toBeUndefined()
    status = 200
    body = { [`p-facts-${ID}`]: {}, 'p-facts-0000000000000000': {} }
    expect(await repo.aliasHolders()).toEqual(['p-facts-0000000000000000', `p-facts-${ID}`])
    await expect(repo.readPromoted()).rejects.toMatchObject({ status: 500, type: 'alias_conflict', message: `alias p-facts points at 2 indices: p-facts-0000000000000000, p-facts-${ID}` })
    body = { 'other-index': {} }
    expect(await repo.readPromoted()).toBeUndefined()
    body = { found: true, _source: RECORD }
    expect(await repo.record(ID)).toEqual(RECORD)
    status = 404
    expect(await repo.record(ID)).toBeUndefined()
  })

  it('health: ready on green or yellow, with the flavor and status', async () => {
    let body: unknown = { status: 'green' }
    const repo = new EngineRepository(
      scripted(() => ({ status: 200, body })),
      'p'
    )
    expect(await repo.health()).toEqual({ ok: true, detail: 'opensearch cluster green' })
    body = { status: 'yellow' }
    expect(await repo.health()).toEqual({ ok: true, detail: 'opensearch cluster yellow' })
    body = { status: 'red' }
    expect(await repo.health()).toEqual({ ok: false, detail: 'opensearch cluster red' })
    body = {}
    expect(await repo.health()).toEqual({ ok: false, detail: 'opensearch cluster unknown' })
  })
})

describe("the store's shared pieces", () => {
  it('StoreError carries its failure kind', () => {
    const e = new StoreError('release-unavailable', 'shard gone')
    expect([e.name, e.failure, e.message, e instanceof Error]).toEqual(['StoreError', 'release-unavailable', 'shard gone', true])
  })

  it('a selection of rows at hand reads the first `count` rows', async () => {
    const rows = [1, 2, 3].map((ord) => ({ ord, score: 0, tokens: ord, body: `{"o":${ord}}` }))
    const s = selectionOf(rows)
    expect(s.rows).toBe(rows)
    expect(await s.read(2)).toEqual(rows.slice(0, 2))
    expect(await s.read(5)).toEqual(rows)
    expect(await s.read(0)).toEqual([])
    expect(await s.read(-1)).toEqual([])
  })

  it('hashes each file in a thread, a MiB at a time, and reports an unreadable one by its error code', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hwfacts-hash-'))
    try {
      const big = Buffer.alloc(2.5 * 2 ** 20, 7)
      big.write('end', big.length - 3)
      writeFileSync(join(dir, 'big'), big)
      writeFileSync(join(dir, 'small'), 'abc')
      const seen: unknown[] = []
      await hashFiles([join(dir, 'small'), join(dir, 'none'), join(dir, 'big')], (i, sha, err) => seen.push([i, sha, err]))
      const sha = (b: Buffer | string) => createHash('sha256').update(b).digest('hex')
      expect(seen).toEqual([
        [0, sha('abc'), undefined],
        [1, null, 'ENOENT'],
        [2, sha(big), undefined]
      ])
      const none: unknown[] = []
      await hashFiles([], () => none.push(1))
      expect(none).toEqual([])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
