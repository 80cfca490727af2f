import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import bpeRanks from 'gpt-tokenizer/bpeRanks/cl100k_base'
import { encode } from 'gpt-tokenizer/encoding/cl100k_base'
import { CL100K_TOKEN_SPLIT_REGEX } from 'gpt-tokenizer/esm/encodingParams/constants'
import { describe, expect, it } from 'vitest'
import { countTokens } from '../../src/model/tokens.js'

/**
 * src/model/tokens.ts reads gpt-tokenizer's internals (the rank table, the pre-tokenizer pattern),
 * which no semver range promises to keep; package.json pins the exact version. These tests fail
 * when an upgrade changes what tokens.ts relies on, so the upgrade is made on purpose.
 */
const json = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as Record<string, any>
const root = process.cwd()

describe('gpt-tokenizer, pinned because src/model/tokens.ts reads its internals', () => {
  it('is pinned to one exact version in package.json and package-lock.json, and that version is installed', () => {
    const pinned = json(join(root, 'package.json')).dependencies['gpt-tokenizer']
    expect(pinned).toBe('3.4.0')
    expect(json(join(root, 'package-lock.json')).packages['node_modules/gpt-tokenizer'].version).toBe(pinned)
    expect(json(join(root, 'package-lock.json')).packages[''].dependencies['gpt-tokenizer']).toBe(pinned)
    const installed = json(createRequire(import.meta.url).resolve('gpt-tokenizer/package.json')).version
    expect(installed).toBe(pinned)
  })

  it("the rank table is cl100k_base's: 100,256 mergeable tokens, a token's index its id, every ASCII byte a string token", () => {
    // cl100k_base.tiktoken lists 100,256 tokens, rank 0 being '!' (0x21, the first printable byte).
    expect(Array.isArray(bpeRanks)).toBe(true)
    expect(bpeRanks).toHaveLength(100_256)
    expect(bpeRanks[0]).toBe('!')
    // tiktoken: encode("hello world") = [15339, 1917]; the table holds each id's text at its index.
    expect(bpeRanks[15339]).toBe('hello')
    expect(bpeRanks[1917]).toBe(' world')
    // tokens.ts counts a lone ASCII character as one token and indexes two-character tokens by
    // their character codes: every ASCII character must be a string token of its own.
    const strings = new Set(bpeRanks.filter((t): t is string => typeof t === 'string'))
    for (let c = 0; c < 128; c++) expect(strings.has(String.fromCharCode(c)), `char ${c}`).toBe(true)
    // Tokens that are not valid UTF-8 on their own are byte arrays, which tokens.ts skips.
    const nonStrings = bpeRanks.filter((t) => typeof t !== 'string')
    expect(nonStrings.length).toBeGreaterThan(0)
    for (const t of nonStrings) expect(t).toBeInstanceOf(Array)
  })

  it("the pre-tokenizer pattern is cl100k_base's, as src/model/pre-tokenizer.ts reimplements it for ASCII", () => {
    expect(CL100K_TOKEN_SPLIT_REGEX.flags).toBe('gu')
    expect(CL100K_TOKEN_SPLIT_REGEX.source).toBe(
      "'(?:[sS]|[dD]|[mM]|[tT]|[lL][lL]|[vV][eE]|[rR][eE])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s+$|\\s*[\\r\\n]|\\s+(?!\\S)|\\s"
    )
  })

  it("token ids and counts as OpenAI's tiktoken gives them for cl100k_base (its cookbook's examples)", () => {
    const reference: Array<[string, number[]]> = [
      ['hello world', [15339, 1917]],
      ['tiktoken is great!', [83, 1609, 5963, 374, 2294, 0]],
      ['antidisestablishmentarianism', [519, 85342, 34500, 479, 8997, 2191]],
      ['2 + 2 = 4', [17, 489, 220, 17, 284, 220, 19]],
      ['お誕生日おめでとう', [33334, 45918, 243, 21990, 9080, 33334, 62004, 16556, 78699]]
    ]
    for (const [text, ids] of reference) {
      expect(encode(text), text).toEqual(ids)
      expect(countTokens(text), text).toBe(ids.length)
    }
  })
})
