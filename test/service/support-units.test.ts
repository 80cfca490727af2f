import { createHash } from 'node:crypto'
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { beforeAll, describe, expect, it, vi } from 'vitest'
import type { ToolContext } from '../../src/mcp/tools.js'
import { CONTRACT_VERSIONS, LATEST_VERSION } from '../../src/model/versions.js'
import type { TargetChoice } from '../../src/service/catalog-index.js'
import { readAll } from '../../src/service/read-all.js'
import { SourceChecks } from '../../src/service/source-check.js'
import type { FactQuery, FactRow, ReleaseManifest, ReleaseStore, SourceRecord } from '../../src/store/types.js'
import { scratchDirs } from '../helpers/scratch.js'

/**
 * The service's small supports, each on hand-made inputs (no release, no app: milliseconds a
 * mutant): readAll's batching over a stub store, the source re-hash over files in a temp archive,
 * the error table against the contract and HTTP's statuses, and the MCP server over an in-memory
 * transport. Expected values come from the spec, RFC 9110 and the documented formats.
 */
type Obj = Record<string, any>
const tmp = scratchDirs()
const sha = (text: string) => createHash('sha256').update(text).digest('hex')

describe('readAll', () => {
  /** A store of `n` rows in (score desc, ord asc) order that records each query. */
  function store(n: number) {
    const queries: FactQuery[] = []
    const rows: FactRow[] = Array.from({ length: n }, (_, i) => ({ ord: i, score: 0, tokens: 1, body: `{"n":${i}}` }))
    const s = {
      queryFacts: async (q: FactQuery) => {
        queries.push(structuredClone(q))
        const from = q.after ? rows.findIndex((r) => r.ord > q.after!.ord) : 0
        return from < 0 ? [] : rows.slice(from, from + q.limit)
      }
    } as unknown as ReleaseStore
    return { s, queries, rows }
  }
  const choice = (pkg?: string) => ({ target: { key: 'svd:Q/QZ1' }, parts: ['QZ1'], ...(pkg ? { package: pkg } : {}) }) as unknown as TargetChoice

  it('reads a target whole in batches of 5000, each after the last row of the one before', async () => {
    const { s, queries, rows } = store(12_001)
    const got = await readAll(s, choice(), 'registers', ['A'], ['B.'], 'UART')
    expect(got.map((r) => r.ord)).toEqual(rows.map((r) => r.ord))
    expect(queries).toEqual([
      { target: 'svd:Q/QZ1', topic: 'registers', names: ['A'], prefixes: ['B.'], peripheral: 'UART', terms: [], limit: 5000 },
      { target: 'svd:Q/QZ1', topic: 'registers', names: ['A'], prefixes: ['B.'], peripheral: 'UART', terms: [], after: { score: 0, ord: 4999 }, limit: 5000 },
      { target: 'svd:Q/QZ1', topic: 'registers', names: ['A'], prefixes: ['B.'], peripheral: 'UART', terms: [], after: { score: 0, ord: 9999 }, limit: 5000 }
    ])
  })

  it('exactly one batch asks once more and gets nothing; fewer rows end at once; a package narrows pins', async () => {
    const full = store(5000)
    expect((await readAll(full.s, choice(), 'registers', [], [])).length).toBe(5000)
    expect(full.queries.map((q) => q.after ?? null)).toEqual([null, { score: 0, ord: 4999 }])
    const few = store(3)
    const rows = await readAll(few.s, choice('LQFP48'), 'pins', [], [])
    expect(rows).toEqual(few.rows)
    expect(few.queries).toEqual([{ target: 'svd:Q/QZ1', topic: 'pins', names: [], prefixes: [], package: 'LQFP48', terms: [], limit: 5000 }])
    const none = store(0)
    expect(await readAll(none.s, choice(), 'pins', [], [])).toEqual([])
    expect(Object.keys(none.queries[0]!)).not.toContain('peripheral')
    expect(Object.keys(none.queries[0]!)).not.toContain('package')
  })
})

describe('SourceChecks', () => {
  /** A release of `files` (path → archived content) whose inventory says `recorded` (path → content it was hashed from). */
  function release(id: string, files: Record<string, string | null>, recorded: Record<string, string> = {}) {
    const root = tmp('hwfacts-srccheck-')
    const sources = Object.entries(files).map(([path, content]) => {
      const archivePath = `archive/${path}`
      if (content !== null) {
        mkdirSync(dirname(join(root, archivePath)), { recursive: true })
        writeFileSync(join(root, archivePath), content)
      }
      return { path, sha256: sha(recorded[path] ?? content ?? ''), archivePath } as SourceRecord
    })
    return { root, m: { id, sources } as ReleaseManifest }
  }

  it('re-hashes each archived source against its inventory sha256, once per release', async () => {
    const { root, m } = release('r1', { 'svd/a.svd': 'alpha', 'svd/b.svd': 'beta', 'svd/c.svd': null }, { 'svd/b.svd': 'not beta' })
    const checks = new SourceChecks(root)
    expect(checks.status('r1')).toBeUndefined()
    const first = checks.of(m)
    // Started, nothing hashed yet: the worker thread answers after this turn of the event loop.
    expect(checks.status('r1')).toEqual({ ok: true, detail: 're-hashing the archived sources of release r1: 0 of 3 done' })
    expect(checks.of(m)).toBe(first)
    const got = await first
    expect([...got.keys()].sort()).toEqual(['svd/a.svd', 'svd/b.svd', 'svd/c.svd'])
    expect(got.get('svd/a.svd')).toEqual({ ok: true })
    expect(got.get('svd/b.svd')).toEqual({ ok: false, reason: `the archived bytes hash to ${sha('beta')}, not the inventory sha256` })
    expect(got.get('svd/c.svd')).toEqual({ ok: false, reason: 'the archived artifact is missing (ENOENT)' })
    const done = checks.status('r1')!
    expect(done.ok).toBe(false)
    expect(done.detail).toMatch(/^3 archived sources of release r1 re-hashed; 2 do not match their inventory sha256 or are missing \(first: svd\/[bc]\.svd\)$/)
  })

  it('all matching: ok, "all match"; while failures are found mid-way the status is not ok', async () => {
    const good = release('r2', { 'a.xml': 'x', 'b.xml': 'y' })
    const checks = new SourceChecks(good.root)
    await checks.of(good.m)
    expect(checks.status('r2')).toEqual({ ok: true, detail: '2 archived sources of release r2 re-hashed, all match' })
    // Another release on the same instance is checked on its own.
    const bad = release('r3', { 'c.xml': 'z', 'd.xml': null })
    const other = new SourceChecks(bad.root)
    const p = other.of(bad.m)
    await p
    expect(other.status('r3')).toEqual({ ok: false, detail: '2 archived sources of release r3 re-hashed; 1 do not match their inventory sha256 or are missing (first: d.xml)' })
    expect(other.status('r2')).toBeUndefined()
  })

  it('when the hashing thread dies, what it did not check is not verified, and says why', async () => {
    const { m, root } = release('r5', { 'a.svd': 'a', 'b.svd': 'b', 'c.svd': 'c' })
    vi.resetModules()
    // A thread that reports the first file, then dies.
    vi.doMock('../../src/store/hash-files.js', () => ({
      hashFiles: (_files: string[], onEach: (i: number, sha: string | null) => void) => (onEach(0, sha('a')), Promise.reject(new Error('worker exited with code 1')))
    }))
    try {
      const { SourceChecks: Fresh } = await import('../../src/service/source-check.js')
      const checks = new Fresh(root)
      const pending = checks.of(m)
      // The first file is reported, the thread not yet dead: a failure found mid-way already fails the status.
      expect(checks.status('r5')).toEqual({ ok: true, detail: 're-hashing the archived sources of release r5: 1 of 3 done' })
      const got = await pending
      expect(got).toEqual(
        new Map([
          ['a.svd', { ok: true }],
          ['b.svd', { ok: false, reason: 'the check could not be made (worker exited with code 1)' }],
          ['c.svd', { ok: false, reason: 'the check could not be made (worker exited with code 1)' }]
        ])
      )
      expect(checks.status('r5')).toEqual({ ok: false, detail: '3 archived sources of release r5 re-hashed; 2 do not match their inventory sha256 or are missing (first: b.svd)' })
    } finally {
      vi.doUnmock('../../src/store/hash-files.js')
      vi.resetModules()
    }
  })

  it('a failure found mid-way fails the status before the check ends', async () => {
    const { m, root } = release('r6', { 'a.svd': 'a', 'b.svd': 'b' })
    let finish: () => void = () => {}
    vi.resetModules()
    vi.doMock('../../src/store/hash-files.js', () => ({
      hashFiles: (_files: string[], onEach: (i: number, sha: string | null, code?: string) => void) => {
        onEach(0, null, 'EACCES')
        return new Promise<void>((res) => {
          finish = () => {
            onEach(1, sha('b'))
            res()
          }
        })
      }
    }))
    try {
      const { SourceChecks: Fresh } = await import('../../src/service/source-check.js')
      const checks = new Fresh(root)
      const pending = checks.of(m)
      expect(checks.status('r6')).toEqual({ ok: false, detail: 're-hashing the archived sources of release r6: 1 of 2 done; 1 do not match their inventory sha256 or are missing (first: a.svd)' })
      finish()
      expect((await pending).get('a.svd')).toEqual({ ok: false, reason: 'the archived artifact is missing (EACCES)' })
    } finally {
      vi.doUnmock('../../src/store/hash-files.js')
      vi.resetModules()
    }
  })

  it('without an archive nothing is verified, and no check is said to run', async () => {
    const { m } = release('r4', { 'a.svd': 'a' })
    const checks = new SourceChecks(undefined)
    expect(await checks.of(m)).toEqual(new Map([['a.svd', { ok: false, reason: 'this instance has no source archive to check' }]]))
    expect(checks.status('r4')).toBeUndefined()
  })
})

describe('the error table', () => {
  let ERROR_CODES: Record<string, { status: number; title: string; retryable: boolean; guidance: string }>
  beforeAll(async () => {
    ;({ ERROR_CODES } = await import('../../src/service/errors.js'))
  })

  /*
   * Each code's status: the spec's rules where it names one (§4 POST /mcp: 400 for a JSON-RPC
   * request error, 413 for the size bound, 401/403/429; §5.5: 401 missing or invalid credential,
   * 403 not permitted; §7.3 unsupported Service-Version 400; §7.4 405 for other methods), else
   * HTTP's own status for what the code means (RFC 9110 §15, RFC 6585 for 429 and 431): 400 for
   * every refused parameter or entry, 404 no such resource, 408, 414, 415, 500, 503 unavailable.
   */
  const STATUS: Record<string, number> = {
    INVALID_PARAMETER: 400,
    MISSING_PARAMETER: 400,
    UNKNOWN_PARAMETER: 400,
    UNSUPPORTED_SERVICE_VERSION: 400,
    UNKNOWN_CORPUS_RELEASE: 400,
    INVALID_CURSOR: 400,
    INVALID_ENTRY: 400,
    TOO_MANY_ENTRIES: 400,
    UNKNOWN_SIGNAL: 400,
    UNKNOWN_PIN: 400,
    MALFORMED_REQUEST: 400,
    INVALID_JSON_RPC: 400,
    UNAUTHENTICATED: 401,
    FORBIDDEN: 403,
    NOT_FOUND: 404,
    METHOD_NOT_ALLOWED: 405,
    REQUEST_TIMEOUT: 408,
    PAYLOAD_TOO_LARGE: 413,
    URI_TOO_LONG: 414,
    UNSUPPORTED_MEDIA_TYPE: 415,
    RATE_LIMITED: 429,
    HEADERS_TOO_LARGE: 431,
    INTERNAL: 500,
    NOT_READY: 503,
    RELEASE_UNAVAILABLE: 503
  }

  it('has each code at its status, retryable exactly when waiting can help (408, 429, 5xx)', () => {
    expect(Object.keys(ERROR_CODES).sort()).toEqual(Object.keys(STATUS).sort())
    for (const [code, info] of Object.entries(ERROR_CODES)) {
      expect(code).toMatch(/^[A-Z0-9_]+$/) // spec §7.5
      expect([code, info.status]).toEqual([code, STATUS[code]])
      expect([code, info.retryable]).toEqual([code, info.status === 408 || info.status === 429 || info.status >= 500])
    }
  })

  it('gives every code a title and guidance (the Problem title, GET /v1/error-codes/{code})', () => {
    for (const [code, info] of Object.entries(ERROR_CODES)) {
      expect(Object.keys(info).sort(), code).toEqual(['guidance', 'retryable', 'status', 'title'])
      expect(info.title, code).toMatch(/^[A-Z][^.]*[a-z]$/)
      expect(info.guidance, code).toMatch(/^\S.{20,}[.;)]$/s)
    }
  })

  it('names the contract versions a Service-Version may carry, the seed version first', () => {
    expect(CONTRACT_VERSIONS[0]).toBe('2026-08-26') // spec §9.1
    const list = CONTRACT_VERSIONS.map((v) => `\`${v}\``).join(' or ')
    expect(ERROR_CODES.UNSUPPORTED_SERVICE_VERSION!.guidance).toBe(
      `The Service-Version header names a contract this service does not serve. Send ${list}, or omit the header for 2026-08-26; the service never falls back silently.`
    )
  })
})

describe('the MCP server', () => {
  let mcp: typeof import('../../src/mcp/server.js')
  let tools: typeof import('../../src/mcp/tools.js')
  beforeAll(async () => {
    mcp = await import('../../src/mcp/server.js')
    tools = await import('../../src/mcp/tools.js')
  })

  async function connect(ctx: Partial<ToolContext> = {}): Promise<Client> {
    const [a, b] = InMemoryTransport.createLinkedPair()
    const client = new Client({ name: 'support-units', version: '1' })
    await Promise.all([mcp.createMcpServer({ base: 'http://x', req: { id: 'r1', log: { error() {}, warn() {} } }, ...ctx } as ToolContext).connect(a), client.connect(b)])
    return client
  }

  it('introduces itself: name, title, latest contract version, read-only tools, the workflow', async () => {
    const client = await connect()
    expect(client.getServerVersion()).toEqual({ name: 'hardware-facts', title: 'Hardware Facts', version: LATEST_VERSION })
    expect(client.getServerCapabilities()?.tools).toEqual({ listChanged: false })
    const text = client.getInstructions()!
    // The four sentences of the workflow, each said once.
    for (const s of ['Hardware Facts serves deterministic, source-backed microcontroller facts', 'Workflow: resolve_part first; then get_context', 'never pick a candidate yourself', 'must come from get_context, never from memory; cite the evidence locator.', 'get_error_code explains any code.'])
      expect(text).toContain(s)
    expect(text).toMatch(/facts \(registers, pins, electrical limits, errata, memory maps, interrupts, DMA, clocks\), each with the source artifact and line it came from\. Workflow/)
    expect(text).toMatch(/\(or a package for pins\)\. Register addresses.*locator\. A tool result with isError/)
    await client.close()
  })

  it('lists every tool with its schemas as declared, read-only and closed-world', async () => {
    const client = await connect()
    const { tools: listed } = await client.listTools()
    expect(listed.map((t) => t.name)).toEqual(tools.TOOLS.map((t) => t.name))
    for (const [i, t] of listed.entries()) {
      const d = tools.TOOLS[i]!
      expect(t).toEqual(JSON.parse(JSON.stringify({ name: d.name, title: d.title, description: d.description, inputSchema: d.input, outputSchema: d.output, annotations: { readOnlyHint: true, openWorldHint: false } })))
    }
    expect(mcp.TOOL_LIST).toHaveLength(tools.TOOLS.length)
    await client.close()
  })

  it('an unknown tool is a protocol error -32602 naming the tool; a known one is called', async () => {
    const client = await connect()
    const err = await client.callTool({ name: 'no_such_tool', arguments: {} }).catch((e: Obj) => e)
    expect(err.code).toBe(-32602)
    expect(err.message).toBe(`MCP error -32602: Tool no_such_tool not found; tools/list names the ${tools.TOOLS.length} tools.`)
    const ok = (await client.callTool({ name: 'get_error_code', arguments: { code: 'NOT_FOUND' } })) as Obj
    expect(ok.isError).toBeFalsy()
    expect(ok.structuredContent).toMatchObject({ code: 'NOT_FOUND', status: 404 })
    await client.close()
  })
})
