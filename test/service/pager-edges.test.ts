import { countTokens } from 'gpt-tokenizer/encoding/cl100k_base'
import { describe, expect, it } from 'vitest'
import { TokenPager, type PageItem } from '../../src/service/pager.js'

/*
 * The one token-budgeted pager of /v1/context and the comparisons (src/service/pager.ts), on
 * hand-made heads and items. Expected answers are written out as the Page schema orders its members
 * (returned, limit, maxTokens, tokens, truncatedBy, nextCursor, budgetTooSmall, neededMaxTokens) and
 * counted with the reference cl100k_base tokenizer (gpt-tokenizer), not the service's wrapper.
 */

const pageJson = (returned: number, limit: number, maxTokens: number, tokens: number, truncatedBy: string | null, nextCursor: string | null, needed: number | null = null) =>
  `{"returned":${returned},"limit":${limit},"maxTokens":${maxTokens},"tokens":${tokens},"truncatedBy":${JSON.stringify(truncatedBy)},"nextCursor":${JSON.stringify(nextCursor)},"budgetTooSmall":${needed !== null},"neededMaxTokens":${JSON.stringify(needed)}}`

describe('TokenPager.page and tail', () => {
  it('a page stands at maxTokens until counted, and is too small only with a needed max_tokens', () => {
    const p = new TokenPager(5, 700)
    expect(JSON.stringify(p.page(3, 'limit', 'CUR'))).toBe(pageJson(3, 5, 700, 700, 'limit', 'CUR'))
    expect(JSON.stringify(p.page(0, null, null))).toBe(pageJson(0, 5, 700, 700, null, null))
    expect(JSON.stringify(p.page(0, 'max_tokens', null, 812))).toBe(pageJson(0, 5, 700, 700, 'max_tokens', null, 812))
  })

  it('the tail closes the list, then the page, the extra members, the notes, the object', () => {
    const p = new TokenPager(5, 700)
    const page = p.page(2, null, null)
    const pj = pageJson(2, 5, 700, 700, null, null)
    expect(p.tail(page, [])).toBe(`],"page":${pj}}`)
    expect(p.tail(page, [], {})).toBe(`],"page":${pj}}`)
    expect(p.tail(page, ['one "note"', 'two'])).toBe(`],"page":${pj},"notes":["one \\"note\\"","two"]}`)
    expect(p.tail(page, [], { a: 1 })).toBe(`],"page":${pj},"a":1}`)
    expect(p.tail(page, ['n'], { a: 1, b: [null] })).toBe(`],"page":${pj},"a":1,"b":[null],"notes":["n"]}`)
  })

  it('the largest tail: a full page cut by max_tokens with the placeholder cursor', () => {
    const p = new TokenPager(25, 4000)
    expect(p.fullTailTokens('PLACEHOLDER_CURSOR_0123', ['a note'])).toBe(countTokens(`],"page":${pageJson(25, 25, 4000, 4000, 'max_tokens', 'PLACEHOLDER_CURSOR_0123')},"notes":["a note"]}`))
    expect(p.fullTailTokens(null, [])).toBe(countTokens(`],"page":${pageJson(25, 25, 4000, 4000, 'max_tokens', null)}}`))
  })

  it('the max_tokens an answer needs for its first item: head, tail, item, and three more', () => {
    expect(TokenPager.neededMaxTokens(10, 20, 30)).toBe(63)
    expect(TokenPager.neededMaxTokens(0, 0, 0)).toBe(3)
  })
})

describe('TokenPager.fit', () => {
  /** Items of these tokens; records which were asked for. */
  const costs = (...t: number[]) => {
    const asked: number[] = []
    return { asked, of: (i: number) => (asked.push(i), t[i]!) }
  }

  it('takes every item that fits, each costing its tokens and a comma', () => {
    const c = costs(10, 20, 30)
    // 5 used + 11 + 21 + 31 = 68: exactly the budget.
    expect(new TokenPager(10, 68).fit(3, c.of, 5)).toEqual({ taken: 3, truncatedBy: null })
    expect(c.asked).toEqual([0, 1, 2])
  })

  it('stops at the first item over the budget, asking for none after it', () => {
    const c = costs(10, 20, 30, 1)
    expect(new TokenPager(10, 67).fit(4, c.of, 5)).toEqual({ taken: 2, truncatedBy: 'max_tokens' })
    expect(c.asked).toEqual([0, 1, 2])
    const d = costs(10)
    expect(new TokenPager(10, 15).fit(1, d.of, 5)).toEqual({ taken: 0, truncatedBy: 'max_tokens' })
    expect(new TokenPager(10, 16).fit(1, d.of, 5)).toEqual({ taken: 1, truncatedBy: null })
  })

  it('at most limit items: cut by limit only when more are left', () => {
    const c = costs(1, 1, 1, 1)
    expect(new TokenPager(2, 1000).fit(4, c.of, 0)).toEqual({ taken: 2, truncatedBy: 'limit' })
    expect(c.asked).toEqual([0, 1])
    expect(new TokenPager(4, 1000).fit(4, costs(1, 1, 1, 1).of, 0)).toEqual({ taken: 4, truncatedBy: null })
    expect(new TokenPager(0, 1000).fit(4, costs(1, 1, 1, 1).of, 0)).toEqual({ taken: 0, truncatedBy: 'limit' })
    expect(new TokenPager(3, 1000).fit(0, costs().of, 0)).toEqual({ taken: 0, truncatedBy: null })
  })
})

describe('TokenPager.render and fill', () => {
  // Head and item token counts are the caller's (counted once, at index time for facts); three-digit
  // budgets keep `maxTokens` and `tokens` one token each, so the tail's count does not depend on them.
  const head = { text: '{"facts":[', tokens: 90 }
  const item = (s: string, tokens = 5): PageItem => ({ body: s, tokens })
  const items = [item('{"a":1}'), item('{"b":2}'), { body: ['{"c":', '3}'], tokens: 5 }]
  const tailTokens = (returned: number, limit: number, cut: string | null, cursor: string | null, notes: string[] = []) =>
    countTokens(`],"page":${pageJson(returned, limit, 500, 500, cut, cursor)}${notes.length ? `,"notes":${JSON.stringify(notes)}` : ''}}`)

  it('renders head, items joined by commas, and the tail with the page counted, when it fits', () => {
    const total = 90 + tailTokens(3, 3, null, null, ['n']) + 3 * 6
    const p = new TokenPager(3, total)
    const page = p.page(3, null, null)
    const body = p.render(head, items, page, ['n'])
    expect(page.tokens).toBe(total)
    expect(body).toBe(`{"facts":[{"a":1},{"b":2},{"c":3}],"page":${pageJson(3, 3, total, total, null, null)},"notes":["n"]}`)
    // The parts' counts bound the whole answer's.
    expect(countTokens(body!)).toBeLessThanOrEqual(total)
  })

  it('renders an empty list, and nothing over the budget (leaving the page uncounted)', () => {
    const t0 = 90 + tailTokens(0, 3, null, null)
    expect(new TokenPager(3, t0).render(head, [], new TokenPager(3, t0).page(0, null, null), [])).toBe(`{"facts":[],"page":${pageJson(0, 3, t0, t0, null, null)}}`)
    const p = new TokenPager(3, t0 - 1)
    const page = p.page(0, null, null)
    expect(p.render(head, [], page, [])).toBeUndefined()
    expect(page.tokens).toBe(t0 - 1)
  })

  it('fill gives items back until the answer with the real cursor fits, each page cut by max_tokens', () => {
    const asked: number[] = []
    const cursorAfter = (n: number) => (asked.push(n), `cursor-after-${n}`)
    // Room for two items with their cursor, not for three.
    const two = 90 + tailTokens(2, 3, 'max_tokens', 'cursor-after-2') + 12
    expect(90 + tailTokens(3, 3, 'limit', 'cursor-after-3') + 18).toBeGreaterThan(two)
    const p = new TokenPager(3, two)
    expect(p.fill(head, items, 'limit', cursorAfter, [])).toBe(`{"facts":[{"a":1},{"b":2}],"page":${pageJson(2, 3, two, two, 'max_tokens', 'cursor-after-2')}}`)
    expect(asked).toEqual([3, 2])
  })

  it('fill keeps every item and its cut when they fit, with no cursor when nothing cut the list', () => {
    const asked: number[] = []
    const cursorAfter = (n: number) => (asked.push(n), `cursor-after-${n}`)
    const all = 90 + tailTokens(3, 3, null, null) + 18
    expect(new TokenPager(3, all).fill(head, items, null, cursorAfter, [])).toBe(`{"facts":[{"a":1},{"b":2},{"c":3}],"page":${pageJson(3, 3, all, all, null, null)}}`)
    expect(asked).toEqual([])
    const cut = 90 + tailTokens(3, 3, 'limit', 'cursor-after-3') + 18
    expect(new TokenPager(3, cut).fill(head, items, 'limit', cursorAfter, [])).toBe(`{"facts":[{"a":1},{"b":2},{"c":3}],"page":${pageJson(3, 3, cut, cut, 'limit', 'cursor-after-3')}}`)
  })

  it('fill gives undefined when not even one item fits, or there are none', () => {
    const one = 90 + tailTokens(1, 3, 'max_tokens', 'cursor-after-1') + 6
    expect(new TokenPager(3, one - 1).fill(head, items, 'limit', (n) => `cursor-after-${n}`, [])).toBeUndefined()
    expect(new TokenPager(3, one).fill(head, items, 'limit', (n) => `cursor-after-${n}`, [])).toBe(`{"facts":[{"a":1}],"page":${pageJson(1, 3, one, one, 'max_tokens', 'cursor-after-1')}}`)
    expect(new TokenPager(3, 999).fill(head, [], null, (n) => `c${n}`, [])).toBeUndefined()
  })
})
