import { createHash } from 'node:crypto'
import { chmodSync, cpSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { Agent, request } from 'node:http'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildRelease } from '../../indexer/build.js'
import { verifyFiles } from '../../indexer/releases.js'
import { cursorSecret } from '../../src/auth/cursor-secret.js'
import { ApiKeyStore, generateKey, readKeysFile } from '../../src/auth/keys.js'
import { openBackends } from '../../src/backends.js'
import { loadConfig } from '../../src/config.js'
import { buildApp } from '../../src/http/app.js'
import { drainAndClose } from '../../src/http/drain.js'
import { mcpRoute } from '../../src/mcp/route.js'
import { HardwareFacts } from '../../src/service/facts.js'
import { DataDir } from '../../src/store/layout.js'
import { openSqliteRelease, STATEMENT_CACHE_MAX } from '../../src/store/sqlite/store.js'
import { testApp, type TestApp } from '../helpers/app.js'
import { expectProblem } from '../helpers/problem.js'
import { parseRaw, raw } from '../helpers/raw-http.js'
import { SAMPLE_CORPUS, sampleCorpusWithout } from '../helpers/sample-corpus.js'
import { scratchDirs } from '../helpers/scratch.js'

type Obj = Record<string, any>
/** A partial release: the sample corpus with one source that fails to parse (its inventory digest still right). */
function partialCorpus(): string {
  const dir = sampleCorpusWithout('errata')
  const inv = JSON.parse(readFileSync(join(dir, 'sources.json'), 'utf8')) as { sources: Array<{ path: string; sha256: string; bytes: number }> }
  const svd = inv.sources.find((s) => s.path.endsWith('.svd'))!
  const garbled = Buffer.from('<device><peripherals><peripheral><name>BROKEN')
  writeFileSync(join(dir, svd.path), garbled)
  svd.sha256 = createHash('sha256').update(garbled).digest('hex')
  svd.bytes = garbled.length
  writeFileSync(join(dir, 'sources.json'), JSON.stringify(inv))
  return dir
}

const tmp = scratchDirs()

/** Promoted P (the sample corpus), an older complete release O, a partial release X. */
let dataDir: string
let P: string
let O: string
let X: string
let t: TestApp

beforeAll(async () => {
  dataDir = tmp('hwfacts-harden-')
  O = (await buildRelease({ inventory: sampleCorpusWithout('errata'), dataDir })).id
  X = (await buildRelease({ inventory: partialCorpus(), dataDir })).id
  P = (await buildRelease({ inventory: SAMPLE_CORPUS, dataDir })).id
  new DataDir(dataDir).promote(P)
  t = await testApp(dataDir, { plugins: [mcpRoute()], authFailures: { max: 1000, timeWindowMs: 60_000 } }, [{ releases: [] }, { releases: ['*'] }])
})
afterAll(async () => {
  await t?.close()
})

const restricted = () => t.keyFor({ releases: [] })
const get = (url: string, headers: Obj = t.auth) => t.app.inject({ method: 'GET', url, headers })

async function firstCursor(release: string): Promise<string> {
  const r = (await get(`/v1/context?part=STM32F407VG&topic=registers&limit=1&corpus_release=${release}`)).json()
  expect(r.release).toBe(release)
  expect(r.page.nextCursor).toBeTruthy()
  return r.page.nextCursor as string
}

async function mcpCall(name: string, args: Obj, headers: Obj): Promise<Obj> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/mcp',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
    payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }
  })
  expect(res.statusCode).toBe(200)
  return res.json().result as Obj
}

describe('1, 6, 14: the release a request actually reads is checked against the key', () => {
  it('a cursor naming a release the key may not read is 403, on REST and MCP (not its facts)', async () => {
    const cursor = await firstCursor(O)
    expectProblem(await get(`/v1/context?part=STM32F407VG&topic=registers&limit=1&corpus_release=${O}`, restricted()), 403, 'FORBIDDEN', 'corpus_release')
    const rest = await get(`/v1/context?part=STM32F407VG&topic=registers&limit=1&cursor=${encodeURIComponent(cursor)}`, restricted())
    expectProblem(rest, 403, 'FORBIDDEN', 'cursor')
    const mcp = await mcpCall('get_context', { part: 'STM32F407VG', topic: 'registers', limit: 1, cursor }, restricted())
    expect(mcp.isError).toBe(true)
    expect(mcp.structuredContent).toBeUndefined()
    expect((mcp.content as Array<{ text: string }>)[0]!.text).toMatch(/^Error FORBIDDEN \(argument "cursor"\)/)
    // The key that may read O pages on.
    expect((await get(`/v1/context?part=STM32F407VG&topic=registers&limit=1&cursor=${encodeURIComponent(cursor)}`)).json().release).toBe(O)
  })

  it('a restricted key may name the promoted release, and page through it with its cursors', async () => {
    const r = await get(`/v1/context?part=STM32F407VG&topic=registers&limit=1&corpus_release=${P}`, restricted())
    expect(r.statusCode).toBe(200)
    const next = r.json().page.nextCursor as string
    expect((await get(`/v1/context?part=STM32F407VG&topic=registers&limit=1&cursor=${encodeURIComponent(next)}`, restricted())).statusCode).toBe(200)
  })

  it('a partial release is not served to `*` keys, only to a key that names it', async () => {
    const star = t.keyFor({ releases: ['*'] })
    expectProblem(await get(`/v1/coverage?part=STM32F407VG&corpus_release=${X}`, star), 403, 'FORBIDDEN', 'corpus_release')
    expect((await get(`/v1/coverage?part=STM32F407VG&corpus_release=${O}`, star)).statusCode).toBe(200)
    const named = await testApp(dataDir, {}, [{ releases: [X] }])
    try {
      expect((await named.app.inject({ url: `/v1/coverage?part=STM32F407VG&corpus_release=${X}`, headers: named.keyFor({ releases: [X] }) })).statusCode).toBe(200)
    } finally {
      await named.close()
    }
  })
})

describe('2: the cursor secret', () => {
  it('is not a public constant: random per data directory, 0600, reused; the environment wins', () => {
    const a = tmp('hwfacts-secret-')
    const b = tmp('hwfacts-secret-')
    expect(loadConfig({ HWFACTS_DATA_DIR: a }).cursorSecret).toBeUndefined()
    const s1 = cursorSecret(a, undefined)
    expect(s1.secret.length).toBeGreaterThanOrEqual(32)
    expect(statSync(join(a, 'cursor-secret')).mode & 0o777).toBe(0o600)
    expect(cursorSecret(a, undefined).secret).toBe(s1.secret)
    expect(cursorSecret(b, undefined).secret).not.toBe(s1.secret)
    expect(cursorSecret(a, 'from-env-'.repeat(4)).secret).toBe('from-env-'.repeat(4))
  })
})

describe('3: prepared statements are bounded', () => {
  it(`keeps at most ${STATEMENT_CACHE_MAX} statements however many query shapes a client makes`, async () => {
    const store = openSqliteRelease(new DataDir(dataDir).releaseDb(P))
    try {
      const target = store.catalog.targets.find((x) => x.factCounts.registers)!.key
      for (let n = 1; n <= STATEMENT_CACHE_MAX + 150; n++)
        await store.queryFacts({ target, topic: 'registers', names: Array.from({ length: n }, (_, i) => `R${i}`), prefixes: [], terms: [], limit: 5 })
      expect((store as unknown as { statements: { size: number } }).statements.size).toBeLessThanOrEqual(STATEMENT_CACHE_MAX)
    } finally {
      await store.close()
    }
  })
})

const LISTEN_KEY = generateKey('listen')
/** A server listening on a free port, with short timeouts. */
async function listening(timeouts: Obj = {}) {
  const app = await buildApp({
    facts: new HardwareFacts(t.facts.repo, 'x'),
    keys: new ApiKeyStore([LISTEN_KEY.record]),
    timeouts: { requestMs: 1000, headersMs: 600, ...timeouts },
    plugins: [mcpRoute()]
  })
  const base = await app.listen({ port: 0, host: '127.0.0.1' })
  return { app, port: Number(new URL(base).port) }
}

describe('4: slow clients are timed out', () => {
  it('a body trickling in is answered 408 (a Problem) and closed once the request deadline passes', async () => {
    const { app, port } = await listening()
    try {
      const head = `POST /mcp HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${LISTEN_KEY.secret}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n`
      const r = await raw(port, [head, ...Array(40).fill('{')], 250)
      expect(r.closedAfterMs).toBeLessThan(4000)
      expectProblem(parseRaw(r.text), 408, 'REQUEST_TIMEOUT')
    } finally {
      await app.close()
    }
  })

  it('headers trickling in are cut off too', async () => {
    const { app, port } = await listening()
    try {
      const r = await raw(port, ['GET /ping HTTP/1.1\r\n', ...'X-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'.split('')], 200)
      expect(r.closedAfterMs).toBeLessThan(4000)
      expectProblem(parseRaw(r.text), 408, 'REQUEST_TIMEOUT')
    } finally {
      await app.close()
    }
  })
})

describe('8: errors raised below the router are Problems', () => {
  let srv: Awaited<ReturnType<typeof listening>>
  beforeAll(async () => (srv = await listening({ requestMs: 5000, headersMs: 5000 })))
  afterAll(async () => srv?.app.close())
  const send = async (text: string | Buffer) => parseRaw((await raw(srv.port, [text])).text)

  it('a bad percent-escape is a 400 Problem', async () => {
    expectProblem(await send('GET /v1/error-codes/%zz HTTP/1.1\r\nHost: x\r\n\r\n'), 400, 'MALFORMED_REQUEST')
  })
  it('a NUL byte in the request line is a 400 Problem', async () => {
    expectProblem(await send(Buffer.from('GET /ping\0 HTTP/1.1\r\nHost: x\r\n\r\n', 'latin1')), 400, 'MALFORMED_REQUEST')
  })
  it('an unknown method token is a 400 Problem', async () => {
    expectProblem(await send('FROB /v1/release HTTP/1.1\r\nHost: x\r\n\r\n'), 400, 'MALFORMED_REQUEST')
  })
  it('a long URL is 414, long headers 431, both Problems', async () => {
    expectProblem(await send(`GET /v1/parts/resolve?q=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`), 414, 'URI_TOO_LONG')
    expectProblem(await send(`GET /ping HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`), 431, 'HEADERS_TOO_LARGE')
  })
})

describe('9: every method other than GET on /v1 is 405', () => {
  it('HEAD, TRACE, OPTIONS, unrouted methods and any body: 405 with Allow: GET, before auth or body parsing', async () => {
    for (const method of ['HEAD', 'TRACE', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'PROPFIND', 'SEARCH'] as const) {
      const res = await t.app.inject({ method: method as 'GET', url: '/v1/context?part=x&topic=pins' })
      expect(res.statusCode, method).toBe(405)
      expect(res.headers.allow).toBe('GET')
      if (method !== 'HEAD') expectProblem(res, 405, 'METHOD_NOT_ALLOWED')
    }
    expectProblem(await t.app.inject({ method: 'POST', url: '/v1/release', headers: { 'content-type': 'text/xml' }, payload: '<x/>' }), 405, 'METHOD_NOT_ALLOWED')
    expectProblem(await t.app.inject({ method: 'POST', url: '/v1/error-codes/NOT_FOUND', headers: { 'content-type': 'application/json' }, payload: 'x'.repeat(2 << 20) }), 405, 'METHOD_NOT_ALLOWED')
    // Not a /v1 route: still 404.
    expectProblem(await t.app.inject({ method: 'POST', url: '/v1/nope' }), 404, 'NOT_FOUND')
  })
})

describe('10: integer parameters are decimal integers', () => {
  it('0x10, 1e1, +5, " 5", 5.0 are 400 naming the parameter; 5 is fine', async () => {
    for (const v of ['0x10', '1e1', '%2B5', '%205', '5.0', '0b1', ''])
      expectProblem(await get(`/v1/context?part=STM32F407VG&topic=registers&limit=${v}`), 400, 'INVALID_PARAMETER', 'limit')
    expectProblem(await get('/v1/parts/resolve?q=STM32F4&candidate_limit=0x3'), 400, 'INVALID_PARAMETER', 'candidate_limit')
    expect((await get('/v1/context?part=STM32F407VG&topic=registers&limit=5')).json().page.limit).toBe(5)
  })
})

describe('11: failed credentials are limited per credential and per address, never a valid key', () => {
  it('after the allowed number of 401s a credential gets 429 with Retry-After; a valid key at that address still answers', async () => {
    const a = await testApp(dataDir, { authFailures: { max: 5, perAddressMax: 50, timeWindowMs: 60_000 } })
    try {
      const codes: number[] = []
      for (let i = 0; i < 8; i++) codes.push((await a.app.inject({ url: '/v1/release', headers: { authorization: 'Bearer wrong' } })).statusCode)
      expect(codes).toEqual([401, 401, 401, 401, 401, 429, 429, 429])
      const r = await a.app.inject({ url: '/v1/release', headers: { authorization: 'Bearer wrong' } })
      expectProblem(r, 429, 'RATE_LIMITED')
      expect(Number(r.headers['retry-after'])).toBeGreaterThan(0)
      // Behind a proxy every client shares the address: a valid key is not locked out by another's typos.
      expect((await a.app.inject({ url: '/v1/release', headers: a.auth })).statusCode).toBe(200)
    } finally {
      await a.close()
    }
  })
})

describe('12: links never come from the Host header', () => {
  it('docUrl and type use the configured public URL (a fixed default otherwise), whatever Host says', async () => {
    const p = expectProblem(await t.app.inject({ url: '/v1/release', headers: { host: 'evil.example' } }), 401, 'UNAUTHENTICATED')
    expect(p.docUrl).not.toMatch(/evil/)
    expect(p.type).not.toMatch(/evil/)
    const c = await testApp(dataDir, { publicUrl: 'https://facts.example.org/' })
    try {
      const q = expectProblem(await c.app.inject({ url: '/v1/release', headers: { host: 'evil.example', 'x-forwarded-host': 'evil.example' } }), 401, 'UNAUTHENTICATED')
      expect(q.docUrl).toBe('https://facts.example.org/v1/error-codes/UNAUTHENTICATED')
    } finally {
      await c.close()
    }
  })
})

describe('15: security and cache headers', () => {
  it('nosniff everywhere; no-store on errors, immutable when pinned to a release, no-cache otherwise', async () => {
    const ok = await get('/v1/release')
    expect(ok.headers['x-content-type-options']).toBe('nosniff')
    expect(ok.headers['cache-control']).toBe('no-cache')
    const pinned = await get(`/v1/coverage?part=STM32F407VG&corpus_release=${P}`)
    expect(pinned.headers['cache-control']).toBe('private, max-age=31536000, immutable')
    expect(pinned.headers['x-content-type-options']).toBe('nosniff')
    expectProblem(await get('/v1/coverage'), 400, 'MISSING_PARAMETER', 'part')
    expectProblem(await get('/nope'), 404, 'NOT_FOUND')
    const mcp = await t.app.inject({ method: 'POST', url: '/mcp', headers: { 'content-type': 'application/json', ...t.auth }, payload: { jsonrpc: '2.0', id: 1, method: 'ping' } })
    expect(mcp.statusCode).toBe(200)
    expect(mcp.headers['x-content-type-options']).toBe('nosniff')
    expect(mcp.headers['cache-control']).toBe('no-store')
    expect((await get('/ping')).headers['x-content-type-options']).toBe('nosniff')
  })
})

describe('6: release files and the promoted pointer', () => {
  /** A data dir of its own with a writable copy of P (and O), served as src/server.ts wires it. */
  async function copyDataDir(): Promise<{ dir: string; close: () => Promise<void>; app: TestApp['app']; auth: Obj }> {
    const dir = tmp('hwfacts-harden-copy-')
    for (const id of [P, O]) {
      cpSync(new DataDir(dataDir).releaseDir(id), new DataDir(dir).releaseDir(id), { recursive: true })
      chmodSync(new DataDir(dir).releaseDb(id), 0o644)
      chmodSync(new DataDir(dir).manifestPath(id), 0o644)
    }
    new DataDir(dir).promote(P)
    const backends = await openBackends(loadConfig({ HWFACTS_DATA_DIR: dir }), { log: { warn: () => {}, info: () => {} } })
    const k = generateKey('k')
    const app = await buildApp({ facts: new HardwareFacts(backends.repo, 'x'), keys: new ApiKeyStore([k.record]), readinessChecks: backends.readinessChecks })
    await app.ready()
    return { dir, app, auth: { authorization: `Bearer ${k.secret}` }, close: async () => (await app.close(), await backends.close()) }
  }

  it('a corrupted release file is refused when opened: 503 Problems and a failing /readyz, not 500s and "ok"', async () => {
    const c = await copyDataDir()
    try {
      const db = new DataDir(c.dir).releaseDb(P)
      const bytes = readFileSync(db)
      // Damage pages in the middle of the file (the header stays valid).
      bytes.fill(0x5a, Math.floor(bytes.length / 2), Math.floor(bytes.length / 2) + 8192)
      writeFileSync(db, bytes)
      expectProblem(await c.app.inject({ url: '/v1/context?part=STM32F407VG&topic=registers', headers: c.auth }), 503, 'RELEASE_UNAVAILABLE')
      const ready = await c.app.inject({ url: '/readyz' })
      expect(ready.statusCode).toBe(503)
      // The manifest records the file's digest: the damage is caught by it before any page is read.
      expect(ready.json().checks.release.detail).toMatch(/release\.sqlite has sha256 [0-9a-f]{64}; its manifest records [0-9a-f]{64}/)
    } finally {
      await c.close()
    }
  })

  it('a damaged or missing shard is refused when the release is opened, naming the file', async () => {
    const c = await copyDataDir()
    try {
      const shards = join(new DataDir(c.dir).releaseDir(P), 'shards')
      const [victim, gone] = readdirSync(shards).sort()
      // One byte of a shard flipped (still a readable SQLite file of the same size), another shard missing.
      const file = join(shards, victim!)
      const bytes = readFileSync(file)
      bytes[bytes.length - 100] = bytes[bytes.length - 100]! ^ 1
      chmodSync(file, 0o644)
      writeFileSync(file, bytes)
      rmSync(join(shards, gone!))
      expectProblem(await c.app.inject({ url: '/v1/context?part=STM32F407VG&topic=registers', headers: c.auth }), 503, 'RELEASE_UNAVAILABLE')
      const ready = await c.app.inject({ url: '/readyz' })
      expect(ready.statusCode).toBe(503)
      // The service names the first file it found wrong; `hwfacts verify` names both.
      expect(ready.json().checks.release.detail).toContain(`shards/${gone} cannot be read (ENOENT)`)
      expect(await verifyFiles(new DataDir(c.dir), P)).toEqual([
        `shards/${gone} cannot be read (ENOENT)`,
        `shards/${victim} has sha256 ${createHash('sha256').update(bytes).digest('hex')}; its manifest records ${victim!.slice(0, 64)}`
      ])
    } finally {
      await c.close()
    }
  })

  it('a manifest that leaves out one of the shards the top file refers to is refused: no shard is served unchecked', async () => {
    const c = await copyDataDir()
    try {
      const m = new DataDir(c.dir).manifestPath(O)
      const manifest = JSON.parse(readFileSync(m, 'utf8'))
      manifest.shards = manifest.shards.slice(1)
      writeFileSync(m, JSON.stringify(manifest))
      const r = await c.app.inject({ url: `/v1/coverage?part=STM32F407VG&corpus_release=${O}`, headers: c.auth })
      expect(expectProblem(r, 503, 'RELEASE_UNAVAILABLE').detail).toContain('release.sqlite refers to other shards than manifest.json lists')
    } finally {
      await c.close()
    }
  })

  it('a shard removed after the release was opened answers 503 RELEASE_UNAVAILABLE for its facts, not a 500', async () => {
    const c = await copyDataDir()
    try {
      // Registers come from the SVD's shard, errata from the errata header's: served once, then the errata shard goes.
      expect((await c.app.inject({ url: '/v1/context?part=STM32F407VG&topic=registers&limit=1', headers: c.auth })).statusCode).toBe(200)
      const top = new Database(new DataDir(c.dir).releaseDb(P), { readonly: true })
      const { sha256 } = top.prepare<[], { sha256: string }>("SELECT sha256 FROM shards JOIN fact_ranges USING (shard) WHERE topic = 'errata'").get()!
      top.close()
      rmSync(join(new DataDir(c.dir).releaseDir(P), 'shards', `${sha256}.sqlite`))
      const p = expectProblem(await c.app.inject({ url: '/v1/context?part=nRF52840&topic=errata', headers: c.auth }), 503, 'RELEASE_UNAVAILABLE')
      expect(p.detail).toContain(`shards/${sha256}.sqlite cannot be opened`)
      expect((await c.app.inject({ url: '/v1/context?part=STM32F407VG&topic=registers&limit=2', headers: c.auth })).statusCode).toBe(200)
    } finally {
      await c.close()
    }
  })

  it('a release whose file does not match the digest its manifest records is refused', async () => {
    const c = await copyDataDir()
    try {
      const m = new DataDir(c.dir).manifestPath(O)
      const manifest = JSON.parse(readFileSync(m, 'utf8'))
      manifest.database = { sha256: 'ab'.repeat(32), bytes: statSync(new DataDir(c.dir).releaseDb(O)).size }
      writeFileSync(m, JSON.stringify(manifest))
      const r = await c.app.inject({ url: `/v1/coverage?part=STM32F407VG&corpus_release=${O}`, headers: c.auth })
      expect(expectProblem(r, 503, 'RELEASE_UNAVAILABLE').detail).toMatch(/sha256/)
      // The promoted release is unaffected.
      expect((await c.app.inject({ url: '/v1/coverage?part=STM32F407VG', headers: c.auth })).statusCode).toBe(200)
    } finally {
      await c.close()
    }
  })

  it('a garbled or missing promoted pointer keeps the last good release served, and /readyz says so', async () => {
    const c = await copyDataDir()
    try {
      expect((await c.app.inject({ url: '/v1/release', headers: c.auth })).json().release.id).toBe(P)
      for (const [damage, said] of [[() => writeFileSync(join(c.dir, 'promoted'), '\u0000garbage'), /garbled/], [() => rmSync(join(c.dir, 'promoted')), /missing/]] as const) {
        damage()
        // The pointer is re-read at most once a second.
        await new Promise((r) => setTimeout(r, 1100))
        const r = await c.app.inject({ url: '/v1/release', headers: c.auth })
        expect(r.statusCode).toBe(200)
        expect(r.json().release.id).toBe(P)
        const ready = await c.app.inject({ url: '/readyz' })
        expect(ready.statusCode).toBe(200)
        expect(ready.json().checks.promoted).toMatchObject({ ok: false, critical: false })
        expect(ready.json().checks.promoted.detail).toMatch(said)
        expect(ready.json().checks.promoted.detail).toContain(P)
      }
      new DataDir(c.dir).promote(O)
      await new Promise((r) => setTimeout(r, 1100))
      expect((await c.app.inject({ url: '/v1/release', headers: c.auth })).json().release.id).toBe(O)
      expect((await c.app.inject({ url: '/readyz' })).json().checks.promoted).toEqual({ ok: true, critical: false })
    } finally {
      await c.close()
    }
  })
})

describe('13: graceful shutdown', () => {
  it('drains: /readyz turns 503, kept-alive requests are answered with Connection: close, none is reset', async () => {
    const { app, port } = await listening()
    const agent = new Agent({ keepAlive: true, maxSockets: 16 })
    const get1 = (path: string) =>
      new Promise<{ status: number; connection?: string }>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port, path, agent }, (res) => {
          res.resume()
          res.on('end', () => resolve({ status: res.statusCode!, ...(res.headers.connection ? { connection: res.headers.connection } : {}) }))
        })
        req.on('error', reject)
        req.end()
      })
    let stop = false
    const failures: string[] = []
    let drained = 0
    let refused = 0
    // Each worker is a kept-alive client of this instance, as a load balancer's pool: it sends until
    // told Connection: close (then it goes to another instance). A reset or a non-200 is a lost request.
    const workers = Array.from({ length: 16 }, async () => {
      while (!stop) {
        try {
          const r = await get1('/ping')
          if (r.status !== 200) failures.push(String(r.status))
          if (r.connection === 'close') {
            drained++
            return
          }
        } catch (err) {
          const code = (err as NodeJS.ErrnoException).code
          if (code === 'ECONNREFUSED') return void refused++
          failures.push(code ?? String(err))
        }
      }
    })
    await new Promise((r) => setTimeout(r, 300))
    const closing = drainAndClose(app, 600)
    await new Promise((r) => setTimeout(r, 100))
    const ready = await get1('/readyz')
    expect(ready.status).toBe(503)
    await closing
    await new Promise((r) => setTimeout(r, 200))
    stop = true
    await Promise.all(workers)
    agent.destroy()
    expect(failures).toEqual([])
    expect(drained).toBe(16)
    expect(refused).toBe(0)
  })
})

describe('14: the keys file', () => {
  const write = (doc: unknown) => {
    const f = join(tmp('hwfacts-keys-'), 'api-keys.json')
    writeFileSync(f, typeof doc === 'string' ? doc : JSON.stringify(doc))
    return f
  }
  const rec = generateKey('a').record

  it('is checked against its schema and refused whole when any record is wrong', () => {
    expect(readKeysFile(write({ keys: [rec] }))).toHaveLength(1)
    for (const bad of [
      { keys: [{ ...rec, scopes: 'facts:read' }] },
      { keys: [{ ...rec, releases: '*' }] },
      { keys: [rec, { ...rec, id: 'b', releases: 'abc' }] },
      { keys: [{ ...rec, release: ['*'] }] },
      { keys: [{ ...rec, scopes: ['facts:write'] }] },
      { keys: [{ id: 'x', sha256: rec.sha256 }] },
      { keys: [rec, { ...rec, id: 'dup' }] },
      '{ not json'
    ])
      expect(() => readKeysFile(write(bad)), JSON.stringify(bad)).toThrow(/no key of this file is used|not a readable JSON/)
  })

  it('a missing file is an error unless the data directory is a development one', () => {
    const f = join(tmp('hwfacts-keys-'), 'absent.json')
    expect(() => ApiKeyStore.fromFile(f)).toThrow(/no API keys file/)
    expect(ApiKeyStore.fromFile(f, { allowMissing: true }).keys).toEqual([])
  })

  it('reloads without dropping requests: a removed key stops working on its open connection, a wrong file changes nothing', async () => {
    const one = generateKey('one')
    const two = generateKey('two')
    const file = write({ keys: [one.record] })
    const keys = ApiKeyStore.fromFile(file)
    const app = await buildApp({ facts: new HardwareFacts(t.facts.repo, 'x'), keys })
    const base = await app.listen({ port: 0, host: '127.0.0.1' })
    const agent = new Agent({ keepAlive: true, maxSockets: 1 })
    const status = (secret: string) =>
      new Promise<number>((resolve, reject) => {
        const req = request(`${base}/v1/release`, { agent, headers: { authorization: `Bearer ${secret}` } }, (res) => {
          res.resume()
          res.on('end', () => resolve(res.statusCode!))
        })
        req.on('error', reject)
        req.end()
      })
    try {
      expect(await status(one.secret)).toBe(200)
      writeFileSync(file, JSON.stringify({ keys: [{ ...two.record, releases: '*' }] }))
      expect(() => keys.reload(file)).toThrow()
      expect(await status(one.secret)).toBe(200)
      writeFileSync(file, JSON.stringify({ keys: [two.record] }))
      expect(keys.reload(file)).toBe(1)
      // Same keep-alive connection: the credential remembered on it is checked again.
      expect(await status(one.secret)).toBe(401)
      expect(await status(two.secret)).toBe(200)
    } finally {
      agent.destroy()
      await app.close()
    }
  })
})
