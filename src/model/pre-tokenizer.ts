/**
 * cl100k_base's pre-tokenizer on ASCII text, as a scanner instead of a regular expression: the
 * token counter splits hundreds of millions of characters per release, and a `match()` per text
 * (its array and the regex engine's backtracking) cost most of that time. The pattern, as
 * gpt-tokenizer writes it, with its alternatives numbered as the code below follows them:
 *
 *   (1) '(?:[sS]|[dD]|[mM]|[tT]|[lL][lL]|[vV][eE]|[rR][eE])   (2) [^\r\n\p{L}\p{N}]?\p{L}+
 *   (3) \p{N}{1,3}   (4) ` ?[^\s\p{L}\p{N}]+[\r\n]*`   (5) \s+$   (6) \s*[\r\n]   (7) \s+(?!\S)   (8) \s
 *
 * On ASCII, \p{L} is [A-Za-z], \p{N} is [0-9] and \s is [\t\n\v\f\r ] (JavaScript's \s, so the
 * other control characters count as punctuation). test/model/tokens.test.ts checks the chunks
 * against the pattern's own on the corpus and on adversarial strings.
 */

export const LETTER = 1
export const DIGIT = 2
/** JavaScript's \\s on ASCII, which the pattern's white-space alternatives use. */
export const SPACE = 4
const NEWLINE = 8
const PUNCT = 16

/** Each ASCII character's class (the counter's cuts use it too, src/model/tokens.ts). */
export const CLASS = new Uint8Array(128).map((_, c) => {
  if ((c >= 65 && c <= 90) || (c >= 97 && c <= 122)) return LETTER
  if (c >= 48 && c <= 57) return DIGIT
  if (c === 10 || c === 13) return SPACE | NEWLINE
  if (c === 9 || c === 11 || c === 12 || c === 32) return SPACE
  return PUNCT
})

const APOSTROPHE = 39
const SPACE_CHAR = 32

/** Length of a contraction suffix (`'s`, `'LL`, …) starting at the apostrophe at i, or 0. */
function contraction(s: string, i: number): number {
  const a = s.charCodeAt(i + 1) | 32 // lower case; NaN past the end becomes 32, no letter
  if (a === 115 || a === 100 || a === 109 || a === 116) return 2 // s d m t
  const b = s.charCodeAt(i + 2) | 32
  if ((a === 108 && b === 108) || (a === 118 && b === 101) || (a === 114 && b === 101)) return 3 // ll ve re
  return 0
}

/** Class of the character at i; 0 past the end of the text and for non-ASCII characters. */
function classAt(s: string, i: number): number {
  const c = i < s.length ? s.charCodeAt(i) : 128
  return c < 128 ? CLASS[c]! : 0
}

/** First index at or after i, and before `limit`, whose character is not of the class `cls`. */
function runEnd(s: string, i: number, cls: number, limit = s.length): number {
  while (i < limit && classAt(s, i) & cls) i++
  return i
}

/**
 * End of the pre-tokenizer chunk that starts at i, or -1 when the character at i is not ASCII.
 * No chunk takes in a non-ASCII character (they are of no class here), so each one starts a chunk
 * and the caller sees -1 before any chunk that the full pattern could have split differently.
 */
export function asciiChunkEnd(s: string, i: number): number {
  const c = s.charCodeAt(i)
  if (c > 127) return -1
  const k = CLASS[c]!
  if (c === APOSTROPHE) {
    const n = contraction(s, i)
    if (n > 0) return i + n // (1)
  }
  if (k & LETTER) return runEnd(s, i + 1, LETTER) // (2)
  if (k & (SPACE | PUNCT) && !(k & NEWLINE) && classAt(s, i + 1) & LETTER) return runEnd(s, i + 2, LETTER) // (2), with its one leading character
  if (k & DIGIT) return runEnd(s, i + 1, DIGIT, Math.min(i + 3, s.length)) // (3)
  const p = c === SPACE_CHAR ? i + 1 : i
  if (classAt(s, p) & PUNCT) return runEnd(s, runEnd(s, p + 1, PUNCT), NEWLINE) // (4)
  // c is white space: the run of it decides between (5) to (8).
  let end = i + 1
  let lastNewline = k & NEWLINE ? i : -1
  for (; classAt(s, end) & SPACE; end++) if (classAt(s, end) & NEWLINE) lastNewline = end
  if (end === s.length) return end // (5)
  if (lastNewline >= 0) return lastNewline + 1 // (6): \s* backs off to the run's last line break
  if (end - i >= 2) return end - 1 // (7): leaves the last white space to prefix the next chunk
  return i + 1 // (8)
}
