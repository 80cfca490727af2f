import { countTokens } from '../model/tokens.js'
import type { ContextResponse } from '../schemas/responses.js'

/** The `page` member of every token-budgeted answer (the Page schema). */
export type Page = ContextResponse['page']
export type TruncatedBy = Page['truncatedBy']

/** An answer's JSON before its list: its text (ending in `"member":[`) and that text's tokens. */
export interface PageHead {
  readonly text: string
  readonly tokens: number
}

/** One item of the list: its JSON (in pieces, joined once with the whole answer) and its tokens. */
export interface PageItem {
  readonly body: string | readonly string[]
  readonly tokens: number
}

/**
 * The token-budgeted pager of /v1/context and the comparisons: a list answer is a head, the items
 * (each counted as its tokens plus one for the comma), and a tail (`page`, members after it, the
 * notes), within `limit` items and `maxTokens` counted over the whole answer. The parts are
 * counted apart: joined at punctuation, they never tokenize into more tokens than their counts
 * add up to (the tests check every answer with the real tokenizer).
 */
export class TokenPager {
  constructor(
    readonly limit: number,
    readonly maxTokens: number
  ) {}

  /**
   * A page of `returned` items. Its `tokens` stands at maxTokens, which has at least as many digits
   * as the real count, until the whole answer is counted.
   */
  page(returned: number, truncatedBy: TruncatedBy, nextCursor: string | null, neededMaxTokens: number | null = null): Page {
    return {
      returned,
      limit: this.limit,
      maxTokens: this.maxTokens,
      tokens: this.maxTokens,
      truncatedBy,
      nextCursor,
      budgetTooSmall: neededMaxTokens !== null,
      neededMaxTokens
    }
  }

  /** The answer's text after its list: the page, the members `extra` holds, the notes. */
  tail(page: Page, notes: readonly string[], extra: object = {}): string {
    const more = JSON.stringify(extra)
    return `],"page":${JSON.stringify(page)}` + (more.length > 2 ? ',' + more.slice(1, -1) : '') + (notes.length ? `,"notes":${JSON.stringify(notes)}` : '') + '}'
  }

  /** The tokens of the largest tail a page with items has: a full page cut by max_tokens, `placeholder` as its cursor. */
  fullTailTokens(placeholder: string | null, notes: readonly string[]): number {
    return countTokens(this.tail(this.page(this.limit, 'max_tokens', placeholder), notes))
  }

  /**
   * How many of `count` items, from the first on, fit after `used` tokens (item i costing
   * `tokensOf(i)` and a comma): at most `limit`; and what cut the list, null when nothing did.
   * `tokensOf` is asked for no item after the first that does not fit.
   */
  fit(count: number, tokensOf: (i: number) => number, used: number): { taken: number; truncatedBy: TruncatedBy } {
    for (let taken = 0; taken < count; taken++) {
      if (taken === this.limit) return { taken, truncatedBy: 'limit' }
      const tokens = tokensOf(taken)
      if (used + tokens + 1 > this.maxTokens) return { taken, truncatedBy: 'max_tokens' }
      used += tokens + 1
    }
    return { taken: count, truncatedBy: null }
  }

  /** The max_tokens an answer needs to hold its first item: with room for a max_tokens of more digits and the comma. */
  static neededMaxTokens(headTokens: number, tailTokens: number, firstTokens: number): number {
    return headTokens + tailTokens + firstTokens + 3
  }

  /** The whole answer with these items (page.tokens set to its count), or undefined when it would exceed maxTokens. */
  render(head: PageHead, items: readonly PageItem[], page: Page, notes: readonly string[]): string | undefined {
    let tokens = head.tokens + countTokens(this.tail(page, notes))
    for (const item of items) tokens += item.tokens + 1
    if (tokens > this.maxTokens) return undefined
    page.tokens = tokens
    const pieces = [head.text]
    items.forEach((item, i) => {
      if (i > 0) pieces.push(',')
      if (typeof item.body === 'string') pieces.push(item.body)
      else pieces.push(...item.body)
    })
    pieces.push(this.tail(page, notes))
    return pieces.join('')
  }

  /**
   * The answer with the items `fit` took, each page with the cursor after its last item. The items
   * were fitted with a placeholder cursor, and the real one may tokenize longer: items are given
   * back until the whole fits. Undefined when none does.
   */
  fill(head: PageHead, items: readonly PageItem[], truncatedBy: TruncatedBy, cursorAfter: (taken: number) => string, notes: readonly string[]): string | undefined {
    for (let n = items.length; n > 0; n--) {
      const cut = n < items.length ? 'max_tokens' : truncatedBy
      const body = this.render(head, n < items.length ? items.slice(0, n) : items, this.page(n, cut, cut !== null ? cursorAfter(n) : null), notes)
      if (body !== undefined) return body
    }
    return undefined
  }
}
