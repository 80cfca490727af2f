import { encode } from 'gpt-tokenizer/encoding/cl100k_base'
import { CL100K_TOKEN_SPLIT_REGEX } from 'gpt-tokenizer/esm/encodingParams/constants'
import { asciiChunkEnd } from './pre-tokenizer.js'

/** The tokenizer token budgets are counted in (OpenAI's cl100k_base, a real BPE tokenizer). */
export const TOKENIZER = 'cl100k_base'

/** Slots of the chunk memo (a power of two); it is emptied when half full, bounding its memory. */
const SLOTS = 1 << 18
const MASK = SLOTS - 1

/**
 * Token counts of the distinct chunks seen, in an open-addressing table probed with a hash of the
 * chunk's characters in place: no substring is cut and hashed per chunk, which is what a Map cost.
 */
const memoKeys: Array<string | undefined> = new Array<string | undefined>(SLOTS).fill(undefined)
const memoCounts = new Int32Array(SLOTS)
let memoSize = 0

function chunkTokens(text: string, start: number, end: number): number {
  if (end - start === 1 && text.charCodeAt(start) < 128) return 1 // every single byte is a token of its own
  let h = 0x811c9dc5 // FNV-1a
  for (let i = start; i < end; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193)
  let slot = h & MASK
  for (let key = memoKeys[slot]; key !== undefined; key = memoKeys[slot]) {
    if (key.length === end - start && text.startsWith(key, start)) return memoCounts[slot]!
    slot = (slot + 1) & MASK
  }
  if (memoSize >= SLOTS / 2) {
    memoKeys.fill(undefined)
    memoSize = 0
    slot = h & MASK
  }
  const chunk = text.slice(start, end)
  memoKeys[slot] = chunk
  memoSize++
  return (memoCounts[slot] = encode(chunk).length)
}

/** The count by the pre-tokenizer's own pattern, for text the ASCII scanner does not take. */
function patternCount(text: string): number {
  let n = 0
  for (const chunk of text.match(CL100K_TOKEN_SPLIT_REGEX) ?? []) n += chunkTokens(chunk, 0, chunk.length)
  return n
}

/**
 * Exact cl100k_base token count. BPE never merges across the pre-tokenizer's chunks, so the count
 * of a text is the sum of its chunks' counts; fact bodies repeat most chunks (keys, digests, words),
 * so counting each distinct chunk once is several times faster than encoding whole texts. ASCII
 * text (nearly every fact body) is split by a scanner equal to the pre-tokenizer's pattern on
 * ASCII; anything else by the pattern itself.
 */
export function countTokens(text: string): number {
  let n = 0
  for (let i = 0; i < text.length; ) {
    const end = asciiChunkEnd(text, i)
    if (end < 0) return patternCount(text)
    n += chunkTokens(text, i, end)
    i = end
  }
  return n
}
