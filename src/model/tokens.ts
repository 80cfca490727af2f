import { encode } from 'gpt-tokenizer/encoding/cl100k_base'
import { CL100K_TOKEN_SPLIT_REGEX } from 'gpt-tokenizer/esm/encodingParams/constants'

/** The tokenizer token budgets are counted in (OpenAI's cl100k_base, a real BPE tokenizer). */
export const TOKENIZER = 'cl100k_base'

const MEMO_MAX = 200_000
const memo = new Map<string, number>()

/**
 * Exact cl100k_base token count. BPE never merges across the pre-tokenizer's chunks, so the count
 * of a text is the sum of its chunks' counts; fact bodies repeat most chunks (keys, digests, words),
 * so counting each distinct chunk once is several times faster than encoding whole texts.
 */
export function countTokens(text: string): number {
  let n = 0
  for (const chunk of text.match(CL100K_TOKEN_SPLIT_REGEX) ?? []) {
    let c = memo.get(chunk)
    if (c === undefined) {
      c = encode(chunk).length
      if (memo.size >= MEMO_MAX) memo.clear()
      memo.set(chunk, c)
    }
    n += c
  }
  return n
}
