import bpeRanks from 'gpt-tokenizer/bpeRanks/cl100k_base'
import { encode } from 'gpt-tokenizer/encoding/cl100k_base'
import { CL100K_TOKEN_SPLIT_REGEX } from 'gpt-tokenizer/esm/encodingParams/constants'
import { asciiChunkEnd, CLASS, DIGIT, LETTER, SPACE } from './pre-tokenizer.js'

/** The tokenizer token budgets are counted in (OpenAI's cl100k_base, a real BPE tokenizer). */
export const TOKENIZER = 'cl100k_base'

/** Counts the tokens of text[start, end). */
type RangeCount = (text: string, start: number, end: number) => number

/**
 * Token counts of distinct texts, in an open-addressing table probed with a hash of the text's
 * characters in place, its keys' characters copied into one arena: no substring is cut per
 * lookup (cutting and hashing one cost more than counting a short text), and no key holds on to
 * the text it was cut from. Emptied when half full or when the arena is, bounding its memory.
 * Exported for its tests, which fill small ones.
 */
export class RangeMemo {
  /** Per slot, where its key starts in the arena plus one; 0 for an empty slot. */
  private readonly at: Int32Array
  private readonly lengths: Int32Array
  private readonly counts: Int32Array
  private readonly arena: Uint16Array
  private readonly mask: number
  private used = 0
  private size = 0

  constructor(slotBits: number, arenaChars: number) {
    this.at = new Int32Array(1 << slotBits)
    this.lengths = new Int32Array(1 << slotBits)
    this.counts = new Int32Array(1 << slotBits)
    this.arena = new Uint16Array(arenaChars)
    this.mask = (1 << slotBits) - 1
  }

  /** The count of text[start, end), whose FNV-1a hash is h (fnv), by `count` on a miss. */
  get(text: string, start: number, end: number, h: number, count: RangeCount): number {
    const { at, lengths, arena, mask } = this
    const len = end - start
    let slot = h & mask
    probe: for (let key = at[slot]!; key !== 0; slot = (slot + 1) & mask, key = at[slot]!) {
      if (lengths[slot] !== len) continue
      for (let i = 0, k = key - 1; i < len; i++, k++) if (arena[k] !== text.charCodeAt(start + i)) continue probe
      return this.counts[slot]!
    }
    const n = count(text, start, end)
    if (len > arena.length >> 4) return n
    if (this.size >= (mask + 1) >> 1 || this.used + len > arena.length) {
      this.clear()
      slot = h & mask
    }
    for (let i = 0; i < len; i++) arena[this.used + i] = text.charCodeAt(start + i)
    at[slot] = this.used + 1
    lengths[slot] = len
    this.counts[slot] = n
    this.used += len
    this.size++
    return n
  }

  clear(): void {
    this.at.fill(0)
    this.size = this.used = 0
  }

  /** The texts kept, in slot order. */
  keys(): string[] {
    const out: string[] = []
    for (let slot = 0; slot <= this.mask; slot++) {
      const from = this.at[slot]! - 1
      if (from < 0) continue
      // In pieces: a call's arguments are bounded, and a kept text may be 2^17 characters long.
      let key = ''
      for (let k = from, to = from + this.lengths[slot]!; k < to; k += 8192) key += String.fromCharCode(...this.arena.subarray(k, Math.min(k + 8192, to)))
      out.push(key)
    }
    return out
  }
}

/** Pre-tokenizer chunks seen. */
const chunks = new RangeMemo(18, 1 << 21)

/** Segments of text between certain chunk boundaries (see countTokens) seen. */
const segments = new RangeMemo(20, 1 << 23)

/**
 * countTokens' memos, for its tests and diagnostics: cleared, then read after a count, they show
 * where it cut the text and what it kept.
 */
export const tokenMemos: { readonly chunks: RangeMemo; readonly segments: RangeMemo } = { chunks, segments }

function chunkTokens(text: string, start: number, end: number, ascii: boolean): number {
  if (end - start === 1 && text.charCodeAt(start) < 128) return 1 // every single byte is a token of its own
  return chunks.get(text, start, end, fnv(text, start, end), ascii ? asciiMergeCount : encodedCount)
}

function encodedCount(text: string, start: number, end: number): number {
  return encode(text.slice(start, end)).length
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
  let h = FNV_OFFSET
  for (let i = start; i < end; i++) h = Math.imul(h ^ text.charCodeAt(i), FNV_PRIME)
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
function asciiMergeCount(text: string, start: number, end: number): number {
  const chunk = text.slice(start, end)
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
 * The count of text[start, end) as the sum of its pre-tokenizer chunks' counts. `end` is the
 * text's end or a certain chunk boundary (see countTokens): no chunk the scanner finds crosses it.
 */
function chunkedCount(text: string, start: number, end: number): number {
  let n = 0
  for (let i = start; i < end; ) {
    const next = asciiChunkEnd(text, i)
    if (next < 0) return patternCount(text.slice(start, end))
    n += chunkTokens(text, i, next, true)
    i = next
  }
  return n
}

/** A segment this long or longer is counted, not remembered: the memo keeps what recurs, and short. */
const MAX_SEGMENT = 512

const QUOTE = 34
const SPACE_CHAR = 32
const TAB = 9
const FNV_OFFSET = 0x811c9dc5
const FNV_PRIME = 0x01000193
const isDigit = (c: number) => c >= 48 && c <= 57

/**
 * Exact cl100k_base token count. BPE never merges across the pre-tokenizer's chunks, so the count
 * of a text is the sum of its chunks' counts. Where a chunk certainly starts whatever came
 * before, the text is also the sum of the segments between: at a quote after a letter or digit
 * (the pattern's letter and digit runs end there, and nothing else takes them in), at an ASCII
 * digit after ASCII punctuation (no chunk takes a digit after another character), and at a space
 * or tab after anything but white space (no chunk takes white space after its last character
 * but a line break). Never after white space: how a run of it splits depends on what follows
 * (`\s+(?!\S)`, `\s+$`), so a segment ending in it would count differently at the end of a text
 * and inside one. A run of ASCII digits so started is its own chunks of three digits at most,
 * each one token of the vocabulary (test/model/tokens.test.ts checks all of them). Fact bodies are
 * JSON whose segments recur (keys with their values, digests, paths, words of descriptions), the
 * numbers between them do not: each distinct segment is counted once and later found by one
 * probe, its hash taken in the same pass that finds the cuts. A segment seen first is split into
 * chunks, each distinct chunk counted once: ASCII by a scanner equal to the pre-tokenizer's
 * pattern on ASCII, a segment with a character past ASCII by the pattern itself.
 */
export function countTokens(text: string): number {
  const len = text.length
  let n = 0
  let start = 0
  let h = FNV_OFFSET
  let afterAlnum = false
  let afterSpace = false
  for (let i = 0; i < len; i++) {
    const c = text.charCodeAt(i)
    if (c > 127) {
      // No cut right after a character past ASCII (a digit of another script joins ASCII digits, a
      // symbol's punctuation run takes a quote, a space of another script is white space): its
      // segment is counted by the pattern itself (chunkedCount), the rest of the text as ASCII.
      h = Math.imul(h ^ c, FNV_PRIME)
      afterAlnum = false
      afterSpace = true
      continue
    }
    const k = CLASS[c]!
    if (k & DIGIT && !afterAlnum && !afterSpace) {
      if (i > start) n += segmentTokens(text, start, i, h)
      start = i
      h = FNV_OFFSET
      let end = i + 1
      while (end < len && isDigit(text.charCodeAt(end))) end++
      // A digit of another script would continue the run: then the run is counted with what follows.
      if (end === len || text.charCodeAt(end) < 128) {
        n += Math.ceil((end - i) / 3)
        start = end
        i = end - 1
        // The flags stay: the next character starts a segment, so no cut is made before it.
        continue
      }
    }
    if (((c === QUOTE && afterAlnum) || ((c === SPACE_CHAR || c === TAB) && !afterSpace)) && i > start) {
      n += segmentTokens(text, start, i, h)
      start = i
      h = FNV_OFFSET
    }
    h = Math.imul(h ^ c, FNV_PRIME)
    afterAlnum = (k & (LETTER | DIGIT)) !== 0
    afterSpace = (k & SPACE) !== 0
  }
  return start < len ? n + segmentTokens(text, start, len, h) : n
}

/** The count of the segment text[start, end), whose FNV-1a hash is h. */
function segmentTokens(text: string, start: number, end: number, h: number): number {
  return end - start < MAX_SEGMENT ? segments.get(text, start, end, h, chunkedCount) : chunkedCount(text, start, end)
}
