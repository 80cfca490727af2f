/**
 * The small rules of src/model and src/version.ts on hand-made inputs (the `model` mutation module).
 * Expected values come from the contract (service-spec.md part 9 and docs/depth.md for the versions
 * and topics), from gpt-tokenizer's own cl100k_base pattern for the pre-tokenizer's chunks, from
 * package.json for the package version, and from the rules the functions document.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { CL100K_TOKEN_SPLIT_REGEX } from 'gpt-tokenizer/esm/encodingParams/constants'
import { describe, expect, it } from 'vitest'
import { factTerms, valueTerms } from '../../src/model/fact-terms.js'
import { ALL_TOPICS, DEPTH_TOPICS, TOPICS } from '../../src/model/fact.js'
import { asciiChunkEnd, CLASS, DIGIT, LETTER, SPACE } from '../../src/model/pre-tokenizer.js'
import { signalPeripheral } from '../../src/model/signals.js'
import { CONTRACT_VERSIONS, DEPTH_VERSION, isContractVersion, LATEST_VERSION, reaches, SEED_VERSION, VERSION_TOPICS } from '../../src/model/versions.js'

/** The scanner's chunks of a text, or null once it declines (a non-ASCII character). */
function scannerChunks(text: string): string[] | null {
  const out: string[] = []
  for (let i = 0; i < text.length; ) {
    const end = asciiChunkEnd(text, i)
    if (end < 0) return null
    if (end <= i) throw new Error(`no progress at ${i} of ${JSON.stringify(text)}`)
    out.push(text.slice(i, end))
    i = end
  }
  return out
}

/** The chunks as gpt-tokenizer's cl100k_base pattern cuts the text. */
const patternChunks = (text: string) => text.match(CL100K_TOKEN_SPLIT_REGEX) ?? []

describe('pre-tokenizer', () => {
  it("each ASCII character's class is the pattern's: \\p{L} letters, \\p{N} digits, JavaScript's \\s white space, the rest punctuation", () => {
    for (let c = 0; c < 128; c++) {
      const ch = String.fromCharCode(c)
      const k = CLASS[c]!
      expect(Boolean(k & LETTER), `letter ${c}`).toBe(/\p{L}/u.test(ch))
      expect(Boolean(k & DIGIT), `digit ${c}`).toBe(/\p{N}/u.test(ch))
      expect(Boolean(k & SPACE), `space ${c}`).toBe(/\s/.test(ch))
      // Every character has a class; punctuation is none of the three above.
      expect(k, `class ${c}`).not.toBe(0)
    }
    // The classes are distinct bits: a character is of one of them only.
    expect(new Set([LETTER, DIGIT, SPACE]).size).toBe(3)
    for (const k of [LETTER, DIGIT, SPACE]) expect(k & (k - 1), String(k)).toBe(0)
  })

  /** Each alternative of the pattern, its edges, and where two compete. */
  const cases = [
    // (1) contractions, both cases, and near misses
    "'s", "'S", "'d", "'D", "'m", "'M", "'t", "'T", "'ll", "'LL", "'lL", "'ve", "'VE", "'vE", "'re", "'RE", "'Re",
    "'l", "'v", "'r", "'x", "'", "''", "'l1", "'ve1", "'rex", "'vex", "'VEx", "'llx", "'sx", "it's", "x'll", "a'b", "'e", "'le", "'vl",
    // (2) letters with one leading non-letter, non-digit, non-newline character
    'abc', ' abc', '.abc', '\tabc', '\nabc', '\rabc', '1abc', '!a', ' a b', 'a.b', '"a"',
    // (3) digits in runs of at most three
    '1', '12', '123', '1234', '1234567', 'a1', ' 1', '.12345',
    // (4) punctuation with an optional leading space and trailing line breaks
    '!', '!!', ' !', '  !', ' !!\n', '!\r\n\n', '! x', '!\n x', '"', ' "', '{ }', '\x00\x01', '\x7f', ' \x7f',
    // (5) to (8) white space
    ' ', '  ', '\n', '\n\n', ' \n', '\n ', ' \n x', '  x', '   x', ' x', '\t\tx', '\n\n x', 'a \n', 'a  \n b', ' \r\n\t y',
    '\v', '\f', 'x\v', '\v\fx', ' \n\n  \n  x', 'trailing  ',
    // mixed
    "don't''s'''ll", '{"bitOffset":12,"bitWidth":4}', '#define X (1)\r\n  case 0x03ul: return true;'
  ]

  it('cuts each alternative of the cl100k pattern, and their edges, as gpt-tokenizer does', () => {
    for (const t of cases) expect(scannerChunks(t), JSON.stringify(t)).toEqual(patternChunks(t))
  })

  it('cuts random ASCII text as gpt-tokenizer does', () => {
    let seed = 7
    const random = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 8) / (1 << 24)
    const alphabet = "aZsStLlvEerdDmM' ' \t\n\r\v\f9-{\"_.\x00"
    for (let n = 0; n < 4000; n++) {
      let t = ''
      for (let len = Math.floor(random() * 16); len > 0; len--) t += alphabet[Math.floor(random() * alphabet.length)]
      expect(scannerChunks(t), JSON.stringify(t)).toEqual(patternChunks(t))
    }
  })

  it('declines at a non-ASCII character: -1, where the full pattern would decide', () => {
    expect(asciiChunkEnd('é', 0)).toBe(-1)
    expect(asciiChunkEnd('aé', 1)).toBe(-1)
    expect(asciiChunkEnd('\u0080', 0)).toBe(-1)
    // A chunk never takes a non-ASCII character in: it ends before it.
    expect(asciiChunkEnd('abé', 0)).toBe(2)
    expect(asciiChunkEnd(' é', 0)).toBe(1)
    expect(asciiChunkEnd('12é', 0)).toBe(2)
    expect(asciiChunkEnd('!!é', 0)).toBe(2)
    expect(asciiChunkEnd("'é", 0)).toBe(1)
    expect(asciiChunkEnd("'sé", 0)).toBe(2)
    // ASCII 127 is punctuation, 128 is not ASCII.
    expect(asciiChunkEnd('\x7f\u0080', 0)).toBe(1)
  })

  it('starts at any index of the text, not only at 0', () => {
    const t = "ab  12345 !!\n\nx'll"
    const chunks = patternChunks(t)
    let i = 0
    for (const c of chunks) {
      expect(asciiChunkEnd(t, i), `at ${i}`).toBe(i + c.length)
      i += c.length
    }
  })
})

describe('fact terms', () => {
  it("a value's terms: every string in it, nested in arrays and objects, lower case, first seen first, each once", () => {
    const value = { description: 'USART Enable', signals: ['USART1_TX', { alt: 'af7' }], bitOffset: 13, reset: null, flag: true, enum: [{ name: 'Enable' }] }
    expect(valueTerms(value)).toEqual(['usart', 'enable', 'usart1', 'tx', 'af7'])
    expect(valueTerms('One two')).toEqual(['one', 'two'])
    expect(valueTerms(['a', ['b', ['c']]])).toEqual(['a', 'b', 'c'])
    // Numbers, booleans and null are no text.
    expect(valueTerms({ n: 42, b: false, z: null, u: undefined })).toEqual([])
    expect(valueTerms(42)).toEqual([])
    expect(valueTerms(null)).toEqual([])
  })

  it("a fact's terms: its name's, then its value's not among them", () => {
    expect(factTerms('USART1.CR1.UE', { description: 'USART enable', field: 'UE' })).toEqual(['usart1', 'cr1', 'ue', 'usart', 'enable'])
    // The value's terms may be given (the indexer computes them once).
    expect(factTerms('PA9', { x: 'ignored' }, ['usart1', 'pa9', 'tx'])).toEqual(['pa9', 'usart1', 'tx'])
    // A name of no terms: the value's alone.
    expect(factTerms('', { d: 'Only value' })).toEqual(['only', 'value'])
    expect(factTerms('--', {}, ['given'])).toEqual(['given'])
    expect(factTerms('A.B', {})).toEqual(['a', 'b'])
  })
})

describe('signal peripherals', () => {
  const instances = new Set(['USB_OTG_FS', 'USB', 'RCC', 'USART1', 'A_B', 'A'])

  it("the longest '_'-delimited prefix that is an instance", () => {
    expect(signalPeripheral('USB_OTG_FS_DM', instances)).toBe('USB_OTG_FS')
    expect(signalPeripheral('USB_DP', instances)).toBe('USB')
    expect(signalPeripheral('RCC_OSC32_IN', instances)).toBe('RCC')
    expect(signalPeripheral('USART1_TX', instances)).toBe('USART1')
    expect(signalPeripheral('A_B_C_D', instances)).toBe('A_B')
    expect(signalPeripheral('A_X_Y', instances)).toBe('A')
    // Only whole '_'-delimited prefixes: not the signal itself, not a prefix that ends inside a word.
    expect(signalPeripheral('USART1_TX', new Set(['USART1_TX', 'USART1']))).toBe('USART1')
    expect(signalPeripheral('USART1_TX', new Set(['USART']))).toBe('USART1')
    expect(signalPeripheral('SPI1_NSS_X', new Set(['SPI1_N', 'SPI']))).toBe('SPI1')
  })

  it("else the text before the first '_', else the whole signal", () => {
    expect(signalPeripheral('I2S_CKIN', instances)).toBe('I2S')
    expect(signalPeripheral('SYS_JTMS_SWDIO', instances)).toBe('SYS')
    expect(signalPeripheral('CEC', instances)).toBe('CEC')
    expect(signalPeripheral('USB_OTG_HS_ULPI_D0', new Set())).toBe('USB')
    // The whole signal is not a prefix of itself: an instance named like the signal is not looked for.
    expect(signalPeripheral('RCC', new Set(['R']))).toBe('RCC')
    // A leading '_' leaves no text before it: the whole signal, never an empty name.
    expect(signalPeripheral('_X', new Set(['']))).toBe('_X')
    expect(signalPeripheral('_X_Y', new Set(['', '_X']))).toBe('_X')
  })

  it('GPIO and EVENTOUT are pin modes, not peripherals', () => {
    expect(signalPeripheral('GPIO', new Set(['GPIO']))).toBeUndefined()
    expect(signalPeripheral('EVENTOUT', new Set(['EVENTOUT']))).toBeUndefined()
    expect(signalPeripheral('GPIO_X', new Set())).toBe('GPIO')
  })
})

describe('contract versions and topics', () => {
  it('the seed contract 2026-08-26 (spec part 9) and its four topics (spec part 1); 2026-12-01 adds memory, interrupts, dma, clocks (docs/depth.md)', () => {
    expect(SEED_VERSION).toBe('2026-08-26')
    expect([...CONTRACT_VERSIONS]).toEqual(['2026-08-26', '2026-12-01'])
    expect(LATEST_VERSION).toBe('2026-12-01')
    expect(DEPTH_VERSION).toBe('2026-12-01')
    expect([...TOPICS]).toEqual(['registers', 'pins', 'electrical', 'errata'])
    expect([...DEPTH_TOPICS]).toEqual(['memory', 'interrupts', 'dma', 'clocks'])
    expect([...ALL_TOPICS]).toEqual(['registers', 'pins', 'electrical', 'errata', 'memory', 'interrupts', 'dma', 'clocks'])
    expect([...VERSION_TOPICS['2026-08-26']]).toEqual(['registers', 'pins', 'electrical', 'errata'])
    expect([...VERSION_TOPICS['2026-12-01']]).toEqual(['registers', 'pins', 'electrical', 'errata', 'memory', 'interrupts', 'dma', 'clocks'])
  })

  it('a contract version is one of the dated strings served, nothing else', () => {
    expect(isContractVersion('2026-08-26')).toBe(true)
    expect(isContractVersion('2026-12-01')).toBe(true)
    for (const v of ['', '2026-08-27', '2026-12-1', ' 2026-08-26', 'latest', undefined, null, 20260826]) expect(isContractVersion(v), String(v)).toBe(false)
  })

  it('a version reaches what it and every earlier version added', () => {
    expect(reaches('2026-08-26', '2026-08-26')).toBe(true)
    expect(reaches('2026-12-01', '2026-08-26')).toBe(true)
    expect(reaches('2026-12-01', '2026-12-01')).toBe(true)
    expect(reaches('2026-08-26', '2026-12-01')).toBe(false)
  })

  it("the package version is package.json's", async () => {
    const pkg = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'package.json'), 'utf8')) as { version: string }
    // Imported here, not at the top: a module that throws while loading must fail this test, not the file's collection.
    const { PACKAGE_VERSION } = await import('../../src/version.js')
    expect(PACKAGE_VERSION).toBe(pkg.version)
  })
})
