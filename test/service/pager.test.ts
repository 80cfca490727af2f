import { describe, expect, it } from 'vitest'
import { countTokens } from '../../src/model/tokens.js'
import { TokenPager, type PageItem } from '../../src/service/pager.js'

const head = (text: string) => ({ text, tokens: countTokens(text) })
const item = (body: string): PageItem => ({ body, tokens: countTokens(body) })

describe('the token pager of context and compare', () => {
  it('fits items to the limit and to max_tokens, each costing its tokens and a comma, and asks for no item past the cut', () => {
    const pager = new TokenPager(3, 100)
    const asked: number[] = []
    const tokensOf = (i: number) => (asked.push(i), 10)
    expect(pager.fit(5, tokensOf, 0)).toEqual({ taken: 3, truncatedBy: 'limit' })
    expect(asked).toEqual([0, 1, 2])
    asked.length = 0
    // 70 + 11 + 11 = 92 fits; a third would make 103.
    expect(pager.fit(5, tokensOf, 70)).toEqual({ taken: 2, truncatedBy: 'max_tokens' })
    expect(asked).toEqual([0, 1, 2])
    expect(pager.fit(2, () => 10, 0)).toEqual({ taken: 2, truncatedBy: null })
    expect(pager.fit(0, () => 10, 0)).toEqual({ taken: 0, truncatedBy: null })
  })

  it('renders head, items and tail as one JSON text whose page counts its tokens, none over max_tokens', () => {
    const pager = new TokenPager(5, 1000)
    const body = pager.render(head('{"a":1,"items":['), [item('{"x":1}'), { body: ['{"y":', '2}'], tokens: countTokens('{"y":2}') }], pager.page(2, null, null), ['a note'])!
    const parsed = JSON.parse(body) as { items: unknown[]; page: { tokens: number; returned: number }; notes: string[] }
    expect(parsed.items).toEqual([{ x: 1 }, { y: 2 }])
    expect(parsed.notes).toEqual(['a note'])
    // Counted in parts, never fewer than the whole text's tokens.
    expect(parsed.page.tokens).toBeGreaterThanOrEqual(countTokens(body))
    expect(new TokenPager(5, parsed.page.tokens - 1).render(head('{"a":1,"items":['), [item('{"x":1}'), item('{"y":2}')], pager.page(2, null, null), ['a note'])).toBeUndefined()
  })

  it('gives items back, marking the page cut by max_tokens, when the real cursor needs more room than the one fitted', () => {
    const h = head('{"items":[')
    const items = ['{"n":1}', '{"n":2}', '{"n":3}'].map(item)
    const short = 'c'
    // A few tokens longer: fewer than two items' worth.
    const long = 'c-d-e-f'
    // Room for the three items with the short cursor, not with the long one.
    const pager0 = new TokenPager(3, 10_000)
    const fitted = countTokens(pager0.render(h, items, pager0.page(3, 'limit', short), [])!)
    const pager = new TokenPager(3, fitted)
    expect(pager.fill(h, items, 'limit', () => short, [])).toBeDefined()
    const cursors: number[] = []
    const body = pager.fill(h, items, 'limit', (n) => (cursors.push(n), long), [])!
    const parsed = JSON.parse(body) as { items: unknown[]; page: { returned: number; truncatedBy: string; nextCursor: string; tokens: number } }
    expect(parsed.items.length).toBeLessThan(3)
    expect(parsed.page).toMatchObject({ returned: parsed.items.length, truncatedBy: 'max_tokens', nextCursor: long })
    expect(cursors[0]).toBe(3)
    expect(countTokens(body)).toBeLessThanOrEqual(fitted)
    // No cursor when nothing cut the page; nothing at all when not even one item fits.
    expect(JSON.parse(new TokenPager(3, 10_000).fill(h, items, null, () => long, [])!).page.nextCursor).toBeNull()
    expect(new TokenPager(3, 10).fill(h, items, 'max_tokens', () => long, [])).toBeUndefined()
  })

  it('needs room for the head, the fullest tail and the first item, a comma and a longer max_tokens', () => {
    expect(TokenPager.neededMaxTokens(100, 40, 7)).toBe(150)
  })
})
