import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { testApp, type TestApp } from '../helpers/app.js'
import { corpusDataDir } from '../helpers/corpus-release.js'
import { ContractChecker } from '../helpers/openapi.js'

type Obj = Record<string, any>
let t: TestApp
let contract: ContractChecker

beforeAll(async () => {
  t = await testApp(await corpusDataDir())
  contract = new ContractChecker(JSON.parse((await t.app.inject({ url: '/openapi.json' })).body))
})
afterAll(async () => t?.close())

async function get(path: string, query: Obj, headers: Record<string, string> = {}) {
  const qs = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)])).toString()
  return contract.call(t.app, { method: 'GET', url: `${path}?${qs}`, headers: { ...t.auth, ...headers } })
}

async function ok(path: string, query: Obj): Promise<Obj> {
  const res = await get(path, query)
  expect(res.statusCode, res.body).toBe(200)
  return res.json() as Obj
}

/** Every page of a list, following page.nextCursor. */
async function all(path: string, query: Obj, member: string): Promise<{ pages: Obj[]; items: Obj[] }> {
  const pages: Obj[] = []
  let cursor: string | undefined
  do {
    const body = await ok(path, { ...query, ...(cursor ? { cursor } : {}) })
    pages.push(body)
    cursor = body.page.nextCursor ?? undefined
  } while (cursor && pages.length < 100)
  return { pages, items: pages.flatMap((p) => p[member]) }
}

/** Upper-cased, without punctuation: how the catalog compares names (README, "Resolve never picks"). */
const norm = (s: string) => s.toUpperCase().replace(/[^A-Z0-9]/g, '')

describe('catalog search pages through every match with a cursor', () => {
  it('STM32F4: all `total` matches, once each, every one a name starting with the query', async () => {
    const first = await ok('/v1/catalog/search', { q: 'STM32F4', candidate_limit: 20 })
    expect(first.total).toBeGreaterThan(20)
    expect(first.results).toHaveLength(20)
    expect(first.page).toMatchObject({ returned: 20, limit: 20, nextCursor: expect.any(String) })
    const { pages, items } = await all('/v1/catalog/search', { q: 'STM32F4', candidate_limit: 20 }, 'results')
    expect(pages).toHaveLength(Math.ceil(first.total / 20))
    expect(items).toHaveLength(first.total)
    expect(new Set(items.map((x) => x.name)).size).toBe(first.total)
    for (const x of items) expect(norm(x.name).startsWith('STM32F4'), x.name).toBe(true)
    for (const p of pages) expect(p.total).toBe(first.total)
    expect(pages.at(-1)!.page.nextCursor).toBeNull()
    // The page size does not change the order: pages of 7 give the same list.
    const sevens = await all('/v1/catalog/search', { q: 'STM32F4', candidate_limit: 7 }, 'results')
    expect(sevens.items.map((x) => x.name)).toEqual(items.map((x) => x.name))
  })

  it('a request without cursor answers as before, plus `page`; a list that fits one page has no cursor', async () => {
    const body = await ok('/v1/catalog/search', { q: 'STM32F407VG' })
    expect(body.results.length).toBe(body.total)
    expect(body.page).toEqual({ returned: body.total, limit: 10, nextCursor: null })
  })
})

describe('resolve pages through every candidate with a cursor', () => {
  it('STM32F4: all candidateCount candidates, once each, the first page as without cursor', async () => {
    const first = await ok('/v1/parts/resolve', { q: 'STM32F4' })
    expect(first.status).toBe('ambiguous')
    expect(first.candidateCount).toBeGreaterThan(10)
    expect(first.candidates).toHaveLength(10)
    const { pages, items } = await all('/v1/parts/resolve', { q: 'STM32F4', candidate_limit: 20 }, 'candidates')
    expect(items).toHaveLength(first.candidateCount)
    expect(new Set(items.map((x) => x.name)).size).toBe(first.candidateCount)
    expect(items.slice(0, 10)).toEqual(first.candidates)
    // Each page still resolves the same way: the status and topics do not depend on the page.
    for (const p of pages) expect({ status: p.status, topics: p.topics, candidateCount: p.candidateCount }).toEqual({ status: pages[0]!.status, topics: pages[0]!.topics, candidateCount: first.candidateCount })
    // Ranking by query is part of the list the cursor belongs to.
    const ranked = await ok('/v1/parts/resolve', { q: 'STM32F4', query: 'LQFP100' })
    const res = await get('/v1/parts/resolve', { q: 'STM32F4', cursor: ranked.page.nextCursor })
    expect(res.statusCode).toBe(400)
    expect(res.json()).toMatchObject({ code: 'INVALID_CURSOR', param: 'cursor' })
  })

  it('refuses a cursor of another list, an altered one, and one over 512 characters', async () => {
    const search = await ok('/v1/catalog/search', { q: 'STM32F4' })
    for (const cursor of [search.page.nextCursor, search.page.nextCursor.slice(0, -2) + 'xx']) {
      const res = await get('/v1/parts/resolve', { q: 'STM32F4', cursor })
      expect(res.statusCode).toBe(400)
      expect(res.json()).toMatchObject({ code: 'INVALID_CURSOR', param: 'cursor' })
    }
    const long = await get('/v1/catalog/search', { q: 'STM32F4', cursor: 'x'.repeat(513) })
    expect(long.statusCode).toBe(400)
    expect(long.json()).toMatchObject({ code: 'INVALID_PARAMETER', param: 'cursor' })
    // A context cursor is no list cursor either.
    const ctx = await ok('/v1/context', { part: 'STM32F407VG', topic: 'registers', limit: 1 })
    const cross = await get('/v1/catalog/search', { q: 'STM32F4', cursor: ctx.page.nextCursor })
    expect(cross.json()).toMatchObject({ code: 'INVALID_CURSOR', param: 'cursor' })
  })
})
