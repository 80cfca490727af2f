import { countTokens } from 'gpt-tokenizer/encoding/cl100k_base'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ContextParams } from '../../src/schemas/params.js'
import { HardwareFacts } from '../../src/service/facts.js'
import { SqliteRepository } from '../../src/store/sqlite/store.js'
import { corpusDataDir } from '../helpers/corpus-release.js'

type Obj = Record<string, any>
let repo: SqliteRepository
let facts: HardwareFacts

beforeAll(async () => {
  repo = new SqliteRepository(await corpusDataDir())
  facts = new HardwareFacts(repo, 'ambiguous-budget-secret')
})
afterAll(async () => repo?.close())

async function ask(p: Partial<ContextParams>): Promise<{ r: Obj; tokens: number }> {
  const body = (await facts.context(p as ContextParams)).body
  return { r: JSON.parse(body) as Obj, tokens: countTokens(body) }
}

describe('an ambiguous context answer whose budget cuts its candidates', () => {
  it('says the budget cut them (truncatedBy, a note) and what max_tokens lists them, which it does', async () => {
    const p = { part: 'STM32F407', topic: 'pins' as const }
    const roomy = (await ask({ ...p, max_tokens: 16000 })).r
    expect(roomy.status).toBe('ambiguous')
    // Every candidate the answer lists (the first ten of candidateCount) fits a large budget: nothing cut.
    expect(roomy.candidates).toHaveLength(Math.min(10, roomy.candidateCount))
    expect(roomy.page).toMatchObject({ truncatedBy: null, neededMaxTokens: null, budgetTooSmall: false })

    const { r: small, tokens } = await ask({ ...p, max_tokens: 256 })
    expect(tokens).toBeLessThanOrEqual(256)
    expect(small.candidates.length).toBeLessThan(roomy.candidates.length)
    // The ones kept are the first of the same ranking.
    expect(small.candidates).toEqual(roomy.candidates.slice(0, small.candidates.length))
    expect(small.candidateCount).toBe(roomy.candidateCount)
    expect(small.page.truncatedBy).toBe('max_tokens')
    expect(small.page.budgetTooSmall).toBe(false)
    const needed = small.page.neededMaxTokens as number
    expect(needed).toBeGreaterThan(256)
    expect(small.notes.join(' ')).toContain(`max_tokens=256 leaves room for ${small.candidates.length} of these ${roomy.candidates.length} candidates`)
    expect(small.notes.join(' ')).toContain(`max_tokens=${needed} lists the ${roomy.candidates.length}`)
    expect(small.notes.join(' ')).not.toMatch(/choose one candidate explicitly/)

    const { r: enough, tokens: enoughTokens } = await ask({ ...p, max_tokens: needed })
    expect(enoughTokens).toBeLessThanOrEqual(needed)
    expect(enough.candidates).toEqual(roomy.candidates)
    expect(enough.page.truncatedBy).toBeNull()
  })
})
