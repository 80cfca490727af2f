import { spawn, type ChildProcess } from 'node:child_process'
import { appendFileSync, chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { Agent, request } from 'node:http'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildRelease } from '../../indexer/build.js'
import { generateKey } from '../../src/auth/keys.js'
import { DataDir } from '../../src/store/layout.js'
import type { ReleaseManifest } from '../../src/store/types.js'
import { promoteSampleRelease, SAMPLE_CORPUS } from '../helpers/sample-corpus.js'

/** src/server.ts as an operator runs it: its own process, configured by the environment, stopped by signals. */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..')
let dataDir: string
const key = generateKey('proc')

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'hwfacts-proc-'))
  await promoteSampleRelease(dataDir)
})
afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

function serve(env: Record<string, string>): { proc: ChildProcess; url: Promise<string>; output: () => string; exit: Promise<number | null> } {
  const proc = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'src/server.ts')], {
    env: { ...process.env, HWFACTS_DATA_DIR: dataDir, PORT: '0', REDIS_URL: '', ELASTICSEARCH_URL: '', OPENSEARCH_URL: '', HWFACTS_CURSOR_SECRET: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  let out = ''
  proc.stdout!.on('data', (d: Buffer) => (out += d.toString()))
  proc.stderr!.on('data', (d: Buffer) => (out += d.toString()))
  const exit = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)))
  const url = new Promise<string>((res, rej) => {
    proc.stdout!.on('data', () => {
      const m = /listening on (http:\/\/\S+)/.exec(out)
      if (m) res(m[1]!)
    })
    void exit.then((code) => rej(new Error(`server exited with ${code}: ${out}`)))
  })
  // Awaited only by the tests that expect the server up.
  url.catch(() => {})
  return { proc, url, output: () => out, exit }
}

describe('src/server.ts', () => {
  it('refuses to start without its keys file (not a development data dir), or with a wrong one', async () => {
    const missing = serve({ HWFACTS_API_KEYS_FILE: join(dataDir, 'absent.json') })
    expect(await missing.exit).toBe(1)
    expect(missing.output()).toMatch(/no API keys file/)
    const file = join(dataDir, 'bad-keys.json')
    writeFileSync(file, JSON.stringify({ keys: [{ ...key.record, releases: '*' }] }))
    const wrong = serve({ HWFACTS_API_KEYS_FILE: file })
    expect(await wrong.exit).toBe(1)
    expect(wrong.output()).toMatch(/no key of this file is used/)
  })

  it('on SIGTERM drains (readyz 503, Connection: close, no reset), then exits 0; the cursor secret was made for the data dir', { timeout: 60_000 }, async () => {
    const file = join(dataDir, 'keys.json')
    writeFileSync(file, JSON.stringify({ keys: [key.record] }))
    // The clients below ask as fast as the server answers: on an idle machine that is past the default
    // budget of 600 a minute, and a 429 would read as a failed drain.
    const s = serve({ HWFACTS_API_KEYS_FILE: file, HWFACTS_DRAIN_MS: '1500', LOG_LEVEL: 'info', HWFACTS_RATE_LIMIT_MAX: '1000000' })
    const base = await s.url
    expect(s.output()).toMatch(/cursor secret: .*cursor-secret/)
    expect(statSync(join(dataDir, 'cursor-secret')).mode & 0o777).toBe(0o600)
    const agent = new Agent({ keepAlive: true, maxSockets: 8 })
    const get = (path: string) =>
      new Promise<{ status: number; close: boolean }>((res, rej) => {
        const req = request(`${base}${path}`, { agent, headers: { authorization: `Bearer ${key.secret}` } }, (r) => {
          r.resume()
          r.on('end', () => res({ status: r.statusCode!, close: r.headers.connection === 'close' }))
        })
        req.on('error', rej)
        req.end()
      })
    const failures: string[] = []
    let drained = 0
    // Kept-alive clients that leave when told Connection: close, as a load balancer's pool does.
    const clients = Array.from({ length: 8 }, async () => {
      for (;;) {
        try {
          const r = await get('/v1/release')
          if (r.status !== 200) failures.push(String(r.status))
          if (r.close) return void drained++
        } catch (err) {
          return void failures.push((err as NodeJS.ErrnoException).code ?? String(err))
        }
      }
    })
    await new Promise((r) => setTimeout(r, 300))
    s.proc.kill('SIGTERM')
    await new Promise((r) => setTimeout(r, 300))
    const ready = await get('/readyz')
    expect(ready.status).toBe(503)
    await Promise.all(clients)
    expect(await s.exit).toBe(0)
    agent.destroy()
    expect(failures).toEqual([])
    expect(drained).toBe(8)
  })

  it('listens while its archived sources are re-hashed; /readyz then says which do not match, and /v1/sources never calls them verified', { timeout: 60_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hwfacts-proc-src-'))
    try {
      const data = new DataDir(dir)
      const id = (await buildRelease({ inventory: SAMPLE_CORPUS, dataDir: dir })).id
      data.promote(id)
      const m = JSON.parse(readFileSync(data.manifestPath(id), 'utf8')) as ReleaseManifest
      const svd = m.sources.find((x) => x.path === 'svd/STMicro/STM32F407.svd')!
      const archived = join(dir, svd.archivePath)
      chmodSync(archived, 0o644)
      appendFileSync(archived, ' ')
      const file = join(dir, 'keys.json')
      writeFileSync(file, JSON.stringify({ keys: [key.record] }))
      const s = serve({ HWFACTS_DATA_DIR: dir, HWFACTS_API_KEYS_FILE: file })
      try {
        const base = await s.url
        let ready: { status: string; checks: Record<string, { ok: boolean; critical?: boolean; detail?: string }> }
        for (;;) {
          ready = await (await fetch(`${base}/readyz`)).json()
          if (!/^re-hashing/.test(ready.checks.sources?.detail ?? '')) break
          await new Promise((r) => setTimeout(r, 20))
        }
        // Not critical: the facts are still served; their sources say they are not verified.
        expect(ready.status).toBe('ok')
        expect(ready.checks.sources).toEqual({ ok: false, critical: false, detail: `${m.sources.length} archived sources of release ${id} re-hashed; 1 do not match their inventory sha256 or are missing (first: ${svd.path})` })
        const r = await (await fetch(`${base}/v1/sources?part=STM32F407VG`, { headers: { authorization: `Bearer ${key.secret}` } })).json()
        const trust = (r as { sources: Array<{ path: string; trust: { checksumVerified: boolean; checksumNote: string } }> }).sources.map((x) => [x.path, x.trust.checksumVerified])
        expect(trust).toContainEqual([svd.path, false])
        expect(trust.filter(([, ok]) => ok).length).toBe(trust.length - 1)
      } finally {
        s.proc.kill('SIGINT')
        await s.exit
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('does not start on a promoted release file that does not match its recorded digest: nothing of it is ever served', { timeout: 60_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hwfacts-proc-db-'))
    try {
      const data = new DataDir(dir)
      const id = (await buildRelease({ inventory: SAMPLE_CORPUS, dataDir: dir })).id
      data.promote(id)
      // One byte of a body block changed: the file is still a readable SQLite database of the same size.
      const db = data.releaseDb(id)
      const bytes = readFileSync(db)
      const at = bytes.length - 100
      bytes[at] = bytes[at]! ^ 1
      chmodSync(db, 0o644)
      writeFileSync(db, bytes)
      const file = join(dir, 'keys.json')
      writeFileSync(file, JSON.stringify({ keys: [key.record] }))
      const s = serve({ HWFACTS_DATA_DIR: dir, HWFACTS_API_KEYS_FILE: file })
      expect(await s.exit).toBe(1)
      expect(s.output()).toMatch(new RegExp(`Corpus release ${id} is not served: release.sqlite has sha256 [0-9a-f]{64}; its manifest records [0-9a-f]{64}`))
      expect(s.output()).not.toMatch(/listening/)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
