import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { countTokens as reference } from 'gpt-tokenizer/encoding/cl100k_base'
import { CL100K_TOKEN_SPLIT_REGEX } from 'gpt-tokenizer/esm/encodingParams/constants'
import { describe, expect, it } from 'vitest'
import { asciiChunkEnd } from '../../src/model/pre-tokenizer.js'
import { countTokens, RangeMemo, TOKENIZER, tokenMemos } from '../../src/model/tokens.js'

const corpusText = (path: string, chars: number) => readFileSync(join(process.cwd(), '..', 'shared', 'corpus', path), 'utf8').slice(0, chars)

/** The scanner's chunks of a text, or null once it declines (a non-ASCII character). */
function scannerChunks(text: string): string[] | null {
  const out: string[] = []
  for (let i = 0; i < text.length; ) {
    const end = asciiChunkEnd(text, i)
    if (end < 0) return null
    out.push(text.slice(i, end))
    i = end
  }
  return out
}

const patternChunks = (text: string) => text.match(CL100K_TOKEN_SPLIT_REGEX) ?? []

/** `count` texts of up to `maxLength` characters drawn from `alphabet`, the same for the same seed. */
function* randomTexts(alphabet: string, maxLength: number, count: number, seed: number): Generator<string> {
  const random = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 8) / (1 << 24)
  for (let n = 0; n < count; n++) {
    let t = ''
    for (let len = Math.floor(random() * maxLength); len > 0; len--) t += alphabet[Math.floor(random() * alphabet.length)]
    yield t
  }
}

/** Strings at the edges of every alternative of the pattern, and where two of them compete. */
const ADVERSARIAL = [
  '',
  ' ',
  '\n',
  'a',
  "'s",
  "'",
  "x'",
  "it's they'll we've I'M   \n\n  trailing   ",
  "x'S x'T x'Re x'rE x'VE x'Ll x'lL x'D x'M x'x x'sa x'lla x'l x'v x'r x'v1 x'e 7'll 7'l",
  "don't''s'''ll",
  "'\n's\n'",
  " 's 'tx",
  'a  b   c    d',
  'word \n',
  'word \t\n \n  x',
  'x  \r\n  \r\n\r\n  y',
  ' \n \n ',
  '\t\t\n',
  'trailing \t ',
  '  leading',
  '\tword \vword \fword',
  '\t{ \t{x  {  !!\n\n\r x',
  '12345678901 1 12 123 1234 a1b22c333d4444',
  '0x1F 0xDEAD_BEEF 3.14159 -42 +7e10',
  '...,,,;;;!!!\n\n\nabc',
  ' !!! ??? ...word',
  '"a":"b","c":[1,2,{"d":null}]}\n',
  '{"id":"0123456789abcdef0123","value":{"bitOffset":12,"bitWidth":4}}',
  '<field><name>UE</name>\n  <description>USART enable</description></field>',
  '#define NRF52_ERRATA_12 (1)\r\n    case 0x03ul: return true;\r\n',
  'a\x00b\x01\x1f c\x7f d',
  '\x0b\x0c \x0b a',
  'end with spaces and newline \n  ',
  'mixed  \t \n\t x \n\n',
  // Where the counter cuts a text into segments: a quote after a letter or digit, a digit after
  // anything but a letter or digit, and the same places where the rule must not cut.
  '{"id":"e2a7359c26dba470a7a2","value":{"bitOffset":12,"bitWidth":4,"x":-0.5e-3},"locator":"line 203: /a[name=A1]/b"}',
  '"a""b"1"2"a1"1a"\'s"\'5"" 5"\n5"\t7":8,9;10 11  12\n\n13',
  '1234567890"1234"12345"123456"1234567"',
  ' 0 00 000 0000 00000 000000 0000000 a0 a00 a0000 _0 _0000 .0 .0000',
  'x"y" "z"  "w"\n"v"\'"\'s"'
]

describe('asciiChunkEnd', () => {
  it('splits ASCII text exactly as the cl100k pattern does', () => {
    const sources = ['errata/nordic/nrf52_erratas.h', 'svd/Espressif/esp32.svd'].map((p) => corpusText(p, 200_000).replace(/[^\x00-\x7f]/g, '?'))
    for (const t of [...ADVERSARIAL, ...sources])
      expect(scannerChunks(t), JSON.stringify(t.slice(0, 80))).toEqual(patternChunks(t))
  })

  it('splits random ASCII text exactly as the cl100k pattern does', () => {
    // Few distinct characters, so runs, contractions and white-space mixes are dense.
    for (const t of randomTexts("aZsStLlvErd' ' \t\n\r\v9-{\"_.\x00", 24, 20_000, 1)) expect(scannerChunks(t), JSON.stringify(t)).toEqual(patternChunks(t))
  })

  it('declines at a non-ASCII character, wherever it stands', () => {
    for (const t of ['é', 'café', 'a é', '1é', "'é", ' \u00a0x', 'x\u2028y', '😀']) expect(scannerChunks(t), t).toBeNull()
  })
})

describe('countTokens', () => {
  it('equals the reference cl100k_base count on source texts, ASCII and not', () => {
    const texts = [
      corpusText('errata/nordic/nrf52_erratas.h', 60_000),
      corpusText('svd/Espressif/esp32.svd', 60_000),
      'Température ambiante −40 °C … 85 °C, µA/MHz, naïve café 日本語 😀',
      'mostly ASCII, then a µ in the middle: 3 µA and ° and a trailing space ',
      ...ADVERSARIAL
    ]
    for (const t of texts) for (let i = 0; i < Math.max(t.length, 1); i += 1999) expect(countTokens(t.slice(i, i + 3000))).toBe(reference(t.slice(i, i + 3000)))
  })

  it('equals the reference on random texts counted one after another, whatever the memos hold from the texts before', () => {
    // Digits, quotes and white space in every order: a segment's count must not depend on the text
    // it was first seen in (white space before a digit splits otherwise than at a text's end).
    for (const t of randomTexts('aZ09 "\':,.{}[]_-\n\t\r\v', 30, 100_000, 11)) expect(countTokens(t), JSON.stringify(t)).toBe(reference(t))
  }, 180_000)

  it('equals the reference on every text of two ASCII characters', () => {
    // Each pair of characters is a chunk or two: a two-character piece the vocabulary lacks must never be merged.
    for (let a = 0; a < 128; a++)
      for (let b = 0; b < 128; b++) {
        const t = String.fromCharCode(a, b)
        expect(countTokens(t), JSON.stringify(t)).toBe(reference(t))
      }
  })

  it('is named for the encoding whose counts it gives', async () => {
    const named = (await import(`gpt-tokenizer/encoding/${TOKENIZER}`)) as { countTokens: (t: string) => number }
    for (const t of ADVERSARIAL) expect(countTokens(t), JSON.stringify(t)).toBe(named.countTokens(t))
  })

  it('every run of one to three ASCII digits is one token of the vocabulary', () => {
    for (let len = 1; len <= 3; len++) for (let i = 0; i < 10 ** len; i++) expect(reference(String(i).padStart(len, '0'))).toBe(1)
  })

  it('equals the reference where digits and quotes meet characters past ASCII', () => {
    // An Arabic-Indic digit joins ASCII digits in one chunk of the pattern: no cut may be made there.
    for (const t of ['\u0663' + '45"6"', 'é5"x"7', 'x\u0663"4"', '"µ"1"é"2', '٣٤٥٦٧"8"9', '1\u066311', '.12\u0663"4', '°" 5', '\u00a0 9', 'a\u3000 "b"'])
      expect(countTokens(t), t).toBe(reference(t))
  })

  it('equals the reference on random texts mixing ASCII with letters, digits, symbols and spaces of other scripts', () => {
    // Only the segments around such a character are counted by the pattern: the cuts next to it
    // (an Arabic-Indic digit after ASCII digits, a no-break space before a digit, a quote after °) must hold.
    for (const t of randomTexts('a 1 "\u00a0\u3000°é\u0663\t.:', 30, 60_000, 5)) expect(countTokens(t), JSON.stringify(t)).toBe(reference(t))
  }, 180_000)

  it('equals the reference on text of chunks never seen before: random cursors and random ASCII', () => {
    let seed = 7
    const random = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 8) / (1 << 24)
    const text = (alphabet: string, len: number) => Array.from({ length: len }, () => alphabet[Math.floor(random() * alphabet.length)]).join('')
    const base64url = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'
    const printable = Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)).join('') + '\t\n'
    for (let n = 0; n < 3000; n++) {
      // Each text is new, so nearly every chunk is counted by the merge, not the memo.
      const t = n % 2 ? `"nextCursor":"${text(base64url, 60 + (n % 50))}.${text(base64url, 22)}"}` : text(printable, 1 + (n % 120))
      expect(countTokens(t), JSON.stringify(t)).toBe(reference(t))
    }
  })
})

describe('countTokens: where it cuts a text and what its memos keep', () => {
  /** The segments and chunks (sorted) countTokens keeps of one text, counted into empty memos. */
  function kept(text: string) {
    tokenMemos.chunks.clear()
    tokenMemos.segments.clear()
    expect(countTokens(text), JSON.stringify(text)).toBe(reference(text))
    return { segments: tokenMemos.segments.keys().sort(), chunks: tokenMemos.chunks.keys().sort() }
  }

  it('cuts at a quote after a letter or digit, at an ASCII digit after punctuation, at a space or tab after anything but white space', () => {
    // A fact body: the numbers after ':' are counted as runs of digits (three to a token), never kept.
    expect(kept('{"id":"e2a7","value":{"bitOffset":12,"w":4}}').segments).toEqual(['","value', '":', '":"e2a7', '":{"bitOffset', ',"w', '{"id', '}}'])
    // No cut before a quote after punctuation, nor before a digit after a letter or a space.
    expect(kept('x1 ,2 3').segments).toEqual([' ,', ' 3', 'x1'])
    // DEL, the last ASCII character, is punctuation to the pattern.
    expect(kept('\x7f5 x').segments).toEqual([' x', '\x7f'])
    expect(kept('a b  c\td').segments).toEqual(['\td', '  c', ' b', 'a'])
    // Each segment kept once, wherever it stands: at the text's end it is hashed as in the middle.
    expect(kept(' x y x').segments).toEqual([' x', ' y'])
    // A text may start with a run of digits.
    expect(kept('12"a"').segments).toEqual(['"', '"a'])
    expect(kept('007').segments).toEqual([])
  })

  it('makes no cut after a character past ASCII, nor before a run of digits another script continues', () => {
    expect(kept('é5"x"').segments).toEqual(['"', '"x', 'é5'])
    // An Arabic-Indic digit continues the run of '12': the run is counted with what follows it.
    expect(kept('.12\u0663"4').segments).toEqual(['.', '12\u0663"'])
    // So is a run before any character past ASCII, the first one too.
    expect(kept('12\u0080').segments).toEqual(['12\u0080'])
    expect(kept('a \u00a0 9').segments).toEqual([' \u00a0 9', 'a'])
  })

  it('keeps every chunk of more than one character, and one character past ASCII, once', () => {
    expect(kept('ab, cd efg ab').chunks).toEqual([' ab', ' cd', ' efg', 'ab'])
    expect(kept('\u0080').chunks).toEqual(['\u0080'])
  })

  it('keeps segments shorter than 512 characters, wherever they stand, and counts longer ones without keeping them', () => {
    const c = ' ' + 'c'.repeat(300)
    const d = ' ' + 'd'.repeat(300)
    expect(kept(c + d).segments).toEqual([c, d])
    expect(kept('e'.repeat(511)).segments).toEqual(['e'.repeat(511)])
    expect(kept('f'.repeat(512)).segments).toEqual([])
    expect(kept('f'.repeat(512)).chunks).toEqual(['f'.repeat(512)])
  })
})

describe('RangeMemo', () => {
  /** A counter that answers the text's length times ten and records each text it was asked. */
  function counter() {
    const asked: string[] = []
    const count = (text: string, start: number, end: number) => {
      asked.push(text.slice(start, end))
      return (end - start) * 10
    }
    return { asked, count }
  }
  // Every key under one hash: lookups must compare characters, and each insert probes past the others.
  const H = 13

  it('counts a text once, then finds it by its characters wherever it stands, and tells texts of one hash apart', () => {
    const memo = new RangeMemo(4, 256)
    const { asked, count } = counter()
    expect(memo.get('xxabcxx', 2, 5, H, count)).toBe(30)
    expect(memo.get('abc', 0, 3, H, count)).toBe(30)
    expect(memo.get('--abc', 2, 5, H, count)).toBe(30)
    expect(asked).toEqual(['abc'])
    // The same hash, other characters or another length: each counted once, then found.
    expect(memo.get('abd', 0, 3, H, count)).toBe(30)
    expect(memo.get('ab', 0, 2, H, count)).toBe(20)
    expect(memo.get('zbc', 0, 3, H, count)).toBe(30)
    for (const t of ['abc', 'abd', 'ab', 'zbc']) memo.get(t, 0, t.length, H, count)
    expect(asked).toEqual(['abc', 'abd', 'ab', 'zbc'])
  })

  it('reads back a kept text of any length', () => {
    // 2^22 characters of arena keep texts of up to 2^18: more than one call's arguments can hold.
    const memo = new RangeMemo(4, 1 << 22)
    const long = Array.from({ length: 200_000 }, (_, i) => String.fromCharCode(97 + (i % 26))).join('') + '\ud800'
    memo.get(long, 0, long.length, H, counter().count)
    expect(memo.keys()).toEqual([long])
  })

  it('probes past the last slot to the first', () => {
    const memo = new RangeMemo(4, 256)
    const { asked, count } = counter()
    for (const t of ['p', 'q', 'r']) memo.get(t, 0, 1, 15, count)
    for (const t of ['p', 'q', 'r']) expect(memo.get(t, 0, 1, 15 + 16 * 7, count)).toBe(10)
    expect(asked).toEqual(['p', 'q', 'r'])
    // In slot order: 'q' and 'r' wrapped to slots 0 and 1, 'p' in the last.
    expect(memo.keys()).toEqual(['q', 'r', 'p'])
    memo.clear()
    expect(memo.keys()).toEqual([])
    expect(memo.get('p', 0, 1, 15, count)).toBe(10)
    expect(asked).toEqual(['p', 'q', 'r', 'p'])
  })

  /** The first `full` texts are all kept; the next empties the memo and is kept in it: the first is counted again. */
  function expectEmptiedAfter(memo: RangeMemo, keys: string[], full: number) {
    const { asked, count } = counter()
    for (const k of [...keys.slice(0, full), ...keys.slice(0, full)]) memo.get(k, 0, k.length, H, count)
    expect(asked).toEqual(keys.slice(0, full))
    for (const k of [keys[full]!, keys[full]!, keys[0]!]) memo.get(k, 0, k.length, H, count)
    expect(asked).toEqual([...keys.slice(0, full + 1), keys[0]])
  }

  it('is emptied when half its slots are taken, then keeps the text that emptied it: never overfilled', () => {
    const memo = new RangeMemo(4, 256)
    const keys = Array.from({ length: 40 }, (_, i) => `k${String.fromCharCode(65 + i)}`)
    // Half of 16 slots.
    expectEmptiedAfter(memo, keys, 8)
    // Forty texts of one hash never fill its 16 slots (a full table would be probed forever).
    for (const k of keys) expect(memo.get(k, 0, 2, H, counter().count)).toBe(20)
  })

  it('is emptied when its arena is full, and never remembers a text longer than a sixteenth of it', () => {
    // 256 slots, 64 characters: sixteen texts of four characters fill the arena exactly.
    const memo = new RangeMemo(8, 64)
    expectEmptiedAfter(memo, Array.from({ length: 17 }, (_, i) => `w${String.fromCharCode(65 + i)}xy`), 16)
    const { asked, count } = counter()
    // Five characters is past 64 / 16: counted every time.
    for (let n = 0; n < 3; n++) expect(memo.get('abcde', 0, 5, H, count)).toBe(50)
    expect(asked).toEqual(['abcde', 'abcde', 'abcde'])
  })
})
