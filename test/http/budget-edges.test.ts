import { countTokens } from 'gpt-tokenizer/encoding/cl100k_base'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { testApp, type TestApp } from '../helpers/app.js'
import { corpusDataDir } from '../helpers/corpus-release.js'
import { ContractChecker } from '../helpers/openapi.js'

type Obj = Record<string, any>
let t: TestApp
let contract: ContractChecker
let releaseId: string

beforeAll(async () => {
  t = await testApp(await corpusDataDir())
  contract = new ContractChecker(JSON.parse((await t.app.inject({ url: '/openapi.json' })).body))
  releaseId = (await get('/v1/release')).release.id
})
afterAll(async () => t?.close())

/** A 200 body that matches the served contract, and its size by the real tokenizer over the bytes sent. */
async function get(path: string, query: Obj = {}): Promise<Obj> {
  const qs = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)])).toString()
  const res = await contract.call(t.app, { method: 'GET', url: qs ? `${path}?${qs}` : path, headers: t.auth })
  expect(res.statusCode, res.body).toBe(200)
  const body = res.json() as Obj
  if (body.page?.maxTokens !== undefined) expect(countTokens(res.body)).toBeLessThanOrEqual(body.page.maxTokens)
  return body
}

describe('a comparison whose budget cannot hold the next entry answers as /v1/context does: 200, no entries, the budget that would', () => {
  it('/v1/compare/parts at max_tokens=256', async () => {
    const query = { part: 'STM32F407VG', other: 'STM32G474RE', topic: 'registers' }
    const small = await get('/v1/compare/parts', { ...query, max_tokens: 256 })
    expect(small.status).toBe('ok')
    expect(small.entries).toEqual([])
    expect(small.page).toMatchObject({ returned: 0, maxTokens: 256, truncatedBy: 'max_tokens', nextCursor: null, budgetTooSmall: true })
    const full = await get('/v1/compare/parts', { ...query, max_tokens: 16000, limit: 1 })
    expect(full.entries).toHaveLength(1)
    // Both sides resolved; their targets would not fit with the page, so they are left out and said to be.
    expect(small.elided).toBe(true)
    for (const s of ['part', 'other']) {
      expect(full[s].target).not.toBeNull()
      expect(small[s]).toEqual({ ...full[s], target: null })
    }
    expect(small.counts).toEqual(full.counts)
    // The budget it names gives the first entry, the same one as a large budget, with the targets.
    const next = await get('/v1/compare/parts', { ...query, max_tokens: small.page.neededMaxTokens })
    expect(next.entries[0]).toEqual(full.entries[0])
    expect(next.elided).toBeUndefined()
    expect(next.part).toEqual(full.part)
  })

  it('/v1/compare/releases at max_tokens=256: nothing changed (one release against itself), said within the budget', async () => {
    const query = { part: 'STM32F407VG', topic: 'registers', from_release: releaseId }
    const small = await get('/v1/compare/releases', { ...query, max_tokens: 256 })
    const full = await get('/v1/compare/releases', { ...query, max_tokens: 16000 })
    expect(full.artifacts).toHaveLength(1)
    expect(small).toMatchObject({ status: 'ok', changes: [], artifacts: [], elided: true, counts: full.counts })
    expect(small.page).toMatchObject({ returned: 0, maxTokens: 256, truncatedBy: null, budgetTooSmall: false })
    expect(small.from).toEqual({ ...full.from, target: null })
  })

  it('/v1/compare/parts at max_tokens=256 with an ambiguous side: 200, its candidates left out and the budget that lists them named', async () => {
    const query = { part: 'STM32F4', other: 'STM32G474RE', topic: 'registers' }
    const small = await get('/v1/compare/parts', { ...query, max_tokens: 256 })
    expect(small.status).toBe('ambiguous')
    expect(small.part.candidates).toEqual([])
    expect(small.elided).toBe(true)
    const note = (small.notes as string[]).find((n) => n.includes('leaves no room for the candidates'))!
    const budget = Number(/max_tokens=(\d+) lists them/.exec(note)![1])
    const named = await get('/v1/compare/parts', { ...query, max_tokens: budget })
    expect(named.part.candidates.length).toBeGreaterThan(0)
    expect(named.part.candidateCount).toBe(small.part.candidateCount)
  })
})
