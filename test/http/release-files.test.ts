import { chmodSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { releaseFilesCheck } from '../../src/http/release-files.js'
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
const waitFor = async (cond: () => Promise<boolean>) => {
  for (let i = 0; i < 100 && !(await cond()); i++) await new Promise((r) => setTimeout(r, 50))
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
