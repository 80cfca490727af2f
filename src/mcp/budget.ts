import { countTokens } from '../model/tokens.js'
import { ServiceError } from '../service/errors.js'

type Obj = Record<string, unknown>

/** A tool result as sent: the text rendering and the REST body as structuredContent. */
export interface ToolResult {
  [k: string]: unknown
  content: Array<{ type: 'text'; text: string }>
  structuredContent?: Obj
  isError?: boolean
}

export const toolResult = (structured: Obj, render: (r: Obj) => string): ToolResult => ({ content: [{ type: 'text', text: render(structured) }], structuredContent: structured })

interface BudgetPage {
  maxTokens: number
  tokens: number
  budgetTooSmall: boolean
  neededMaxTokens: number | null
}

interface Attempt {
  result: ToolResult
  tokens: number
  page: BudgetPage | undefined
}

/** What the result's JSON begins and ends with around the text and the structured answer. */
const WRAPPER_TOKENS = countTokens('{"content":[{"type":"text","text":') + countTokens('}],"structuredContent":') + countTokens('}')

/**
 * Tokens of a result as sent: its pieces counted apart and joined at punctuation, which never
 * tokenizes into more than their sum (as /v1/context counts its envelope), and cheaper than
 * counting the whole: 1.1 against 1.8 ms for a 4,000-token page of registers.
 */
const resultTokens = (r: ToolResult): number => WRAPPER_TOKENS + countTokens(JSON.stringify(r.content[0]!.text)) + countTokens(JSON.stringify(r.structuredContent))

/**
 * The first budget asked for: the text rendering adds about a quarter to a page of facts (5,072
 * tokens in all for a 4,000-token page of registers), so most answers fit at the first call. A
 * page that a budget this much smaller still holds whole is the same answer.
 */
const FIRST_SHARE = 0.75

/** Service calls one tool call may make to find the page that fits (a binary search over 16,000 takes 14). */
const MAX_ATTEMPTS = 16

/**
 * Over MCP an agent receives the text rendering on top of structuredContent, so a tool's
 * `max_tokens` bounds the whole tool result as sent (its JSON, cl100k_base), not the REST body
 * alone. The service is asked for its page within a smaller budget, scaled down by how far over
 * the whole result was, until it fits (by bisection above a budget the service refused as too
 * small for its envelope). A page the budget left empty is tried at the budget the service says
 * the next entry needs. The page then speaks the caller's terms: `maxTokens` is their max_tokens,
 * `tokens` the whole result's, and `neededMaxTokens` what the whole result with the next entry
 * needs. When even the empty answer does not fit with its rendering, the text is cut to one line,
 * then left empty: structuredContent carries the answer.
 */
export async function withinBudget(maxTokens: number, run: (budget: number) => Promise<Obj>, render: (r: Obj) => string): Promise<ToolResult> {
  // Too small for the answer and its full rendering: the structured answer with a one-line text, else with none.
  const renderings = [render, (r: Obj) => brief(r, maxTokens), () => '']
  for (let i = 0; ; i++) {
    try {
      return await search(maxTokens, run, renderings[i]!, render)
    } catch (err) {
      if (!(err instanceof ServiceError && err.param === 'max_tokens') || i === renderings.length - 1) throw err
    }
  }
}

/** The text of an answer whose budget has no room for its rendering: what it is, and what budget gives more. */
function brief(r: Obj, maxTokens: number): string {
  const page = r.page as BudgetPage | undefined
  return (
    `${String(r.status)}: the structured answer only, ${page ? `${page.tokens}/` : ''}${maxTokens} tokens` +
    (page?.neededMaxTokens != null ? `; call again with max_tokens=${page.neededMaxTokens} for the next entry.` : '.')
  )
}

/** The result within max_tokens with this rendering; what the next entry needs is counted with the full one (`full`), as a call with that budget renders it. */
async function search(maxTokens: number, run: (budget: number) => Promise<Obj>, render: (r: Obj) => string, full: (r: Obj) => string): Promise<ToolResult> {
  const attempt = async (budget: number, translateNeeded = true, rendering = render): Promise<Attempt> => {
    const structured = await run(budget)
    const page = structured.page as BudgetPage | undefined
    if (page?.neededMaxTokens != null && translateNeeded) {
      // The service's estimate is for its body alone, and errs high: the budget it names may well fit the whole result.
      const next = await attempt(page.neededMaxTokens, false, full)
      if (next.tokens <= maxTokens) return next
      page.neededMaxTokens = next.tokens + 3
    }
    // Counted with tokens = maxTokens, which has at least as many digits as the real count.
    if (page) page.maxTokens = page.tokens = maxTokens
    let result = toolResult(structured, rendering)
    const tokens = resultTokens(result)
    if (page) {
      page.tokens = tokens
      result = toolResult(structured, rendering)
    }
    return { result, tokens, page }
  }
  const tooSmall = () =>
    new ServiceError('INVALID_PARAMETER', `max_tokens=${maxTokens} cannot hold even this answer without entries with its text rendering; raise max_tokens.`, 'max_tokens')

  let best: Attempt | undefined
  let lo = 0 // budgets up to here the service refused
  let hi = maxTokens + 1 // budgets from here on give results over max_tokens
  let bisect = false
  let budget = Math.max(1, Math.floor(maxTokens * FIRST_SHARE))
  for (let i = 0; i < MAX_ATTEMPTS && budget > lo && budget < hi; i++) {
    try {
      const a = await attempt(budget)
      if (a.tokens <= maxTokens) {
        best = a
        break
      }
      hi = budget
      budget = bisect ? Math.floor((lo + hi) / 2) : Math.min(hi - 1, Math.floor((budget * maxTokens) / a.tokens))
    } catch (err) {
      // The service's own "not even the envelope fits", at a budget below the caller's: look above it.
      if (!(err instanceof ServiceError && err.param === 'max_tokens' && budget < maxTokens)) throw err
      lo = budget
      bisect = true
      budget = Math.floor((lo + hi) / 2)
    }
  }
  if (best === undefined) throw tooSmall()
  return best.result
}
