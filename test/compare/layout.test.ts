import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { countTokens } from '../../src/model/tokens.js'
import type { ComparePartsParams, CompareReleasesParams } from '../../src/schemas/compare.js'
import { compareOf } from '../../src/service/compare.js'
import { HardwareFacts } from '../../src/service/facts.js'
import { SqliteRepository } from '../../src/store/sqlite/store.js'
import { selectionOf, type FactQuery, type ReleaseRepository, type ReleaseStore } from '../../src/store/types.js'
import { corpusDataDir } from '../helpers/corpus-release.js'

type Obj = Record<string, any>

/** A repository whose stores answer every fact body rewritten (and re-counted), as another writer might store it. */
function rewritingRepository(repo: ReleaseRepository, rewrite: (f: Obj) => Obj, alias?: string): ReleaseRepository {
  const wrapped = new Map<ReleaseStore, ReleaseStore>()
  const wrap = (s: ReleaseStore): ReleaseStore => {
    let w = wrapped.get(s)
    if (!w) {
      const queryFacts = async (q: FactQuery) =>
        (await s.queryFacts(q)).map((r) => {
          const body = JSON.stringify(rewrite(JSON.parse(r.body) as Obj))
          return { ...r, body, tokens: countTokens(body) }
        })
      w = {
        manifest: alias === undefined ? s.manifest : { ...s.manifest, id: alias },
        catalog: s.catalog,
        close: () => s.close(),
        queryFacts,
        // Rewritten bodies count other tokens: the rows are chosen from after the rewrite.
        selectFacts: async (q) => selectionOf(await queryFacts(q))
      }
      wrapped.set(s, w)
    }
    return w
  }
  // With an alias: the promoted release as it is, and rewritten under the alias, to compare the two.
  const open = async (id: string) => (alias === undefined ? wrap((await repo.open(id))!) : id === alias ? wrap((await repo.open((await repo.promotedId())!))!) : repo.open(id))
  return { kind: repo.kind, promotedId: () => repo.promotedId(), list: async () => [...(await repo.list()), ...(alias ? [alias] : [])], close: () => repo.close(), open }
}

/** Every entry of a comparison at the service, following its cursors. */
async function entries(run: (cursor?: string) => Promise<string>, member: 'entries' | 'changes'): Promise<{ items: Obj[]; counts: Obj; artifacts?: Obj[] }> {
  const items: Obj[] = []
  let cursor: string | undefined
  let last: Obj
  do {
    last = JSON.parse(await run(cursor)) as Obj
    expect(last.status).toBe('ok')
    items.push(...last[member])
    cursor = last.page.nextCursor ?? undefined
  } while (cursor)
  return { items, counts: last.counts, artifacts: last.artifacts }
}

/** Keys in reverse order, nested objects too (arrays keep their order). */
const reversed = (v: unknown): unknown =>
  Array.isArray(v) ? v.map(reversed) : v !== null && typeof v === 'object' ? Object.fromEntries(Object.entries(v).reverse().map(([k, x]) => [k, reversed(x)])) : v

/**
 * A comparison reads stored bodies through the store's decoder (src/store/fact-body.ts), not by
 * where the indexer writes their members (`{"id","topic","name","value","scope","evidence"}`): a
 * body in another order compares the same.
 */
describe('compare over stored bodies not in the indexer\'s layout', () => {
  let dir: string
  let plain: SqliteRepository
  let facts: HardwareFacts
  const repos: ReleaseRepository[] = []
  const over = (rewrite: (f: Obj) => Obj) => {
    const r = rewritingRepository(new SqliteRepository(dir), rewrite)
    repos.push(r)
    return new HardwareFacts(r, 'test-secret')
  }
  // Both parts have USART1 with registers that differ (F407 and G474 USARTs are different IPs) and fields that do not.
  const parts: ComparePartsParams = { part: 'STM32F407VG', other: 'STM32G474RE', topic: 'registers', peripheral: 'USART1', include_same: true, limit: 50, max_tokens: 16000 }

  beforeAll(async () => {
    dir = await corpusDataDir()
    plain = new SqliteRepository(dir)
    facts = new HardwareFacts(plain, 'test-secret')
  })
  afterAll(async () => {
    for (const r of repos) await r.close()
    await plain.close()
  })

  it('a body whose members come in another order (value members too) is parsed whole and compares the same', async () => {
    const expected = await entries((cursor) => compareOf(facts).parts({ ...parts, ...(cursor ? { cursor } : {}) }), 'entries')
    // Not vacuous: registers that differ, fields the same, names on one part only.
    expect(expected.counts.differs).toBeGreaterThan(0)
    expect(expected.counts.same).toBeGreaterThan(0)
    expect(expected.counts.onlyOther).toBeGreaterThan(0)
    const other = over((f) => reversed(f) as Obj)
    const got = await entries((cursor) => compareOf(other).parts({ ...parts, ...(cursor ? { cursor } : {}) }), 'entries')
    expect(got.counts).toEqual(expected.counts)
    const own = (e: Obj) => ({ name: e.name, kind: e.kind, status: e.status, differences: e.differences })
    expect(got.items.map(own)).toEqual(expected.items.map(own))
    // The sides are the stored bodies as they are: the same facts, in their stored order.
    expect(got.items.map((e) => e.part)).toEqual(expected.items.map((e) => e.part))
    const first = got.items.find((e) => e.part)!
    expect(Object.keys(first.part)).toEqual(['evidence', 'scope', 'value', 'name', 'topic', 'id'])
  })

  it('a release comparison over such bodies reads the same names, packages, values and scopes', async () => {
    const id = (await plain.promotedId())!
    const alias = 'f'.repeat(16)
    const r = rewritingRepository(new SqliteRepository(dir), (f) => reversed(f) as Obj, alias)
    repos.push(r)
    // The release against itself rewritten: every body differs as text, so each is matched by name
    // and package and its value and scope compared; none changed.
    for (const topic of ['registers', 'pins'] as const) {
      const p: CompareReleasesParams = { part: 'STM32F407VG', topic, from_release: id, to_release: alias, fact_name_prefixes: topic === 'registers' ? 'USART1' : 'P', limit: 50, max_tokens: 16000 }
      const got = await entries((cursor) => compareOf(new HardwareFacts(r, 'test-secret')).releases({ ...p, ...(cursor ? { cursor } : {}) }), 'changes')
      expect(got.items).toEqual([])
      expect(got.counts).toEqual({ added: 0, removed: 0, changed: 0, unchanged: expect.any(Number) })
      expect(got.counts.unchanged, topic).toBeGreaterThan(20)
    }
  })

  it('a body that starts as the indexer writes it but puts evidence before scope compares the same', async () => {
    const expected = await entries((cursor) => compareOf(facts).parts({ ...parts, ...(cursor ? { cursor } : {}) }), 'entries')
    const moved = over(({ id, topic, name, value, scope, evidence }) => ({ id, topic, name, value, evidence, scope }))
    const got = await entries((cursor) => compareOf(moved).parts({ ...parts, ...(cursor ? { cursor } : {}) }), 'entries')
    expect(got.counts).toEqual(expected.counts)
    const own = (e: Obj) => ({ name: e.name, kind: e.kind, status: e.status, differences: e.differences })
    expect(got.items.map(own)).toEqual(expected.items.map(own))
    expect(Object.keys(got.items.find((e) => e.part)!.part)).toEqual(['id', 'topic', 'name', 'value', 'evidence', 'scope'])
  })
})
