import { execFile } from 'node:child_process'
import { createHash } from 'node:crypto'
import { chmodSync, cpSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildRelease, type BuildResult } from '../../indexer/build.js'
import { InventoryError } from '../../indexer/inventory.js'
import { DataDir } from '../../src/store/layout.js'
import { openSqliteRelease, readStoredFacts } from '../../src/store/sqlite/store.js'
import { SAMPLE_CORPUS } from '../helpers/sample-corpus.js'
import { scratchDirs } from '../helpers/scratch.js'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..')
const run = promisify(execFile)
const tmp = scratchDirs()

/** Runs the real CLI; resolves with its exit code and output instead of throwing. */
async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const r = await run(process.execPath, ['--import', 'tsx', join(ROOT, 'indexer', 'cli.ts'), ...args], { cwd: ROOT })
    return { code: 0, stdout: r.stdout, stderr: r.stderr }
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string }
    return { code: e.code, stdout: e.stdout, stderr: e.stderr }
  }
}

/** A copy of the sample corpus with one file's bytes changed and its inventory digest updated. */
function alteredCorpus(path: string, edit: (s: string) => string, updateDigest = true): string {
  const dir = tmp()
  cpSync(SAMPLE_CORPUS, dir, { recursive: true })
  const file = join(dir, path)
  const text = edit(readFileSync(file, 'utf8'))
  writeFileSync(file, text)
  if (updateDigest) {
    const inv = JSON.parse(readFileSync(join(dir, 'sources.json'), 'utf8'))
    const rec = inv.sources.find((s: { path: string }) => s.path === path)
    rec.sha256 = createHash('sha256').update(text).digest('hex')
    rec.bytes = Buffer.byteLength(text)
    writeFileSync(join(dir, 'sources.json'), JSON.stringify(inv))
  }
  return dir
}

describe('release builder', () => {
  const dataDir = tmp()
  let first: BuildResult

  beforeAll(async () => {
    first = await buildRelease({ inventory: SAMPLE_CORPUS, dataDir })
  })

  it('writes an immutable, content-addressed release with a manifest', () => {
    expect(first.id).toMatch(/^[a-f0-9]{16}$/)
    expect(first.problems).toEqual([])
    const data = new DataDir(dataDir)
    expect(statSync(data.releaseDb(first.id)).mode & 0o222).toBe(0)
    const manifest = JSON.parse(readFileSync(data.manifestPath(first.id), 'utf8'))
    expect(manifest.id).toBe(first.id)
    expect(manifest.sources).toHaveLength(5)
    for (const s of manifest.sources) {
      const archived = readFileSync(join(dataDir, s.archivePath))
      expect(createHash('sha256').update(archived).digest('hex')).toBe(s.sha256)
      expect(s.archivePath).toBe(`archive/sha256/${s.sha256.slice(0, 2)}/${s.sha256}`)
    }
    expect(manifest.counts.byTopic.registers).toBeGreaterThan(0)
    expect(manifest.counts.byTopic.pins).toBeGreaterThan(0)
    expect(manifest.counts.byTopic.errata).toBeGreaterThan(0)
    expect(manifest.counts.byTopic.electrical).toBe(7)
  })

  it('stores facts with evidence that points into the archived source', () => {
    const row = [...readStoredFacts(new DataDir(dataDir).releaseDb(first.id))].find((r) => r.name_key === 'rcc.ahb1enr')!
    const fact = JSON.parse(row.body)
    // The sample SVD gives RCC at 0x40023800 and AHB1ENR at offset 0x30.
    expect(fact.value.address).toBe('0x40023830')
    expect(fact.value.resetValue).toBe('0x00100000')
    const ev = fact.evidence[0]
    const src = readFileSync(join(SAMPLE_CORPUS, ev.sourcePath), 'utf8').split('\n')
    const line = Number(/^line (\d+):/.exec(ev.locator)![1])
    expect(src.slice(line - 1, line + 2).join('\n')).toContain('<name>AHB1ENR</name>')
    expect(createHash('sha256').update(readFileSync(join(SAMPLE_CORPUS, ev.sourcePath))).digest('hex')).toBe(ev.sourceSha256)
  })

  it('a release file of another schema is refused, not misread', () => {
    const copy = join(tmp(), 'old.sqlite')
    cpSync(new DataDir(dataDir).releaseDb(first.id), copy)
    chmodSync(copy, 0o644)
    const db = new Database(copy)
    db.prepare("UPDATE meta SET value = '1' WHERE key = 'schema'").run()
    db.close()
    expect(() => openSqliteRelease(copy)).toThrow(/schema 1; this service reads schema \d+/)
    expect(openSqliteRelease(new DataDir(dataDir).releaseDb(first.id)).manifest.id).toBe(first.id)
  })

  it('gives the same id for the same inputs, and reuses a kept release', async () => {
    const again = await buildRelease({ inventory: SAMPLE_CORPUS, dataDir })
    expect(again.id).toBe(first.id)
    expect(again.reused).toBe(true)
    const elsewhere = await buildRelease({ inventory: SAMPLE_CORPUS, dataDir: tmp() })
    expect(elsewhere.id).toBe(first.id)
    expect(elsewhere.reused).toBe(false)
  })

  it('changes the id when one byte of one source changes', async () => {
    const dir = alteredCorpus('errata/nordic/errata.dox', (s) => s.replace('Errata overview', 'Errata Overview'))
    const other = await buildRelease({ inventory: dir, dataDir: tmp() })
    expect(other.problems).toEqual([])
    expect(other.id).not.toBe(first.id)
  })

  it('refuses bytes that do not match the inventory digest', async () => {
    const dir = alteredCorpus('svd/STMicro/STM32F407.svd', (s) => s.replace('0x40023800', '0x40023801'), false)
    await expect(buildRelease({ inventory: dir, dataDir: tmp() })).rejects.toThrow(InventoryError)
    await expect(buildRelease({ inventory: dir, dataDir: tmp() })).rejects.toThrow(/sha256 [a-f0-9]{64} does not match/)
  })

  it('reports a source that fails to parse with file and line, and never promotes it silently', async () => {
    const dir = alteredCorpus('svd/STMicro/STM32F407.svd', (s) => s.replace('<name>USART1</name>', '<name>USART1</nam>'))
    const data = tmp()
    const r = await cli(['index', dir, '--data-dir', data, '--promote'])
    expect(r.code).not.toBe(0)
    expect(r.stderr).toMatch(/problem: svd\/STMicro\/STM32F407\.svd:\d+: /)
    expect(new DataDir(data).promotedId()).toBeUndefined()
    const id = r.stdout.trim()
    const refused = await cli(['promote', id, '--data-dir', data])
    expect(refused.code).toBe(2)
    expect(refused.stderr).toMatch(/partial; not promoted/)
    const forced = await cli(['promote', id, '--data-dir', data, '--allow-partial'])
    expect(forced.code).toBe(0)
    expect(new DataDir(data).promotedId()).toBe(id)
  })

  it('CLI: index --promote, releases, verify and a tampered archive', async () => {
    const data = tmp()
    const r = await cli(['index', SAMPLE_CORPUS, '--data-dir', data, '--promote'])
    expect(r.code).toBe(0)
    expect(r.stdout.trim()).toBe(first.id)
    expect(r.stderr).toMatch(/hwfacts: verify 5\/5/)
    const list = await cli(['releases', '--data-dir', data])
    expect(list.stdout).toMatch(new RegExp(`^\\* ${first.id} `, 'm'))
    expect((await cli(['verify', first.id, '--data-dir', data])).stdout).toMatch(/5\/5 archived artifacts verified/)
    const manifest = JSON.parse(readFileSync(new DataDir(data).manifestPath(first.id), 'utf8'))
    const victim = join(data, manifest.sources[0].archivePath)
    chmodSync(victim, 0o644)
    writeFileSync(victim, 'tampered')
    const bad = await cli(['verify', first.id, '--data-dir', data])
    expect(bad.code).toBe(1)
    expect(bad.stdout).toMatch(/4\/5 archived artifacts verified/)
    expect(bad.stderr).toContain(manifest.sources[0].path)
  })

  it('CLI: keys create stores only the hash of a key the service then accepts', async () => {
    const file = join(tmp(), 'keys.json')
    const r = await cli(['keys', 'create', 'ci-bot', '--keys-file', file])
    expect(r.code).toBe(0)
    const secret = r.stdout.trim()
    expect(secret).toMatch(/^hwf_[A-Za-z0-9_-]{43}$/)
    const stored = readFileSync(file, 'utf8')
    expect(stored).not.toContain(secret)
    expect(statSync(file).mode & 0o077).toBe(0)
    const { ApiKeyStore } = await import('../../src/auth/keys.js')
    expect(ApiKeyStore.fromFile(file).verify(secret)?.id).toBe('ci-bot')
    expect(ApiKeyStore.fromFile(file).verify(secret + 'x')).toBeUndefined()
    expect((await cli(['keys', 'create', 'ci-bot', '--keys-file', file])).code).toBe(2)
  })

  describe('fetch', () => {
    let server: Server
    let base: string
    const served = new Map<string, Buffer>()
    beforeAll(async () => {
      server = createServer((req, res) => {
        const body = served.get(decodeURIComponent(req.url ?? '').replace(/^\//, ''))
        if (!body) return res.writeHead(404).end()
        res.writeHead(200).end(body)
      })
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
      base = `http://127.0.0.1:${(server.address() as { port: number }).port}/`
      const inv = JSON.parse(readFileSync(join(SAMPLE_CORPUS, 'sources.json'), 'utf8'))
      for (const s of inv.sources) served.set(s.path, readFileSync(join(SAMPLE_CORPUS, s.path)))
    })
    afterAll(() => new Promise<void>((r) => server.close(() => r())))

    it('downloads, verifies and archives every artifact, ready to index', async () => {
      const data = tmp()
      const out = tmp()
      const r = await cli(['fetch', join(SAMPLE_CORPUS, 'sources.json'), '--data-dir', data, '--mirror', base, '--out', out])
      expect(r.code).toBe(0)
      expect(r.stdout).toMatch(/5 fetched, 0 failed/)
      expect(existsSync(join(out, 'svd/STMicro/STM32F407.svd'))).toBe(true)
      const built = await buildRelease({ inventory: out, dataDir: data })
      expect(built.id).toBe(first.id)
    })

    it('refuses a download whose digest does not match', async () => {
      served.set('errata/nordic/errata.dox', Buffer.from('not the inventoried bytes'))
      const r = await cli(['fetch', join(SAMPLE_CORPUS, 'sources.json'), '--data-dir', tmp(), '--mirror', base])
      expect(r.code).toBe(1)
      expect(r.stdout).toMatch(/4 fetched, 1 failed/)
      expect(r.stderr).toMatch(/errata\/nordic\/errata\.dox: .*sha256 [a-f0-9]{64} does not match/)
    })
  })
})
