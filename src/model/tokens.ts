import { encode } from 'gpt-tokenizer/encoding/cl100k_base'
import { CL100K_TOKEN_SPLIT_REGEX } from 'gpt-tokenizer/esm/encodingParams/constants'

/** The tokenizer token budgets are counted in (OpenAI's cl100k_base, a real BPE tokenizer). */
export const TOKENIZER = 'cl100k_base'

/**
 * cl100k_base's pre-tokenizer pattern with its Unicode classes narrowed to ASCII. On ASCII-only
 * text it splits exactly as the original (test/model/tokens.test.ts checks the whole corpus) and
 * runs several times faster; anything else goes through the original pattern.
 */
const ASCII_SPLIT = /'(?:[sS]|[dD]|[mM]|[tT]|[lL][lL]|[vV][eE]|[rR][eE])|[^\r\nA-Za-z0-9]?[A-Za-z]+|[0-9]{1,3}| ?[^\sA-Za-z0-9]+[\r\n]*|\s+$|\s*[\r\n]|\s+(?!\S)|\s/g
const NON_ASCII = /[^\x00-\x7f]/

const MEMO_MAX = 200_000
const memo = new Map<string, number>()

/**
 * Exact cl100k_base token count. BPE never merges across the pre-tokenizer's chunks, so the count
 * of a text is the sum of its chunks' counts; fact bodies repeat most chunks (keys, digests, words),
 * so counting each distinct chunk once is several times faster than encoding whole texts.
 */
export function countTokens(text: string): number {
  let n = 0
  for (const chunk of text.match(NON_ASCII.test(text) ? CL100K_TOKEN_SPLIT_REGEX : ASCII_SPLIT) ?? []) {
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
