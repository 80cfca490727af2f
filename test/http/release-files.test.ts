import { chmodSync, cpSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { releaseFilesCheck, type ReleaseFilesOptions } from '../../src/http/release-files.js'
import { DataDir } from '../../src/store/layout.js'
import { testApp, type TestApp } from '../helpers/app.js'
import { promoteSampleRelease } from '../helpers/sample-corpus.js'
import { scratchDirs } from '../helpers/scratch.js'

/** Item 5 of issue 29: the served release's files are re-checked while served, and /readyz says so. */
const tmp = scratchDirs()
let dataDir: string
let dir: string
let shard: string
let t: TestApp | undefined
const check = () =>
  releaseFilesCheck({ servedDir: async () => dir, statEveryMs: 0, digestEveryMs: 60_000 })
let files: ReturnType<typeof check> | undefined

beforeAll(async () => {
  dataDir = tmp('hwfacts-files-')
  const id = await promoteSampleRelease(dataDir)
  dir = new DataDir(dataDir).releaseDir(id)
  shard = join(dir, 'shards', readdirSync(join(dir, 'shards'))[0]!)
})
afterAll(async () => {
  files?.stop()
  await t?.close()
})

/** The app and its check are made in the first test (not in a hook): a mutation run then sees which test runs their code. */
const readyz = async () => {
  t ??= await testApp(dataDir, { readinessChecks: [(files = check())] })
  const r = await t.app.inject({ url: '/readyz' })
  return { status: r.statusCode, check: r.json().checks['release-files'] as { ok: boolean; detail: string; critical: boolean } }
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const waitFor = async (cond: () => Promise<boolean>) => {
  for (let i = 0; i < 100 && !(await cond()); i++) await sleep(50)
}

describe('5: the served release damaged on disk', () => {
  it('is reported by /readyz (503, naming the file) as soon as a size changes; a file put back with the same bytes is forgiven after its digest', async () => {
    const ok = await readyz()
    expect(ok.status).toBe(200)
    expect(ok.check).toMatchObject({ ok: true, critical: true })
    // One shard per unit, plus the top file.
    const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'))
    expect(ok.check.detail).toMatch(new RegExp(`^${manifest.shards.length + 1} files: size and mtime unchanged`))

    const bytes = readFileSync(shard)
    chmodSync(shard, 0o644)
    // One byte more: the size differs from the manifest's.
    writeFileSync(shard, Buffer.concat([bytes, Buffer.from([0])]))
    const bad = await readyz()
    expect(bad.status).toBe(503)
    expect(bad.check.ok).toBe(false)
    expect(bad.check.detail).toContain(`${shard.split('/').pop()} has ${bytes.length + 1} bytes; its manifest records ${bytes.length}`)

    // The same size, one byte flipped: mtime says it changed, the digest confirms the damage.
    const flipped = Buffer.from(bytes)
    const mid = flipped.length >> 1
    flipped[mid] = flipped[mid]! ^ 0xff
    writeFileSync(shard, flipped)
    await waitFor(async () => (await readyz()).check.detail.includes('sha256'))
    const damaged = await readyz()
    expect(damaged.status).toBe(503)
    expect(damaged.check.detail).toMatch(/has sha256 [0-9a-f]{64}; its manifest records/)

    // Its own bytes back (a restore): the digest matches again and the check passes.
    writeFileSync(shard, bytes)
    utimesSync(shard, new Date(), new Date(Date.now() + 5000))
    await waitFor(async () => (await readyz()).status === 200)
    const restored = await readyz()
    expect(restored.status).toBe(200)
    expect(restored.check.detail).toMatch(/every digest matched at \d{4}-/)
  })
})

describe('releaseFilesCheck on its own: copies of the release, the check called directly', () => {
  const made: Array<{ stop: () => void }> = []
  afterAll(() => made.forEach((c) => c.stop()))
  const make = (o: ReleaseFilesOptions) => {
    const c = releaseFilesCheck(o)
    made.push(c)
    return c
  }
  /** A writable copy of the served release, and its files as the manifest names them. */
  const copy = () => {
    const d = join(tmp('hwfacts-files-copy-'), 'release')
    cpSync(dir, d, { recursive: true })
    const names = ['release.sqlite', ...readdirSync(join(d, 'shards')).map((n) => `shards/${n}`)]
    for (const n of names) chmodSync(join(d, n), 0o644)
    return { d, names }
  }
  const grow = (f: string) => writeFileSync(f, Buffer.concat([readFileSync(f), Buffer.from([0])]))
  const flip = (f: string) => {
    const b = readFileSync(f)
    b[b.length >> 1] = b[b.length >> 1]! ^ 0xff
    writeFileSync(f, b)
  }
  const PREFIX = "the served release's files are damaged: "

  it('no release served: ok, saying so; a digest round before any release is served does nothing', async () => {
    const c = make({ servedDir: async () => undefined, digestEveryMs: 5 })
    await sleep(40)
    expect(await c.check()).toEqual({ ok: true, detail: 'no release served' })
  })

  it('sizes once every statEveryMs; the first three problems named, then how many more', async () => {
    const { d, names } = copy()
    expect(names.length).toBe(4)
    const slow = make({ servedDir: async () => d, statEveryMs: 60_000, digestEveryMs: 60_000 })
    const fast = make({ servedDir: async () => d, statEveryMs: 30, digestEveryMs: 60_000 })
    const ok = { ok: true, detail: '4 files: size and mtime unchanged; digests checked when opened' }
    expect(await slow.check()).toEqual(ok)
    expect(await fast.check()).toEqual(ok)
    for (const n of names.slice(0, 3)) grow(join(d, n))
    await sleep(60)
    // Not looked at again within statEveryMs; looked at after it. Exactly three problems: no count of more.
    expect(await slow.check()).toEqual(ok)
    const three = await fast.check()
    expect(three.ok).toBe(false)
    expect(three.detail!.startsWith(PREFIX)).toBe(true)
    const parts = three.detail!.slice(PREFIX.length).split(/; (?=release\.sqlite|shards\/)/)
    expect(parts).toHaveLength(3)
    for (const p of parts) expect(p).toMatch(/^(release\.sqlite|shards\/\S+) has \d+ bytes; its manifest records \d+$/)
    expect(parts.map((p) => p.split(' ')[0]).sort()).toEqual(names.slice(0, 3).sort())
    // A fourth: the first three named, and one more counted.
    grow(join(d, names[3]!))
    const fresh = make({ servedDir: async () => d, digestEveryMs: 60_000 })
    const four = await fresh.check()
    expect(four.detail).toMatch(new RegExp(`^${PREFIX}release\\.sqlite has .*shards/\\S+ has \\d+ bytes; its manifest records \\d+ \\(and 1 more\\)$`))
    expect(four.detail!.split(' has ')).toHaveLength(4)
  })

  it('a file touched (the same bytes) is named, then forgiven by its digest; a missing file cannot be read', async () => {
    const { d, names } = copy()
    const c = make({ servedDir: async () => d, statEveryMs: 0, digestEveryMs: 60_000 })
    expect((await c.check()).ok).toBe(true)
    utimesSync(join(d, names[1]!), new Date(), new Date(Date.now() + 5000))
    const touched = await c.check()
    expect(touched).toEqual({ ok: false, detail: `${PREFIX}${names[1]} was modified while served (mtime changed)` })
    await waitFor(async () => (await c.check()).ok)
    const forgiven = await c.check()
    expect(forgiven.detail).toMatch(/^4 files: size and mtime unchanged; every digest matched at \d{4}-\d\d-\d\dT[\d:.]+Z$/)
    rmSync(join(d, names[2]!))
    expect(await c.check()).toMatchObject({ ok: false, detail: `${PREFIX}${names[2]} cannot be read (ENOENT)` })
  })

  it('bytes changed in place are found by the digest round; none after stop()', async () => {
    const a = copy()
    const b = copy()
    const running = make({ servedDir: async () => a.d, statEveryMs: 60_000, digestEveryMs: 20 })
    const stopped = make({ servedDir: async () => b.d, statEveryMs: 60_000, digestEveryMs: 20 })
    expect((await running.check()).ok).toBe(true)
    expect((await stopped.check()).ok).toBe(true)
    stopped.stop()
    flip(join(a.d, a.names[1]!))
    flip(join(b.d, b.names[1]!))
    await waitFor(async () => !(await running.check()).ok)
    expect((await running.check()).detail).toMatch(/has sha256 [0-9a-f]{64}; its manifest records/)
    await sleep(300)
    expect((await stopped.check()).ok).toBe(true)
  })

  it('a digest of a release no longer served is not applied to the one served now', async () => {
    const damaged = copy()
    const healthy = copy()
    let served = damaged.d
    const c = make({ servedDir: async () => served, statEveryMs: 0, digestEveryMs: 60_000 })
    expect((await c.check()).ok).toBe(true)
    flip(join(damaged.d, damaged.names[1]!))
    utimesSync(join(damaged.d, damaged.names[1]!), new Date(), new Date(Date.now() + 5000))
    // The changed mtime starts a digest of the damaged copy; the healthy one is served before it ends.
    expect((await c.check()).ok).toBe(false)
    served = healthy.d
    expect(await c.check()).toEqual({ ok: true, detail: '4 files: size and mtime unchanged; digests checked when opened' })
    await sleep(500)
    expect(await c.check()).toEqual({ ok: true, detail: '4 files: size and mtime unchanged; digests checked when opened' })
  })
})
