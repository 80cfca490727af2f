import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { Agent, request } from 'node:http'
import { connect, createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { buildRelease } from '../indexer/build.js'
import { generateKey } from '../src/auth/keys.js'
import { DataDir } from '../src/store/layout.js'
import { autocannon, machine, startServer } from './lib.js'

/**
 * `npm run chaos [-- --data-dir D] [--hostile N] [--seconds S] [--connections C]`: the service in
 * its own process over the promoted release of D (the whole corpus, built into a scratch dir when
 * absent) plus the small sample release, with a private Redis for its rate limits.
 *  1. N hostile requests (default 12,000) across every route and /mcp, from a seeded generator:
 *     every answer must be below 500, every error a Problem (a JsonRpcError on /mcp), no -32603.
 *  2. C connections (64) × S seconds (60) of mixed load while Redis is killed, restarted, hung
 *     (SIGSTOP) and resumed, and the promoted release changes 10 times: no failed request; the
 *     server's RSS sampled every second.
 * Prints the figures as JSON and writes them to .cache/chaos-result.json.
 */
const ROOT = resolve(import.meta.dirname, '..')
const arg = (name: string) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined)
const HOSTILE = Number(arg('--hostile') ?? 12_000)
const SECONDS = Number(arg('--seconds') ?? 60)
const CONNECTIONS = Number(arg('--connections') ?? 64)
// A private Redis on a free port: killing and stopping it disturbs nobody else's.
const REDIS_PORT = await new Promise<string>((res) => {
  const s = createServer().listen(0, '127.0.0.1', () => {
    const p = (s.address() as { port: number }).port
    s.close(() => res(String(p)))
  })
})
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

// ---- a reproducible generator -------------------------------------------------------------
let seed = 0x5eed1234
function rnd(): number {
  seed ^= seed << 13
  seed ^= seed >>> 17
  seed ^= seed << 5
  return (seed >>> 0) / 2 ** 32
}
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!

const NASTY = [
  "' OR 1=1 --",
  '"; DROP TABLE facts; --',
  'NEAR(a b)',
  '*',
  '^a',
  'a OR b',
  '"unterminated',
  '../../../../etc/passwd',
  '..%2F..%2Fetc%2Fpasswd',
  '%00',
  '%FF%FE',
  '%C0%AF',
  '\u202e\u0000',
  '😀😀😀',
  'ＳＴＭ３２',
  '<script>alert(1)</script>',
  '${jndi:ldap://x}',
  '{{7*7}}',
  'a'.repeat(129),
  'a'.repeat(2001),
  'STM32F407VG',
  'nRF52840',
  'x',
  '',
  ' ',
  '0x40023830',
  'RCC.',
  '%',
  '%%',
  '%zz'
]
const enc = (s: string) => (/%[0-9A-Fa-f]{2}|%zz|%%|^%$/.test(s) ? s : encodeURIComponent(s))
const INTS = ['0x10', '1e1', '+5', '%205', '5.0', '-1', '0', '21', '51', '99999999999999999999', 'NaN', 'Infinity', '1', '5', '20', '[]', 'true']

interface Hostile {
  method: string
  path: string
  headers?: Record<string, string>
  body?: string | Buffer
  /** Sent as bytes on a raw socket (what an HTTP client refuses to send). */
  raw?: Buffer
}

function hostileRequest(auth: Record<string, string>, other: string, cursor: string): Hostile {
  const a = (): Record<string, string> => (rnd() < 0.8 ? auth : pick<Record<string, string>>([{}, { authorization: 'Bearer wrong' }, { authorization: 'Basic eDp5' }, { authorization: 'Bearer ' }, { authorization: `Bearer ${'a'.repeat(4000)}` }]))
  const v = () => enc(pick(NASTY))
  const n = () => pick(INTS)
  const extra = () => (rnd() < 0.2 ? `&${pick(['corpus_release', 'limit', 'cursor', 'unknown', 'q', 'part', 'topic', 'fact_name', 'constructor', '__proto__'])}=${rnd() < 0.5 ? v() : pick([other, '0000000000000000', 'ABCDEF0123456789', n()])}` : '')
  const sv = (): Record<string, string> => (rnd() < 0.1 ? { 'service-version': pick(['2020-01-01', '', '2026-08-26 ', 'x'.repeat(300)]) } : {})
  const kind = Math.floor(rnd() * 14)
  switch (kind) {
    case 0:
      return { method: 'GET', path: `/v1/parts/resolve?q=${v()}&candidate_limit=${n()}${extra()}`, headers: { ...a(), ...sv() } }
    case 1:
      return { method: 'GET', path: `/v1/catalog/search?q=${v()}${extra()}`, headers: { ...a(), ...sv() } }
    case 2:
      return { method: 'GET', path: `/v1/catalog/part?part=${v()}${extra()}`, headers: a() }
    case 3:
      return {
        method: 'GET',
        path: `/v1/context?part=${pick(['STM32F407VG', 'nRF52840', v()])}&topic=${pick(['registers', 'pins', 'errata', 'electrical', 'REGISTERS', v()])}&${pick(['query', 'fact_names', 'fact_name_prefixes', 'peripheral', 'package', 'silicon_revision', 'revision'])}=${v()}&limit=${n()}&max_tokens=${pick([...INTS, '256', '16001'])}${extra()}`,
        headers: { ...a(), ...sv() }
      }
    case 4:
      return {
        method: 'GET',
        path: `/v1/context?part=STM32F407VG&topic=registers&cursor=${pick([enc(cursor), enc(cursor.slice(0, -2) + 'AA'), enc('x'.repeat(600)), v(), enc(Buffer.from(JSON.stringify([1, other, 'x', 0, 0])).toString('base64url') + '.AAAA')])}${extra()}`,
        headers: a()
      }
    case 5:
      return { method: 'GET', path: `/v1/${pick(['coverage', 'sources'])}?part=${v()}&corpus_release=${pick([other, '0000000000000000', v()])}${extra()}`, headers: a() }
    case 6:
      return { method: 'GET', path: `/v1/error-codes/${pick(['INVALID_CURSOR', v(), '..%2F..%2Fetc%2Fpasswd', '%2e%2e', 'a'.repeat(200), '__proto__', 'constructor'])}`, headers: a() }
    case 7:
      return { method: pick(['GET', 'HEAD']), path: pick(['/ping', '/openapi.json', '/livez', '/readyz', '/health', '/healthz', '/v1/release', '/v1/release/', '//v1/release', '/v1//release', '/V1/RELEASE', '/ping?x=1', `/readyz?${v()}`, '/nope', '/v2/context']), headers: a() }
    case 8: {
      const method = pick(['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'TRACE', 'HEAD', 'PROPFIND', 'SEARCH', 'LOCK'])
      const path = pick(['/v1/context?part=x&topic=pins', '/v1/release', '/v1/error-codes/NOT_FOUND', '/v1/parts/resolve', '/ping', '/openapi.json'])
      const body = method === 'HEAD' || method === 'TRACE' ? undefined : pick(['', '<x/>', '{"a":1}', 'x'.repeat(2 << 20)])
      return { method, path, headers: { ...a(), 'content-type': pick(['text/xml', 'application/json', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) }, ...(body !== undefined ? { body } : {}) }
    }
    case 9:
    case 10:
      return mcpHostile(a())
    case 11:
      return { method: pick(['GET', 'DELETE', 'PUT', 'OPTIONS', 'PATCH']), path: '/mcp', headers: a() }
    default: {
      const raw = pick([
        'GET /v1/error-codes/%zz HTTP/1.1\r\nHost: x\r\n\r\n',
        'GET /ping\0 HTTP/1.1\r\nHost: x\r\n\r\n',
        'FROB /v1/release HTTP/1.1\r\nHost: x\r\n\r\n',
        `GET /v1/parts/resolve?q=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
        `GET /ping HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
        'GET /ping HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n',
        'GET /ping HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n',
        'GET / HTTP/9.9\r\nHost: x\r\n\r\n',
        '\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03',
        'GET /ping HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n',
        'POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n',
        'GET /ping HTTP/1.0\r\n\r\n'
      ])
      return { method: 'RAW', path: raw.split(' ')[1] ?? '?', raw: Buffer.from(raw, 'latin1') }
    }
  }
}

function mcpHostile(auth: Record<string, string>): Hostile {
  const tool = pick(['resolve_part', 'search_catalog', 'get_catalog_part', 'get_context', 'get_coverage', 'get_sources', 'get_release', 'get_error_code', 'nope', ''])
  const val = () => pick<unknown>([pick(NASTY), 5, -1, 1e308, null, true, [], {}, ['a'], { $gt: '' }, 'a'.repeat(3000), '0x10'])
  const args = Object.fromEntries(Array.from({ length: Math.floor(rnd() * 4) }, () => [pick(['q', 'part', 'topic', 'cursor', 'limit', 'corpus_release', 'code', 'fact_names', '__proto__', 'x']), val()]))
  const bodies = [
    () => JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: tool, arguments: args } }),
    () => JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: pick([5, null, {}]), arguments: pick(['x', 5, []]) } }),
    () => JSON.stringify({ jsonrpc: pick(['1.0', 2, null]), id: 1, method: 'tools/list' }),
    () => JSON.stringify([{ jsonrpc: '2.0', id: 1, method: 'ping' }]),
    () => JSON.stringify({ jsonrpc: '2.0', id: pick([{}, [], 1.5, null]), method: 'ping' }),
    () => JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized', params: pick([{}, 5, 'x']) }),
    () => JSON.stringify({ jsonrpc: '2.0', id: 2, method: pick(['initialize', 'tools/list', 'resources/list', 'prompts/get', 'nope', 'tasks/get']), params: pick([{ protocolVersion: 5 }, { cursor: 5 }, {}, { name: 1 }]) }),
    () => '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"resolve_part","arguments":{"q":' + '['.repeat(3000) + ']'.repeat(3000) + '}}}',
    () => '{"jsonrpc":"2.0","id":1,',
    () => 'x'.repeat(70_000),
    () => '\u0000\u0001',
    () => ''
  ]
  return {
    method: 'POST',
    path: '/mcp',
    headers: { ...auth, 'content-type': pick(['application/json', 'application/json', 'text/plain', 'application/json; charset=latin1']), accept: pick(['application/json', 'text/event-stream', 'application/json, text/event-stream', '*/*']) },
    body: pick(bodies)()
  }
}

// ---- sending and judging ----------------------------------------------------------------
interface Answer {
  status: number
  type: string
  body: string
}

const agent = new Agent({ keepAlive: true, maxSockets: 32 })
function send(port: number, h: Hostile): Promise<Answer> {
  if (h.raw) return sendRaw(port, h.raw)
  return new Promise((resolve) => {
    // Framed explicitly: Node's client sends a DELETE or OPTIONS body without Content-Length, which
    // HTTP reads as the start of the next request on the connection.
    const headers = h.body !== undefined ? { ...h.headers, 'content-length': String(Buffer.byteLength(h.body)) } : (h.headers ?? {})
    const req = request({ host: '127.0.0.1', port, method: h.method, path: h.path, headers, agent }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (c: string) => (body += c))
      res.on('end', () => resolve({ status: res.statusCode!, type: String(res.headers['content-type'] ?? ''), body }))
      res.on('error', () => resolve({ status: -1, type: '', body: 'response error' }))
    })
    // The server may answer (405, 413) and close before a large body is sent.
    req.on('error', (err: NodeJS.ErrnoException) => resolve({ status: -1, type: '', body: err.code ?? String(err) }))
    if (h.body !== undefined) req.end(h.body)
    else req.end()
  })
}

function sendRaw(port: number, bytes: Buffer): Promise<Answer> {
  return new Promise((resolve) => {
    const s = connect(Number(port), '127.0.0.1')
    let text = ''
    s.on('data', (d) => (text += d.toString('latin1')))
    s.on('error', () => {})
    const done = () => {
      clearTimeout(timer)
      // The first answer only (a raw request may draw a second one on the same connection).
      const end = text.indexOf('\r\n\r\n')
      const head = end === -1 ? text : text.slice(0, end)
      const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0)
      const body = end === -1 ? '' : text.slice(end + 4, end + 4 + length)
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1] ?? 0)
      const type = /\r\ncontent-type: *([^\r]+)/i.exec(head)?.[1] ?? ''
      resolve({ status, type, body })
    }
    const timer = setTimeout(() => s.destroy(), 15_000)
    s.on('close', done)
    s.write(bytes)
  })
}

const PROBLEM_KEYS = ['code', 'detail', 'docUrl', 'error', 'message', 'param', 'request_id', 'requestId', 'status', 'title', 'type']
function judge(h: Hostile, a: Answer): string | undefined {
  if (a.status >= 500) return `${a.status}`
  // A raw request the server closes without a word (a TLS hello, a truncated line) is not an answer to judge.
  if (a.status === 0 && h.raw) return a.body === '' ? undefined : 'unparsable answer'
  if (a.status === -1) return h.body !== undefined && h.body.length > 65536 ? undefined : `transport error ${a.body}`
  if (a.status < 300 || a.status === 304) {
    if (h.path === '/mcp' && a.type.startsWith('application/json') && a.body) {
      const j = JSON.parse(a.body) as { error?: { code: number } }
      if (j.error?.code === -32603) return '-32603'
    }
    return undefined
  }
  const isRpc = h.path === '/mcp' && h.method === 'POST' && (a.status === 400 || a.status === 413)
  if (isRpc) {
    if (!a.type.startsWith('application/json')) return `JsonRpcError with ${a.type}`
    const j = JSON.parse(a.body) as Record<string, unknown>
    return Object.keys(j).sort().join() === 'error,id,jsonrpc' ? undefined : 'not a JsonRpcError'
  }
  if (!a.type.startsWith('application/problem+json')) return `non-Problem ${a.status} ${a.type}`
  if (h.method === 'HEAD') return undefined
  const p = JSON.parse(a.body) as Record<string, unknown>
  const keys = Object.keys(p).filter((k) => k !== 'instance').sort()
  return keys.join() === [...PROBLEM_KEYS].sort().join() && p.status === a.status ? undefined : 'malformed Problem'
}

// ---- the run ----------------------------------------------------------------------------
const CLOCK_TICKS = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100
/** User + system CPU time of a process in ms (Linux). */
function serverCpuMs(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
  return ((Number(f[11]) + Number(f[12])) * 1000) / CLOCK_TICKS
}

const scratch = mkdtempSync(join(tmpdir(), 'hwfacts-chaos-'))
const services = (cmd: string) => execFileSync('bash', [join(ROOT, '.ci/services.sh'), cmd], { env: { ...process.env, REDIS_PORT, SERVICES_DIR: join(scratch, 'services') }, stdio: ['ignore', 'pipe', 'pipe'] }).toString()
const redisPid = () => Number(readFileSync(join(scratch, 'services', `redis-${REDIS_PORT}.pid`), 'utf8').trim())
const result: Record<string, unknown> = { machine: machine(), started: new Date().toISOString() }
let server: Awaited<ReturnType<typeof startServer>> | undefined
try {
  // Data: the corpus release (given, or built now) beside the sample release, in a scratch data dir.
  const data = new DataDir(join(scratch, 'data'))
  mkdirSync(join(data.root, 'releases'), { recursive: true })
  let corpusId: string
  const given = arg('--data-dir')
  if (given) {
    corpusId = new DataDir(resolve(given)).promotedId()!
    symlinkSync(new DataDir(resolve(given)).releaseDir(corpusId), data.releaseDir(corpusId))
  } else corpusId = (await buildRelease({ inventory: join(ROOT, '..', 'shared', 'corpus'), dataDir: data.root })).id
  const sampleId = (await buildRelease({ inventory: join(ROOT, 'test', 'fixtures', 'sample-corpus'), dataDir: data.root })).id
  data.promote(corpusId)

  const main = generateKey('chaos', ['facts:read'], ['*'])
  const restricted = generateKey('chaos-restricted', ['facts:read'], [])
  const keysFile = join(scratch, 'keys.json')
  writeFileSync(keysFile, JSON.stringify({ keys: [{ ...main.record, rateLimit: { max: 1e9, timeWindowMs: 60_000 } }, restricted.record] }))
  const redisUrl = /REDIS_URL=(\S+)/.exec(services('redis-start'))![1]!
  server = await startServer(join(ROOT, 'src/server.ts'), {
    HWFACTS_DATA_DIR: data.root,
    HWFACTS_API_KEYS_FILE: keysFile,
    REDIS_URL: redisUrl,
    ELASTICSEARCH_URL: '',
    OPENSEARCH_URL: '',
    PORT: '0',
    LOG_LEVEL: 'warn',
    // Limits high enough that hostile requests reach validation instead of stopping at a 429
    // (the limits themselves are tested in test/http/hardening.test.ts and test/scale/redis.test.ts).
    HWFACTS_AUTH_FAILURES_MAX: '1000000',
    HWFACTS_AUTH_FAILURES_PER_ADDRESS_MAX: '1000000',
    HWFACTS_RATE_LIMIT_MAX: '1000000',
    HWFACTS_DRAIN_MS: '0'
  })
  const port = Number(new URL(server.url).port)
  const auth = { authorization: `Bearer ${main.secret}` }
  const first = await fetch(`${server.url}/v1/context?part=STM32F407VG&topic=registers&limit=1`, { headers: auth })
  const cursor = ((await first.json()) as { page: { nextCursor: string } }).page.nextCursor

  // Phase 1: hostile requests.
  const counts = { requests: 0, status5xx: 0, nonProblem: 0, rpcInternal: 0, transport: 0 }
  const byStatus: Record<string, number> = {}
  const examples: string[] = []
  let next = 0
  const t1 = performance.now()
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < HOSTILE) {
        next++
        const h = rnd() < 0.05 ? { method: 'GET', path: `/v1/coverage?part=STM32F407&corpus_release=${sampleId}`, headers: { authorization: `Bearer ${restricted.secret}` } } : hostileRequest(auth, sampleId, cursor)
        const a = await send(port, h)
        counts.requests++
        byStatus[a.status] = (byStatus[a.status] ?? 0) + 1
        const bad = judge(h, a)
        if (!bad) continue
        if (bad === '-32603') counts.rpcInternal++
        else if (/^5/.test(bad)) counts.status5xx++
        else if (/^transport/.test(bad)) counts.transport++
        else counts.nonProblem++
        if (examples.length < 20) examples.push(`${bad}: ${h.method} ${h.path.slice(0, 120)} -> ${a.body.slice(0, 200)}`)
      }
    })
  )
  result.hostile = { ...counts, seconds: Math.round((performance.now() - t1) / 1000), byStatus, examples }
  process.stdout.write(`hostile: ${JSON.stringify(result.hostile)}\n`)
  agent.destroy()

  // Phase 2: mixed load through Redis outages, a hang and promotions.
  const mcp = (name: string, args: Record<string, unknown>) => ({
    method: 'POST',
    path: '/mcp',
    headers: { ...auth, 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } })
  })
  const requests = [
    { method: 'GET', path: '/v1/parts/resolve?q=STM32F407VGT6', headers: auth },
    { method: 'GET', path: '/v1/context?part=STM32F407VG&topic=registers&fact_names=RCC.AHB1ENR', headers: auth },
    { method: 'GET', path: '/v1/context?part=STM32F407VG&topic=registers&query=clock%20enable&limit=10', headers: auth },
    { method: 'GET', path: `/v1/coverage?part=STM32F407VG&corpus_release=${corpusId}`, headers: auth },
    { method: 'GET', path: '/v1/catalog/search?q=STM32F4', headers: auth },
    { method: 'GET', path: '/v1/sources?part=STM32F407VG', headers: auth },
    { method: 'GET', path: '/v1/release', headers: auth },
    mcp('get_context', { part: 'STM32F407VG', topic: 'pins', package: 'LQFP100', limit: 5 }),
    mcp('resolve_part', { q: 'STM32F407VG' }),
    { method: 'GET', path: '/readyz' }
  ]
  const rss: Array<{ t: number; mb: number; cpuPct: number }> = []
  const events: Array<{ t: number; event: string }> = []
  const t2 = performance.now()
  const at = () => Math.round((performance.now() - t2) / 100) / 10
  // RSS, and the server's CPU share in the last second (it shows the server kept working throughout).
  let cpu0 = serverCpuMs(server.proc.pid!)
  const sampler = setInterval(() => {
    const cpu1 = serverCpuMs(server!.proc.pid!)
    rss.push({ t: at(), mb: server!.rssMb().rss, cpuPct: Math.round((cpu1 - cpu0) / 10) })
    cpu0 = cpu1
  }, 1000)
  const faults = (async () => {
    // 10 promotions a step apart, faults half a step after six of them: all within the load.
    const step = (SECONDS * 1000) / 14
    const plan: Array<[string, () => void]> = [
      ['redis killed', () => services('redis-stop')],
      ['redis restarted', () => services('redis-start')],
      ['redis hung (SIGSTOP)', () => process.kill(redisPid(), 'SIGSTOP')],
      ['redis resumed (SIGCONT)', () => process.kill(redisPid(), 'SIGCONT')],
      ['redis killed', () => services('redis-stop')],
      ['redis restarted', () => services('redis-start')]
    ]
    for (let i = 0; i < 10; i++) {
      await sleep(step)
      data.promote(i % 2 === 0 ? sampleId : corpusId)
      events.push({ t: at(), event: `promoted ${i % 2 === 0 ? 'sample' : 'corpus'} release` })
      const f = plan[i]
      if (f) {
        await sleep(step / 2)
        f[1]()
        events.push({ t: at(), event: f[0] })
      }
    }
  })()
  const r = await autocannon({ url: server.url, connections: CONNECTIONS, duration: SECONDS, requests } as Parameters<typeof autocannon>[0])
  await faults
  clearInterval(sampler)
  const mbs = rss.map((x) => x.mb)
  const third = Math.max(1, Math.floor(mbs.length / 3))
  const avg = (xs: number[]) => Math.round(xs.reduce((s, x) => s + x, 0) / xs.length)
  result.load = {
    connections: CONNECTIONS,
    seconds: SECONDS,
    requests: r.requests.total,
    rps: Math.round(r.requests.average),
    p50Ms: r.latency.p50,
    p99Ms: r.latency.p99,
    failed: { errors: r.errors, timeouts: r.timeouts, non2xx: r.non2xx },
    rssMb: { min: Math.min(...mbs), max: Math.max(...mbs), firstThirdAvg: avg(mbs.slice(0, third)), lastThirdAvg: avg(mbs.slice(-third)), samples: rss },
    events,
    promotions: events.filter((e) => e.event.startsWith('promoted')).length
  }
  process.stdout.write(`load: ${JSON.stringify({ ...(result.load as object), rssMb: { ...(result.load as { rssMb: object }).rssMb, samples: `${rss.length} samples` } })}\n`)
  result.ok = counts.status5xx === 0 && counts.nonProblem === 0 && counts.rpcInternal === 0 && counts.transport === 0 && r.errors + r.timeouts + r.non2xx === 0
} finally {
  server?.proc.kill('SIGKILL')
  try {
    process.kill(redisPid(), 'SIGCONT')
  } catch {
    // not running
  }
  try {
    services('redis-stop')
  } catch {
    // already stopped
  }
  rmSync(scratch, { recursive: true, force: true })
}
mkdirSync(join(ROOT, '.cache'), { recursive: true })
writeFileSync(join(ROOT, '.cache', 'chaos-result.json'), JSON.stringify(result, null, 2))
process.stdout.write(`chaos: ${result.ok ? 'PASS' : 'FAIL'} (figures in .cache/chaos-result.json)\n`)
process.exit(result.ok ? 0 : 1)
