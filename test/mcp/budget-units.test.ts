import { describe, expect, it } from 'vitest'
import { toolResult, withinBudget, type ToolResult } from '../../src/mcp/budget.js'
import { countTokens } from '../../src/model/tokens.js'
import { ServiceError } from '../../src/service/errors.js'

/**
 * withinBudget on a hand-made service (no release): a page of `budget / COST` words, refused below
 * ENVELOPE tokens as the service refuses a budget too small for its envelope. Expected values follow
 * budget.ts's documented rule: max_tokens bounds the whole result as sent (the text and the
 * structured answer as one JSON, counted as its pieces: the wrapper, the text, the body).
 */
type Obj = Record<string, any>
const COST = 10
const ENVELOPE = 40

/** The whole result's tokens as budget.ts documents them: the pieces of its JSON counted apart. */
const pieces = (r: ToolResult): number =>
  countTokens('{"content":[{"type":"text","text":') + countTokens(JSON.stringify(r.content[0]!.text)) + countTokens('}],"structuredContent":') + countTokens(JSON.stringify(r.structuredContent)) + countTokens('}')

/** The tokens budget.ts counts for a body with this rendering: with `tokens` standing in as max_tokens (as many digits or more). */
function sent(body: Obj, rendering: (r: Obj) => string, max: number): number {
  const b = structuredClone(body)
  if (b.page) b.page.maxTokens = b.page.tokens = max
  return pieces(toolResult(b, rendering))
}

interface Fake {
  calls: number[]
  run: (budget: number) => Promise<Obj>
}

/** A service answering `words` words (each " alpha", one token) at most, as many as `budget / COST` allows. */
function service(words: number, opts: { needed?: (budget: number) => number | null; envelope?: number; fail?: Error; per?: (budget: number) => number } = {}): Fake {
  const calls: number[] = []
  return {
    calls,
    run: async (budget) => {
      calls.push(budget)
      if (opts.fail) throw opts.fail
      if (budget < (opts.envelope ?? ENVELOPE)) throw new ServiceError('INVALID_PARAMETER', `max_tokens=${budget} is below the envelope`, 'max_tokens')
      const n = Math.min(words, opts.per ? opts.per(budget) : Math.floor(budget / COST))
      const needed = opts.needed ? opts.needed(budget) : null
      return {
        status: 'ok',
        words: Array.from({ length: n }, () => 'alpha'),
        page: { maxTokens: budget, tokens: n * COST, budgetTooSmall: needed !== null, neededMaxTokens: needed }
      }
    }
  }
}

const render = (r: Obj) => `${r.status}: ${(r.words as string[]).join(' ')} (${r.page.tokens}/${r.page.maxTokens} tokens)`

describe('toolResult', () => {
  it('is the text rendering and the structured answer', () => {
    expect(toolResult({ a: 1 }, (r) => `a=${r.a}`)).toEqual({ content: [{ type: 'text', text: 'a=1' }], structuredContent: { a: 1 } })
  })
})

describe('withinBudget', () => {
  it('asks for three quarters of max_tokens first; a result that fits then is the answer, in the caller\'s terms', async () => {
    const s = service(5)
    const r = await withinBudget(1000, s.run, render)
    expect(s.calls).toEqual([750])
    const page = (r.structuredContent as Obj).page
    expect(page.maxTokens).toBe(1000)
    // The page counts the whole result as sent (with its count standing in as 1000: never fewer digits), and the text says so.
    expect(page.tokens).toBe(sent((r.structuredContent as Obj), render, 1000))
    expect(r.content[0]!.text).toBe(`ok: alpha alpha alpha alpha alpha (${page.tokens}/1000 tokens)`)
    expect(countTokens(JSON.stringify(r))).toBeLessThanOrEqual(page.tokens)
    expect(r.isError).toBeUndefined()
  })

  it('a max_tokens of 1 asks the service for 1, not 0', async () => {
    const s = service(0, { envelope: 0 })
    await expect(withinBudget(1, s.run, render)).rejects.toMatchObject({ code: 'INVALID_PARAMETER', param: 'max_tokens' })
    expect(s.calls[0]).toBe(1)
  })

  it('scales the budget down by how far over the whole result was, until it fits', async () => {
    // One word per budget token: the whole result is over twice the budget asked for.
    const s = service(10_000, { per: (b) => b })
    const max = 300
    const r = await withinBudget(max, s.run, render)
    expect(s.calls[0]).toBe(225)
    expect(s.calls.length).toBeGreaterThan(2)
    // Every attempt after the first: the previous budget times max_tokens over the previous result's tokens, at least one less.
    for (let i = 1; i < s.calls.length; i++) {
      const prev = s.calls[i - 1]!
      const body = { status: 'ok', words: Array.from({ length: prev }, () => 'alpha'), page: { maxTokens: max, tokens: max, budgetTooSmall: false, neededMaxTokens: null } }
      expect(s.calls[i], `attempt ${i}`).toBe(Math.min(prev - 1, Math.floor((prev * max) / sent(body, render, max))))
    }
    expect(pieces(r)).toBeLessThanOrEqual(max)
    expect((r.structuredContent as Obj).words).toHaveLength(s.calls.at(-1)!)
    expect((r.structuredContent as Obj).page).toMatchObject({ maxTokens: max, tokens: sent((r.structuredContent as Obj), render, max) })
  })

  it('bisects above a budget the service refused as too small for its envelope', async () => {
    // Refused below 100; at 200 and above the page is far over the budget, so the first scaled step falls below 100.
    const s = service(10_000, { envelope: 100, per: (b) => (b >= 200 ? 1000 : b - 90) })
    const max = 300
    const r = await withinBudget(max, s.run, render)
    const big = { status: 'ok', words: Array.from({ length: 1000 }, () => 'alpha'), page: { maxTokens: max, tokens: max, budgetTooSmall: false, neededMaxTokens: null } }
    const scaled = Math.floor((225 * max) / sent(big, render, max))
    expect(scaled).toBeLessThan(100)
    // Refused: half-way between the refused budget and the one that was too large.
    expect(s.calls).toEqual([225, scaled, Math.floor((scaled + 225) / 2)])
    expect((r.structuredContent as Obj).words).toHaveLength(Math.floor((scaled + 225) / 2) - 90)
  })

  it('keeps bisecting while the budgets between are refused or too large', async () => {
    // Refused below 150; from 150 on, 150 words whatever the budget, too many for 300 tokens with the text.
    const s = service(10_000, { envelope: 150, per: (b) => (b >= 200 ? 1000 : b < 160 ? 50 : 150) })
    const r = await withinBudget(300, s.run, render)
    expect((r.structuredContent as Obj).words).toHaveLength(50)
    let lo = 0
    let hi = 301
    for (let i = 0; i < s.calls.length; i++) {
      const b = s.calls[i]!
      expect(b, `attempt ${i}`).toBeGreaterThan(lo)
      expect(b, `attempt ${i}`).toBeLessThan(hi)
      if (i >= 2) expect(b, `attempt ${i}`).toBe(Math.floor((lo + hi) / 2))
      if (b < 150) lo = b
      else hi = b
    }
  })

  it('a refusal at the caller\'s own budget is the answer, not a reason to look above it', async () => {
    // Refused everywhere: the service's own "max_tokens too small" comes back (no rendering helps).
    const s = service(3, { envelope: 10_000 })
    await expect(withinBudget(300, s.run, render)).rejects.toMatchObject({ code: 'INVALID_PARAMETER', param: 'max_tokens' })
    for (const b of s.calls) expect(b).toBeLessThanOrEqual(300)
  })

  it('a refusal at exactly max_tokens is the service\'s own answer', async () => {
    // Bisecting above 75 % of 300 reaches 300 itself, which the service refuses too: its error, not a search for more.
    const s = service(3, { envelope: 10_000 })
    await expect(withinBudget(300, s.run, render)).rejects.toMatchObject({ code: 'INVALID_PARAMETER', param: 'max_tokens', detail: 'max_tokens=300 is below the envelope' })
    expect(s.calls.slice(0, 8)).toEqual([225, 263, 282, 291, 296, 298, 299, 300])
  })

  it('stops after 16 service calls per rendering', async () => {
    // A result of max_tokens + 1 tokens whatever the budget: each step down is one token, none fits.
    const max = 10_000
    const body: Obj = { status: 'ok', pad: '', page: { maxTokens: 0, tokens: 0, budgetTooSmall: false, neededMaxTokens: null } }
    while (sent(body, () => '', max) < max + 1) body.pad += ' x'
    expect(sent(body, () => '', max)).toBe(max + 1)
    const calls: number[] = []
    const run = async (b: number) => {
      calls.push(b)
      return structuredClone(body)
    }
    await expect(withinBudget(max, run, () => '')).rejects.toMatchObject({ param: 'max_tokens' })
    expect(calls.slice(0, 17)).toEqual([...Array.from({ length: 16 }, (_, i) => 7500 - i), 7500])
  })

  it('ends the bisection when no budget is left between the refused and the too large', async () => {
    // Refused below 150, far too large from 150 on: nothing fits, whatever the rendering.
    const s = service(10_000, { envelope: 150, per: () => 1000 })
    await expect(withinBudget(300, s.run, render)).rejects.toMatchObject({ param: 'max_tokens', detail: expect.stringMatching(/^max_tokens=300 cannot hold/) })
    const first = s.calls.slice(0, s.calls.indexOf(225, 1))
    expect(new Set(first).size).toBe(first.length)
    expect(first.slice(-2).sort()).toEqual([149, 150])
  })

  it('other service errors are not retried', async () => {
    const fail = new ServiceError('NOT_FOUND', 'no such part', 'part')
    const s = service(3, { fail })
    await expect(withinBudget(1000, s.run, render)).rejects.toBe(fail)
    expect(s.calls).toEqual([750])
    const other = service(3, { fail: new ServiceError('INVALID_PARAMETER', 'bad cursor', 'cursor') })
    await expect(withinBudget(1000, other.run, render)).rejects.toMatchObject({ param: 'cursor' })
    expect(other.calls).toEqual([750])
    const plain = service(3, { fail: new Error('boom') })
    await expect(withinBudget(1000, plain.run, render)).rejects.toThrow('boom')
    expect(plain.calls).toEqual([750])
  })

  it('a result whose rendering does not fit gets a one-line text, then none; structuredContent carries the answer', async () => {
    const long = (r: Obj) => `${render(r)} ${'filler '.repeat(400)}`
    const s = service(2)
    const r = await withinBudget(120, s.run, long)
    const page = (r.structuredContent as Obj).page
    expect(r.content[0]!.text).toBe(`ok: the structured answer only, ${page.tokens}/120 tokens.`)
    expect(pieces(r)).toBeLessThanOrEqual(120)
    expect(page.tokens).toBe(sent((r.structuredContent as Obj), () => 'ok: the structured answer only, 120/120 tokens.', 120))
    // Not even the one line fits: an empty text, at the smallest budget that holds the answer alone.
    const empty = { status: 'ok', words: [], page: { maxTokens: 0, tokens: 0, budgetTooSmall: false, neededMaxTokens: null } }
    const max = sent(empty, () => '', 100)
    const tight = service(0, { envelope: 1 })
    const t = await withinBudget(max, tight.run, long)
    expect(t.content[0]!.text).toBe('')
    expect((t.structuredContent as Obj).page).toMatchObject({ maxTokens: max, tokens: max })
    expect(pieces(t)).toBeLessThanOrEqual(max)
  })

  it('the one-line text names the budget the next entry needs', async () => {
    const long = (r: Obj) => `${render(r)} ${'filler '.repeat(400)}`
    const s = service(0, { needed: () => 5000 })
    const r = await withinBudget(150, s.run, long)
    const page = (r.structuredContent as Obj).page
    expect(r.content[0]!.text).toBe(`ok: the structured answer only, ${page.tokens}/150 tokens; call again with max_tokens=${page.neededMaxTokens} for the next entry.`)
    // What the next entry needs, in the caller's terms: the whole result at the service's estimate, with the full rendering, plus 3.
    const at = { status: 'ok', words: [], page: { maxTokens: 0, tokens: 0, budgetTooSmall: true, neededMaxTokens: 5000 } }
    expect(page.neededMaxTokens).toBe(sent(at, long, 150) + 3)
  })

  it('nothing fits, whatever the rendering: max_tokens is refused as too small for this answer', async () => {
    const huge = service(0, { envelope: 1 })
    const fat = async (b: number) => ({ ...(await huge.run(b)), blob: 'x y z '.repeat(500) })
    await expect(withinBudget(100, fat, render)).rejects.toMatchObject({
      code: 'INVALID_PARAMETER',
      param: 'max_tokens',
      detail: 'max_tokens=100 cannot hold even this answer without entries with its text rendering; raise max_tokens.'
    })
    // At most 16 service calls per rendering, three renderings.
    expect(huge.calls.length).toBeLessThanOrEqual(48)
    expect(huge.calls.length).toBeGreaterThan(3)
  })

  it('a page the budget left empty is tried at the budget the service says the next entry needs; that answer is given when it fits', async () => {
    // Below 200 the service gives nothing and names 200; at 200 it gives the entries.
    const s = service(3, { needed: (b) => (b < 200 ? 200 : null) })
    const gated = async (b: number) => {
      const r = await s.run(b)
      if (b < 200) r.words = []
      return r
    }
    const r = await withinBudget(1000, gated, render)
    expect(s.calls).toEqual([750])
    expect((r.structuredContent as Obj).words).toEqual(['alpha', 'alpha', 'alpha'])
    const s2 = service(3, { needed: (b) => (b < 800 ? 800 : null) })
    const gated2 = async (b: number) => {
      const r = await s2.run(b)
      if (b < 800) r.words = []
      return r
    }
    const r2 = await withinBudget(1000, gated2, render)
    expect(s2.calls).toEqual([750, 800])
    expect((r2.structuredContent as Obj).words).toEqual(['alpha', 'alpha', 'alpha'])
    expect((r2.structuredContent as Obj).page).toMatchObject({ maxTokens: 1000, tokens: sent((r2.structuredContent as Obj), render, 1000), budgetTooSmall: false, neededMaxTokens: null })
  })

  it('when the next entry does not fit even at the service\'s estimate, neededMaxTokens is the whole result\'s tokens at that estimate plus 3', async () => {
    // The entry of 2,000 words: the service names 20,000 and gives it there.
    const s = service(2000, { needed: (b) => (b < 20_000 ? 20_000 : null) })
    const gated = async (b: number) => {
      const r = await s.run(b)
      if (b < 20_000) r.words = []
      return r
    }
    const r = await withinBudget(500, gated, render)
    const page = (r.structuredContent as Obj).page
    expect((r.structuredContent as Obj).words).toEqual([])
    expect(page.budgetTooSmall).toBe(true)
    // The whole result at 20,000, rendered in full and counted in the caller's terms.
    const at = (await gated(20_000)) as Obj
    expect(page.neededMaxTokens).toBe(sent(at, render, 500) + 3)
    expect(r.content[0]!.text).toBe(`ok:  (${page.tokens}/500 tokens)`)
  })

  it('a result without a page whose text does not fit: the one line says only the budget', async () => {
    const r = await withinBudget(100, async () => ({ status: 'ok', n: 1 }), () => 'filler '.repeat(400))
    expect(r).toEqual({ content: [{ type: 'text', text: 'ok: the structured answer only, 100 tokens.' }], structuredContent: { status: 'ok', n: 1 } })
  })

  it('the next entry\'s answer is taken when its whole result is exactly max_tokens', async () => {
    const max = 1000
    const full: Obj = { status: 'ok', words: ['alpha'], pad: '', page: { maxTokens: 0, tokens: 0, budgetTooSmall: false, neededMaxTokens: null } }
    while (sent(full, render, max) < max) full.pad += ' x'
    expect(sent(full, render, max)).toBe(max)
    const run = async (b: number) =>
      b < 5000 ? { status: 'ok', words: [], pad: '', page: { maxTokens: b, tokens: 0, budgetTooSmall: true, neededMaxTokens: 5000 } } : structuredClone(full)
    const r = await withinBudget(max, run, render)
    expect((r.structuredContent as Obj).words).toEqual(['alpha'])
    expect((r.structuredContent as Obj).page).toMatchObject({ maxTokens: max, tokens: max })
  })

  it('a structured answer without a page is kept whole', async () => {
    const calls: number[] = []
    const r = await withinBudget(
      500,
      async (b) => {
        calls.push(b)
        return { status: 'ok' }
      },
      () => 'fine'
    )
    expect(calls).toEqual([375])
    expect(r).toEqual({ content: [{ type: 'text', text: 'fine' }], structuredContent: { status: 'ok' } })
  })
})
