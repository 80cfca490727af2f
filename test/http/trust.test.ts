import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildRelease } from '../../indexer/build.js'
import { DataDir } from '../../src/store/layout.js'
import { testApp, type TestApp } from '../helpers/app.js'
import { SAMPLE_CORPUS } from '../helpers/sample-corpus.js'

// Health and provenance report what was checked, not literals: the package's version, and a sha256 re-check.
const PACKAGE = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }

let dataDir: string
let t: TestApp
beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'hwfacts-trust-'))
  const r = await buildRelease({ inventory: SAMPLE_CORPUS, dataDir })
  new DataDir(dataDir).promote(r.id)
  t = await testApp(dataDir)
})
afterAll(async () => {
  await t?.close()
  rmSync(dataDir, { recursive: true, force: true })
})

const svdSource = async (app: TestApp) => {
  const r = (await app.app.inject({ url: '/v1/sources?part=STM32F407VG', headers: app.auth })).json()
  return r.sources.find((s: { path: string }) => s.path === 'svd/STMicro/STM32F407.svd') as { archivePath: string; sha256: string; trust: { checksumVerified: boolean; checksumNote: string } }
}

describe('health and trust metadata', () => {
  it('liveness and readiness report the version in package.json', async () => {
    expect(PACKAGE.version).not.toBe('0.0.0')
    for (const url of ['/livez', '/readyz', '/health']) expect((await t.app.inject({ url })).json().version, url).toBe(PACKAGE.version)
  })

  it('checksumVerified is true only when the archived bytes re-hash to the inventory sha256', async () => {
    const ok = await svdSource(t)
    expect(ok.trust).toMatchObject({ checksumVerified: true })
    // The same release with one archived artifact altered, read by a fresh service: not verified, and says why.
    const file = join(dataDir, ok.archivePath)
    chmodSync(file, 0o644)
    writeFileSync(file, readFileSync(file, 'utf8').replace('<name>', '<name> '))
    const fresh = await testApp(dataDir)
    try {
      const bad = await svdSource(fresh)
      expect(bad.sha256).toBe(ok.sha256)
      expect(bad.trust.checksumVerified).toBe(false)
      expect(bad.trust.checksumNote).toMatch(/hash to [0-9a-f]{64}/)
      rmSync(file)
      const gone = await testApp(dataDir)
      try {
        expect((await svdSource(gone)).trust).toMatchObject({ checksumVerified: false, checksumNote: expect.stringMatching(/missing/) })
      } finally {
        await gone.close()
      }
    } finally {
      await fresh.close()
    }
  })

  it('without an archive to check, nothing is claimed as verified', async () => {
    const { HardwareFacts } = await import('../../src/service/facts.js')
    const { SqliteRepository } = await import('../../src/store/sqlite/store.js')
    const repo = new SqliteRepository(dataDir)
    try {
      const r = await new HardwareFacts(repo, 's').sources({ part: 'nRF52832' })
      expect(r.sources.length).toBeGreaterThan(0)
      for (const s of r.sources) expect(s.trust.checksumVerified).toBe(false)
    } finally {
      await repo.close()
    }
  })
})
