import { existsSync } from 'node:fs'
import { chromium, type Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { testApp, type TestApp } from '../helpers/app.js'
import { corpusDataDir } from '../helpers/corpus-release.js'

/**
 * Debian's chromium. CI installs it and names it in CHROMIUM_PATH (.ci/run): a named binary is
 * required, so CI fails rather than skips without it; elsewhere the test skips, saying why.
 */
const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium'
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync']
const run = existsSync(CHROMIUM) || Boolean(process.env.CHROMIUM_PATH)
if (!run) console.log(`test/http/docs.test.ts: skipped, no chromium at ${CHROMIUM} (apt-get install -y chromium, or set CHROMIUM_PATH)`)

describe.skipIf(!run)('/docs in headless Chromium', () => {
  let t: TestApp
  let base: string
  let browser: Browser

  beforeAll(async () => {
    t = await testApp(await corpusDataDir())
    base = await t.app.listen({ port: 0, host: '127.0.0.1' })
    browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS })
  }, 60_000)
  afterAll(async () => {
    await browser?.close()
    await t?.close()
  })

  it('shows the /v1/context operation with its typed 200 body, from local assets only, without a credential', async () => {
    const page = await browser.newPage()
    const requests: string[] = []
    page.on('request', (r) => requests.push(r.url()))
    const blocked: string[] = []
    page.on('console', (m) => {
      if (/Content Security Policy|Failed to load/i.test(m.text())) blocked.push(m.text())
    })
    const res = await page.goto(`${base}/docs`)
    expect(res?.status()).toBe(200)
    expect(await page.title()).toBe('Hardware Facts — API reference')

    const op = page.locator('#operations-default-getContext')
    await op.waitFor({ timeout: 30_000 })
    expect(await op.locator('.opblock-summary-path').getAttribute('data-path')).toBe('/v1/context')
    await op.locator('.opblock-summary-control').click()
    const ok = op.locator('tr.response[data-code="200"]')
    await ok.waitFor()
    // The 200 body is the ContextResponse schema with its members, not an empty object...
    const schema = await ok.locator('.model-box').innerText()
    expect(schema).toContain('ContextResponse')
    for (const member of ['release', 'facts', 'page', 'filters', 'target']) expect(schema).toMatch(new RegExp(`^${member}Expand all`, 'm'))
    // ... and its example shows the nested members a client reads.
    await ok.locator('button[data-name="example"]').click()
    const example = await ok.locator('.microlight').first().innerText()
    for (const member of ['"evidence"', '"locator"', '"nextCursor"', '"budgetTooSmall"']) expect(example).toContain(member)

    // Everything came from this server: the document and Swagger UI's own assets, no CDN.
    expect(requests.length).toBeGreaterThan(3)
    for (const u of requests) expect(u.startsWith(`${base}/`) || u.startsWith('data:'), u).toBe(true)
    expect(requests).toContain(`${base}/docs/json`)
    expect(blocked).toEqual([])
    await page.close()
  }, 60_000)

})

describe('/docs without a browser', () => {
  it('is served without a credential, over the same document as /openapi.json, with a CSP allowing only this origin', async () => {
    const t = await testApp(await corpusDataDir())
    try {
      const page = await t.app.inject({ url: '/docs/' })
      expect(page.statusCode).toBe(200)
      expect(page.headers['content-security-policy']).toMatch(/^default-src 'self';/)
      expect(page.body).not.toMatch(/https?:\/\//)
      const ui = await t.app.inject({ url: '/docs/json' })
      expect(ui.json()).toEqual((await t.app.inject({ url: '/openapi.json' })).json())
    } finally {
      await t.close()
    }
  })
})
