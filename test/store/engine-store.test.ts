import { afterAll, describe, expect, it } from 'vitest'
import { loadRelease } from '../../indexer/engine.js'
import type { Topic } from '../../src/model/fact.js'
import type { EngineRepository } from '../../src/store/search-engine/repository.js'
import type { FactQuery, FactRow } from '../../src/store/types.js'
import { A, bodyOf, CATALOG, cleanup, dataDir, engine, MANIFEST, repoOf, RUN, skip, tokensOf, UNIT0, UNIT1 } from './engine-release.js'

/*
 * The search-engine store's answers on a real engine: the hand-made release of engine-release.ts
 * loaded once (inside the first test that asks, never in a hook: a mutant that breaks loading must
 * fail tests). Expected rows are worked out from those 13 facts and the FactQuery contract
 * (src/store/types.ts; the rules query.ts states: names case-insensitive, prefixes, package folding
 * ASCII case only, the silicon-revision rule of src/store/revisions.ts, terms matched as prefixes
 * of the fact's name and value terms, most matched first, then ord).
 */

afterAll(cleanup)

let shared: EngineRepository | undefined
/** Release A loaded under a prefix of its own. */
async function loaded(): Promise<EngineRepository> {
  if (!shared) {
    const r = await repoOf(undefined, `${RUN}-shared`)
    await loadRelease(r, dataDir(), A, { bulkDocs: 5 })
    shared = r
  }
  return shared
}

const q = (target: string, topic: Topic, more: Partial<FactQuery> = {}): FactQuery => ({ target, topic, names: [], prefixes: [], terms: [], limit: 50, ...more })
/** Rows as `name/score`, each row's ord, tokens and body checked against the fact written at that ord of its shard. */
function show(rows: FactRow[], unit = UNIT0): string[] {
  return rows.map((r) => {
    const f = unit[r.ord - 1]!
    expect(r.body).toBe(bodyOf(f))
    expect(r.tokens).toBe(tokensOf(f))
    return `${f.name}/${r.score}`
  })
}

describe.skipIf(skip !== undefined)(`the search-engine store's queries (${engine?.flavor ?? 'none'})`, () => {
  describe('queries on a loaded release', () => {
    it('a target and topic in ord order; the other targets and topics apart', async () => {
      const s = (await (await loaded()).open(A))!
      expect(show(await s.queryFacts(q('alpha', 'pins')))).toEqual(['PA0/0', 'PA1/0', 'PB1/0'])
      expect(show(await s.queryFacts(q('beta', 'registers')))).toEqual(['UART.CTRL/0'])
      expect(show(await s.queryFacts(q('gamma', 'registers')), UNIT1)).toEqual(['UART.CTRL/0'])
      expect(await s.queryFacts(q('beta', 'pins'))).toEqual([])
      expect(s.manifest).toEqual({ ...MANIFEST, id: A })
      expect(s.catalog).toEqual(CATALOG)
    })

    it('names case-insensitively, prefixes as byte ranges, either one', async () => {
      const s = (await (await loaded()).open(A))!
      expect(show(await s.queryFacts(q('alpha', 'registers', { names: ['uart.ctrl'] })))).toEqual(['UART.CTRL/0'])
      expect(show(await s.queryFacts(q('alpha', 'registers', { names: ['Uart.Data'], prefixes: ['sPi'] })))).toEqual(['UART.DATA/0', 'SPI.CR/0'])
      expect(show(await s.queryFacts(q('alpha', 'registers', { prefixes: ['UART'] })))).toEqual(['UART.CTRL/0', 'UART.DATA/0', 'UARTX.MODE/0'])
      expect(show(await s.queryFacts(q('alpha', 'registers', { prefixes: ['uart.'] })))).toEqual(['UART.CTRL/0', 'UART.DATA/0'])
      expect(await s.queryFacts(q('alpha', 'registers', { names: ['uart'] }))).toEqual([])
    })

    it('package folding ASCII case only, and peripheral instances', async () => {
      const s = (await (await loaded()).open(A))!
      expect(show(await s.queryFacts(q('alpha', 'pins', { package: 'Lqfp48' })))).toEqual(['PA0/0', 'PA1/0'])
      expect(show(await s.queryFacts(q('alpha', 'pins', { package: 'éQFN' })))).toEqual([])
      expect(show(await s.queryFacts(q('alpha', 'pins', { package: 'Éqfn' })))).toEqual(['PB1/0'])
      expect(show(await s.queryFacts(q('alpha', 'registers', { peripheral: 'UART' })))).toEqual(['UART.CTRL/0', 'UART.DATA/0'])
      expect(show(await s.queryFacts(q('alpha', 'registers', { peripheral: 'UART2' })))).toEqual(['UART.DATA/0'])
    })

    it('silicon revisions: listed, or `*` and not `!code`; facts without revisions always', async () => {
      const s = (await (await loaded()).open(A))!
      expect(show(await s.queryFacts(q('alpha', 'errata', { siliconRevision: '0x01' })))).toEqual(['E1/0', 'E4/0'])
      expect(show(await s.queryFacts(q('alpha', 'errata', { siliconRevision: '0x02' })))).toEqual(['E2/0', 'E4/0'])
      expect(show(await s.queryFacts(q('alpha', 'errata', { siliconRevision: '0x010' })))).toEqual(['E2/0', 'E3/0', 'E4/0'])
    })

    it('terms: most terms matched first (as prefixes of the name and value terms), then ord; pages continue after (score, ord)', async () => {
      const s = (await (await loaded()).open(A))!
      const t = ['uart', 'control']
      expect(show(await s.queryFacts(q('alpha', 'registers', { terms: t })))).toEqual(['UART.CTRL/2', 'UART.DATA/1', 'UARTX.MODE/1', 'SPI.CR/1'])
      expect(show(await s.queryFacts(q('alpha', 'registers', { terms: t, limit: 2 })))).toEqual(['UART.CTRL/2', 'UART.DATA/1'])
      expect(show(await s.queryFacts(q('alpha', 'registers', { terms: t, after: { score: 1, ord: 9 } })))).toEqual(['UARTX.MODE/1', 'SPI.CR/1'])
      expect(show(await s.queryFacts(q('alpha', 'registers', { after: { score: 0, ord: 9 }, limit: 1 })))).toEqual(['UARTX.MODE/0'])
      const sel = await s.selectFacts(q('alpha', 'registers', { terms: ['mode'] }))
      expect(show(await sel.read(5))).toEqual(['UARTX.MODE/1'])
      await s.close()
    })
  })

  it('the kept list holds every release record, past a search\'s default page of 10, ids only, sorted', async () => {
    const repo = await repoOf()
    const ids = Array.from({ length: 12 }, (_, i) => (11 - i).toString(16).padStart(16, '0'))
    const lines = [...ids, 'not-a-release-id'].flatMap((id) => [JSON.stringify({ index: { _id: id } }), JSON.stringify({ id })])
    await repo.engine.request({ method: 'POST', path: `/${repo.names.releases}/_bulk`, querystring: { refresh: 'true' }, ndjson: lines.join('\n') + '\n' })
    expect(await repo.readKept()).toEqual([...ids].sort())
    expect(await repo.list()).toEqual([...ids].sort())
  })
})
