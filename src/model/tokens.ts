import bpeRanks from 'gpt-tokenizer/bpeRanks/cl100k_base'
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

function chunkTokens(text: string, start: number, end: number, ascii: boolean): number {
  if (end - start === 1 && text.charCodeAt(start) < 128) return 1 // every single byte is a token of its own
  const h = fnv(text, start, end) // FNV-1a
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
  return (memoCounts[slot] = ascii ? asciiMergeCount(chunk) : encode(chunk).length)
}

/**
 * Ranks of the vocabulary's ASCII tokens (a token's id is its merge rank), made on first use, in an
 * open-addressing table probed with a hash of a piece's characters in place: the merge looks up
 * every candidate piece, and cutting each one out as a string to look it up in a Map cost most of
 * the time of counting text never seen before (a cursor's MAC: ~20 µs of ~90 characters).
 */
const RANK_SLOTS = 1 << 18
const RANK_MASK = RANK_SLOTS - 1
let rankKeys: Array<string | undefined> | undefined
const rankValues = new Int32Array(RANK_SLOTS)
/** The same for two-character tokens, indexed by the two character codes: the merge's first lookups. */
const pairRanks = new Float64Array(128 * 128).fill(Infinity)

function fnv(text: string, start: number, end: number): number {
  let h = 0x811c9dc5
  for (let i = start; i < end; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193)
  return h
}

function rankTable(): Array<string | undefined> {
  if (!rankKeys) {
    const keys: Array<string | undefined> = new Array<string | undefined>(RANK_SLOTS).fill(undefined)
    bpeRanks.forEach((token, rank) => {
      if (typeof token !== 'string' || !/^[\x00-\x7f]*$/.test(token)) return
      let slot = fnv(token, 0, token.length) & RANK_MASK
      while (keys[slot] !== undefined) slot = (slot + 1) & RANK_MASK
      keys[slot] = token
      rankValues[slot] = rank
      if (token.length === 2) pairRanks[token.charCodeAt(0) * 128 + token.charCodeAt(1)] = rank
    })
    rankKeys = keys
  }
  return rankKeys
}

/** The rank of the token text[start, end), or Infinity when the vocabulary has no such token. */
function rankOf(keys: Array<string | undefined>, text: string, start: number, end: number): number {
  const len = end - start
  for (let slot = fnv(text, start, end) & RANK_MASK, key = keys[slot]; key !== undefined; slot = (slot + 1) & RANK_MASK, key = keys[slot])
    if (key.length === len && text.startsWith(key, start)) return rankValues[slot]!
  return Infinity
}

/** The rank of the piece that merging parts i and i + 1 of a chunk would make. */
function pieceRank(keys: Array<string | undefined>, chunk: string, starts: number[], i: number): number {
  return i + 2 < starts.length ? rankOf(keys, chunk, starts[i]!, starts[i + 2]!) : Infinity
}

/**
 * The number of tokens cl100k_base's byte-pair merge makes of one ASCII chunk: gpt-tokenizer's
 * merge loop (the lowest-ranked adjacent pair first, the leftmost of equal ranks), over the
 * chunk's characters, which are its bytes. The library looks each pair up by decoding its bytes
 * to a string first; chunks never seen before (a cursor's MAC, new names) cost it several times
 * more than this. test/model/tokens.test.ts compares both on random and real text.
 */
function asciiMergeCount(chunk: string): number {
  const keys = rankTable()
  if (rankOf(keys, chunk, 0, chunk.length) !== Infinity) return 1
  const starts: number[] = []
  const pairs: number[] = []
  for (let i = 0; i <= chunk.length; i++) {
    starts.push(i)
    pairs.push(i < chunk.length - 1 ? pairRanks[chunk.charCodeAt(i) * 128 + chunk.charCodeAt(i + 1)]! : Infinity)
  }
  while (starts.length > 1) {
    let lowest = Infinity
    let at = -1
    for (let i = 0; i < pairs.length - 1; i++) {
      if (pairs[i]! < lowest) {
        lowest = pairs[i]!
        at = i
      }
    }
    if (at === -1) break
    starts.splice(at + 1, 1)
    pairs.splice(at, 1)
    pairs[at] = pieceRank(keys, chunk, starts, at)
    if (at > 0) pairs[at - 1] = pieceRank(keys, chunk, starts, at - 1)
  }
  return starts.length - 1
}

/** The count by the pre-tokenizer's own pattern, for text the ASCII scanner does not take. */
function patternCount(text: string): number {
  let n = 0
  for (const chunk of text.match(CL100K_TOKEN_SPLIT_REGEX) ?? []) n += chunkTokens(chunk, 0, chunk.length, false)
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
    n += chunkTokens(text, i, end, true)
    i = end
  }
  return n
}
