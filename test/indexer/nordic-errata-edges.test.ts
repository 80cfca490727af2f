import { describe, expect, it } from 'vitest'
import { NORDIC_ERRATA_HEADER_KIND, NORDIC_ERRATA_MATRIX_KIND, nordicErrataAdapter, parseNordicErrata, type NordicErrataOutput } from '../../indexer/sources/nordic-errata.js'
import type { LoadedArtifact } from '../../indexer/sources/types.js'

/*
 * The Nordic errata adapter on small headers and matrices written inline: each preprocessor and
 * C shape it refuses (reason and line), the conditions it evaluates, and what a fact says.
 * Expected values are worked out by hand from the text below (as a C preprocessor and compiler
 * would read it), not taken from the adapter.
 */

const SHA = 'c'.repeat(64)
const art = (path: string, text: string, kind = path.endsWith('.dox') ? NORDIC_ERRATA_MATRIX_KIND : NORDIC_ERRATA_HEADER_KIND): LoadedArtifact => {
  const content = Buffer.from(text)
  return { path, sha256: SHA, bytes: content.length, kind, publisher: 'test', license: 'MIT', mediaType: 'text/plain', content }
}

/** One erratum function of an nRF52 header: a banner, an optional preamble, then the body (indented). */
const fn = (n: number, body: string[], pre: string[] = [], kind = 'errata') => [
  `/* ========= Errata ${n} ========= */`,
  ...pre,
  `static inline bool nrf52_${kind}_${n}(void)`,
  '{',
  ...body.map((l) => '    ' + l),
  '}',
  ''
]
/**
 * A header of these functions. A header's own convention says where var1/var2 are read from (the
 * registers most of its functions read): the comment stands for the many functions of a real one.
 */
const header = (...fns: string[][]) =>
  ['#include <stdbool.h>', '/* var1 = *(uint32_t *)0x10000130ul; var2 = *(uint32_t *)0x10000134ul; */', '/* var1 = *(uint32_t *)0x10000130ul; var2 = *(uint32_t *)0x10000134ul; */', '', ...fns.flat()].join('\n')
const parse = (text: string, path = 'mdk/nrf52_erratas.h'): NordicErrataOutput & { text: string } => ({ ...parseNordicErrata([art(path, text)]), text })

/** 1-based line of the first line containing `needle` at or after line `after` (read off the raw text). */
function lineOf(text: string, needle: string, after = 1): number {
  const lines = text.split('\n')
  for (let i = after - 1; i < lines.length; i++) if (lines[i]!.includes(needle)) return i + 1
  throw new Error(`'${needle}' not found`)
}

/** The usual part-code and revision reads of an nRF52 function (FICR +0x130 / +0x134). */
const READS = ['uint32_t var1 = *(uint32_t *)0x10000130ul;', 'uint32_t var2 = *(uint32_t *)0x10000134ul;']
/** A well-formed function for NRF52832 (part 0x06): revision 0x01 not affected, others affected. */
const GOOD = (n: number) =>
  fn(n, ['#if defined (NRF52832_XXAA)', ...READS, 'if (var1 == 0x06)', '{', 'switch(var2)', '{', 'case 0x01ul:', 'return false;', 'default:', 'return true;', '}', '}', '#endif', 'return false;'])

/** Refused: exactly one problem, for function 1, with this reason at the line holding `at`. */
function refused(body: string[], reason: string, at: string, pre: string[] = []) {
  const r = parse(header(fn(1, body, pre), GOOD(2)))
  expect(r.result.problems).toEqual([{ file: 'mdk/nrf52_erratas.h', line: lineOf(r.text, at, 3), reason: `nrf52_errata_1(): ${reason}` }])
  expect(r.result.facts.map((f) => f.name)).toEqual(['errata.2'])
}

describe('nordic errata edges: the preprocessor', () => {
  it('#elif, #else or #endif without #if', () => {
    refused(['#elif defined (NRF52832_XXAA)', 'return true;', '#endif'], '#elif without a matching #if', '#elif')
    refused(['#if defined (NRF52832_XXAA)', 'return true;', '#else', 'return false;', '#elif 1', '#endif'], '#elif without a matching #if', '#elif')
    refused(['#else', 'return true;', '#endif', 'return defined (NRF52832_XXAA);'], '#else without a matching #if', '#else')
    refused(['#if defined (NRF52832_XXAA)', '#else', '#else // again', '#endif', 'return true;'], '#else without a matching #if', '#else // again')
    refused(['return true;', '#endif', '// NRF52832_XXAA'], '#endif without a matching #if', '#endif')
  })

  it('directives it does not know, and defines and conditions it cannot read', () => {
    refused(['#pragma once', 'return true; // NRF52832_XXAA'], 'unsupported preprocessor directive #pragma', '#pragma')
    refused(['#define (X) 1', 'return true; // NRF52832_XXAA'], 'cannot read #define (X) 1', '#define')
    refused(['#ifdef NRF52832_XXAA X', 'return true;', '#endif'], 'cannot read #ifdef NRF52832_XXAA X', '#ifdef')
    refused(['#ifndef 1X', 'return true; // NRF52832_XXAA', '#endif'], 'cannot read #ifndef 1X', '#ifndef')
    const bad = (cond: string, what: string) => refused([`#if ${cond}`, 'return true; // NRF52832_XXAA', '#endif', 'return false;'], `cannot evaluate #if ${cond}: ${what}`, '#if')
    bad('defined (NRF52832_XXAA', "missing ')' after defined(")
    bad('(defined NRF52832_XXAA', "missing ')'")
    bad('defined ()', 'defined() without a macro name')
    bad('defined', 'defined() without a macro name')
    bad('defined (NRF52832_XXAA) ||', 'unexpected end')
    bad('defined (NRF52832_XXAA) NRF52840_XXAA', "unexpected 'NRF52840_XXAA'")
    bad('+ defined (NRF52832_XXAA)', "unexpected '+'")
    refused(['#', 'return true; // NRF52832_XXAA'], 'unsupported preprocessor directive #', '#')
  })

  it('macros that only look like variant, series or DEVELOP_IN macros are unknown', () => {
    const unknown = (m: string) => refused([`#if defined (NRF52832_XXAA) || defined (${m})`, 'return true;', '#endif', 'return false;'], `unknown macro ${m} in a preprocessor condition`, '#if')
    for (const m of ['MY_NRF52832_XXAA', 'NRF52832_XXAAB', 'MY_NRF52_SERIES', 'NRF52_SERIES_X', 'MY_DEVELOP_IN_NRF52832']) unknown(m)
    // The own series is known; another series is not this header's.
    const r = parse(header(fn(1, ['#ifndef NRF52_SERIES', 'return false;', '#else', '#if defined (NRF52832_XXAA)', 'return true;', '#endif', 'return false;', '#endif'])))
    expect(r.result.problems).toEqual([])
    expect(r.result.facts.map((f) => f.target)).toEqual(['nordic-errata:NRF52832'])
  })

  it('an #elif after a taken branch, and an #else after a taken #elif, are skipped', () => {
    const r = parse(header(fn(1, ['#if 0', 'return false;', '#elif defined (NRF52832_XXAA)', '#else', 'return false;', '#endif', 'return true; // NRF52840_XXAA'])))
    expect(r.result.problems).toEqual([])
    // NRF52832 takes the empty #elif and reaches `return true`; NRF52840 takes the #else.
    expect(r.result.facts.map((f) => f.target)).toEqual(['nordic-errata:NRF52832'])
  })

  it('a condition naming another series, or a macro it does not know, is refused', () => {
    refused(['#if defined (NRF52832_XXAA) || defined (NRF53_SERIES)', 'return true;', '#endif', 'return false;'], 'refers to another series (NRF53_SERIES)', '#if')
    refused(['#if defined (NRF52832_XXAA) && defined (BOARD_X)', 'return true;', '#endif', 'return false;'], 'unknown macro BOARD_X in a preprocessor condition', '#if')
  })

  it('evaluates !, &&, || (all operands), parentheses, integer literals and `defined X` without parentheses', () => {
    const r = parse(
      header(
        fn(1, [
          '#if 0',
          'return false;',
          '#elif defined NRF52832_XXAA && !defined (NRF52840_XXAA) && (10 || defined (NRF52833_XXAA))',
          'return true;',
          '#elif !(defined (NRF52840_XXAA) || 0) && !defined (DEVELOP_IN_NRF52840)',
          'return true;',
          '#else',
          'return false;',
          '#endif'
        ]),
        fn(2, ['#ifdef NRF52840_XXAA', 'return true;', '#endif', '#ifndef NRF52840_XXAA', 'return false;', '#endif'])
      )
    )
    expect(r.result.problems).toEqual([])
    const got = r.result.facts.map((f) => [f.target, f.name, f.value.appliesToUnlistedRevisions])
    // errata 1: NRF52832 by the first #elif; NRF52833 by the second (neither 52840 nor its DEVELOP_IN); NRF52840 never.
    expect(got).toEqual([
      ['nordic-errata:NRF52832', 'errata.1', true],
      ['nordic-errata:NRF52833', 'errata.1', true],
      ['nordic-errata:NRF52840', 'errata.2', true]
    ])
    // NRF52840 is named by errata 1 and never applies; errata 2 does not name NRF52832 or NRF52833.
    expect(r.stats.neverApplies).toBe(1)
  })

  it('joins \\-continued directive lines and ignores comments in them', () => {
    const r = parse(header(fn(1, ['#if defined (NRF52840_XXAA) /* not this one */ || \\', '    defined (NRF52832_XXAA) // the one', 'return true;', '#endif', 'return false;'])))
    expect(r.result.problems).toEqual([])
    expect(r.result.facts.map((f) => f.target)).toEqual(['nordic-errata:NRF52832', 'nordic-errata:NRF52840'])
  })
})

describe('nordic errata edges: the C statements', () => {
  it('refuses statements, reads and branches outside the erratum shapes', () => {
    refused(['#if defined (NRF52832_XXAA)', 'while (1) {}', '#endif', 'return false;'], "statement starting with 'while' is not one of the known erratum shapes", 'while')
    refused(['#if defined (NRF52832_XXAA)', 'uint32_t var3;', '#endif', 'return false;'], "unknown variable 'var3'", 'var3')
    refused(['#if defined (NRF52832_XXAA)', 'uint32_t var1 = return;', '#endif', 'return false;'], "unexpected 'return' in the read of var1", 'uint32_t var1')
    refused(['#if defined (NRF52832_XXAA)', 'uint32_t var1 @ 2;', '#endif', 'return false;'], "unexpected '@ 2;'", 'uint32_t var1')
    refused(['#if defined (NRF52832_XXAA)', 'return 1;', '#endif', 'return false;'], "return of '1' instead of true/false", 'return 1;')
    refused(['#if defined (NRF52832_XXAA)', ...READS, 'if (var1 == 0x06) { return true; } else { return false; }', '#endif', 'return false;'], 'if (var1 == ...) with an else branch', 'if (var1')
    refused(['#if defined (NRF52832_XXAA)', ...READS, 'if (var2 == 1) return true;', '#endif', 'return false;'], 'if (var2 == 1) decides the answer; only if (var1 == <part code>) is understood', 'if (var2')
    refused(['#if defined (NRF52832_XXAA)', ...READS, 'switch(var2) { case LATEST: return true; }', '#endif', 'return false;'], "case label 'LATEST' is not a number", 'switch')
    refused(['#if defined (NRF52832_XXAA)', ...READS, 'switch(var2) { case 1: return true; }', '#endif', 'return false;', '} // stray'], "unexpected '}'", '} // stray')
    refused(['#if defined (NRF52832_XXAA)', ...READS, 'if (var1 & 0x06) return true;', '#endif', 'return false;'], 'if (var1 & 0x06) decides the answer; only if (var1 == <part code>) is understood', 'if (var1 &')
    refused(['#if defined (NRF52832_XXAA)', ...READS, 'if (var1 == var2) return true;', '#endif', 'return false;'], 'if (var1 == var2) decides the answer; only if (var1 == <part code>) is understood', 'if (var1 ==')
    refused(['#if defined (NRF52832_XXAA)', ...READS, 'switch(var2) { case 1: case 1: return true; }', '#endif', 'return false;'], 'duplicate case 1', 'switch')
    refused(['#if defined (NRF52832_XXAA)', ...READS, 'switch(var1) { default: return true; }', '#endif', 'return false;'], "switch on 'var1' instead of the revision code var2", 'switch')
    refused(['#if defined (NRF52832_XXAA)', 'uint32_t var1 = { 1 };', '#endif', 'return false;'], "unexpected '{' in the read of var1", 'uint32_t var1')
    refused(['#if defined (NRF52832_XXAA)', 'uint32_t var1 = 1 };', '#endif', 'return false;'], "unexpected '}' in the read of var1", 'uint32_t var1')
    for (const kw of ['if', 'else', 'switch', 'case', 'default', 'break', 'while', 'for', 'goto'])
      refused(['#if defined (NRF52832_XXAA)', `uint32_t var1 = ${kw};`, '#endif', 'return false;'], `unexpected '${kw}' in the read of var1`, 'uint32_t var1')
    // Cut short: the end of the function where a token was due.
    refused(['#if defined (NRF52832_XXAA)', ...READS, 'if (var1 == 0x06) {', 'return true;', '#endif'], "expected '}' but found 'end of function'", 'return true;')
    refused(['#if defined (NRF52832_XXAA)', ...READS, 'switch(var2) {', 'case 1: return true;', '#endif'], 'unexpected end of function', 'case 1:')
    refused(['#if defined (NRF52832_XXAA)', 'uint32_t var1 = *(uint32_t *)0x10000130ul', '#endif'], "expected ';' but found 'end of function'", 'uint32_t var1')
    // Falls off the end for NRF52840 (named in the comment's place by the #if): the line of the last statement.
    refused(['uint32_t var1 = *(uint32_t *)0x10000130ul; /* NRF52832_XXAA */', 'if (var1 == 0x06) return true;'], 'can end without returning a value', 'if (var1 == 0x06) return true;')
    // A part code inside a part-code block is checked twice.
    refused(['#if defined (NRF52832_XXAA)', ...READS, 'if (var1 == 0x06) { if (var1 == 0x06) return true; }', '#endif', 'return false;'], 'part code 0x06 is checked twice', 'if (var1 == 0x06)')
  })

  it('a read of an unknown register is refused inside a part-code block and after a fallback branch', () => {
    const GUARD = ['if (*(uint32_t *)0x10000130ul == 0xFFFFFFFF)', '{', 'var1 = *(uint32_t *)0xF0000FE0ul;', '}', 'else', '{', 'var1 = *(uint32_t *)0x10000130ul;', '}']
    refused(['#if defined (NRF52832_XXAA)', 'uint32_t var1 = *(uint32_t *)0x10000130ul;', 'if (var1 == 0x06) { uint32_t var2 = *(uint32_t *)0x10000200ul; switch(var2) { default: return true; } }', '#endif', 'return false;'],
      'cannot tell that var2 reads the revision code: 0x10000200 is not a register this header reads it from elsewhere', 'if (var1 == 0x06) { uint32_t var2')
    refused(['#if defined (NRF52832_XXAA)', 'uint32_t var1;', ...GUARD, 'uint32_t var2 = *(uint32_t *)0x10000200ul;', 'if (var1 == 0x06) return true;', '#endif', 'return false;'],
      'cannot tell that var2 reads the revision code: 0x10000200 is not a register this header reads it from elsewhere', 'uint32_t var2 = *(uint32_t *)0x10000200ul;')
  })

  it('comparisons are not reads: a header of one function takes that function’s registers as its convention', () => {
    const r = parse(['#include <stdbool.h>', ...GOOD(1)].join('\n'))
    expect(r.result.problems).toEqual([])
    expect(r.result.facts.map((f) => f.value.partCode)).toEqual(['0x06'])
  })

  it('a switch without default falls through to what follows it in the block; two switches give each label once', () => {
    const r = parse(
      header(
        fn(1, ['#if defined (NRF52832_XXAA)', ...READS, 'if (var1 == 0x06) { switch(var2) { case 0x01ul: return false; } return true; }', '#endif', 'return false;']),
        fn(2, ['#if defined (NRF52832_XXAA)', ...READS, 'if (var1 == 0x06) { switch(var2) { case 1: return true; } switch(var2) { case 1: return false; case 10: return true; default: return false; } }', '#endif', 'return false;'])
      )
    )
    expect(r.result.problems).toEqual([])
    expect(r.result.facts.map((f) => [f.name, f.value.revisions, f.value.appliesToUnlistedRevisions])).toEqual([
      ['errata.1', [{ code: '0x01', applies: false }], true],
      ['errata.2', [{ code: '0x01', applies: true }, { code: '0x0a', applies: true }], false]
    ])
  })

  it('without a part code the evidence is the first statement that decides, after reads and barriers', () => {
    const r = parse(header(fn(1, ['#if defined (NRF52832_XXAA)', '__DSB();', 'uint32_t var1;', 'if (*(uint32_t *)0x10000130ul == 0xFFFFFFFF) { var1 = *(uint32_t *)0xF0000FE0ul; }', 'return true; /* a comment */', '#endif', 'return false;'])))
    expect(r.result.problems).toEqual([])
    expect(r.result.facts[0]?.evidence[0]?.locator).toBe(`line ${lineOf(r.text, 'return true; /* a comment */')}: nrf52_errata_1() › return true; /* a comment */`)
  })

  it('reads var1/var2 only from the registers the header uses for them', () => {
    const odd = fn(1, ['#if defined (NRF52832_XXAA)', 'uint32_t var1 = *(uint32_t *)0x10000200ul;', 'uint32_t var2 = *(uint32_t *)0x10000134ul;', 'if (var1 == 0x06) return true;', '#endif', 'return false;'])
    const r = parse(header(odd, GOOD(2), GOOD(3)))
    expect(r.result.problems).toEqual([
      {
        file: 'mdk/nrf52_erratas.h',
        line: lineOf(r.text, '0x10000200ul'),
        reason: 'nrf52_errata_1(): cannot tell that var1 reads the part code: 0x10000200 is not a register this header reads it from elsewhere'
      }
    ])
    const none = parse(header(fn(1, ['#if defined (NRF52832_XXAA)', 'uint32_t var1 = var2;', '#endif', 'return false;']), GOOD(2), GOOD(3)))
    expect(none.result.problems.map((p) => p.reason)).toEqual(['nrf52_errata_1(): cannot tell that var1 reads the part code: no register is not a register this header reads it from elsewhere'])
  })

  it('a branch that only chooses where to read from, a bare `if (var1 == …)` statement, and a block-less switch case list', () => {
    const r = parse(
      header(
        fn(1, [
          '#if defined (NRF52832_XXAA)',
          'uint32_t var1;',
          'uint32_t var2;',
          'if (*(uint32_t *)0x10000130ul == 0xFFFFFFFF)',
          '{',
          'var1 = ((*(uint32_t *)0xF0000FE0ul) & 0x000000FFul);',
          'var2 = ((*(uint32_t *)0xF0000FE8ul) & 0x000000F0ul) >> 4;',
          '}',
          'else',
          '{',
          '__DSB();',
          'var1 = *(uint32_t *)0x10000130ul;',
          'var2 = *(uint32_t *)0x10000134ul;',
          '}',
          'if (var1 == 6) switch (var2) { case 0x02ul: case 3: return true; case 0x04ul: default: return false; }',
          '#endif',
          'return false;'
        ]),
        GOOD(2)
      )
    )
    expect(r.result.problems).toEqual([])
    const v = r.result.facts.find((f) => f.name === 'errata.1')?.value
    expect(v).toMatchObject({ partCode: '0x06', revisions: [{ code: '0x02', applies: true }, { code: '0x03', applies: true }, { code: '0x04', applies: false }], appliesToUnlistedRevisions: false })
  })

  it('TrustZone: a function whose answer depends on the secure/non-secure build is refused', () => {
    refused(['#if defined (NRF52832_XXAA) && defined (NRF_TRUSTZONE_NONSECURE)', 'return true;', '#endif', 'return false;'], 'NRF52832_XXAA: result differs between secure and non-secure builds', 'static inline bool nrf52_errata_1')
  })
})

describe('nordic errata edges: header structure', () => {
  it('a header without functions, and artifacts of another kind, are problems', () => {
    const r = parseNordicErrata([art('mdk/nrf52_erratas.h', '#include <stdbool.h>\n'), art('x.svd', '<device/>', 'cmsis-svd')])
    expect(r.result.problems).toEqual([
      { file: 'mdk/nrf52_erratas.h', reason: 'no nrfNN_errata_N() functions found' },
      { file: 'x.svd', reason: 'not a Nordic errata artifact kind: cmsis-svd' }
    ])
    expect(r.result.targets).toEqual([])
    expect(r.result.parts).toEqual([])
    expect(r.stats.modelsWithoutFacts).toEqual([])
  })

  it('the adapter’s name and kinds', () => {
    expect(nordicErrataAdapter.name).toBe('nordic-errata')
    expect(nordicErrataAdapter.kinds).toEqual([NORDIC_ERRATA_HEADER_KIND, NORDIC_ERRATA_MATRIX_KIND])
  })

  it('a body must open with { on its own line (blank lines before it allowed) and close with } in column 0', () => {
    const text = [
      '#include <stdbool.h>',
      ...READS.map((l) => `/* ${l} */`),
      'static inline bool nrf52_errata_1(void)',
      'return true; // NRF52832_XXAA',
      '}',
      'static inline bool nrf52_errata_2(void)',
      '',
      '{',
      '    #if defined (NRF52832_XXAA)',
      '        return true;',
      '    #endif',
      '    return false;',
      '} ',
      'static inline bool nrf52_errata_3(void)',
      '{',
      '    return false;'
    ].join('\n')
    const r = parse(text)
    expect(r.result.problems).toEqual([
      { file: 'mdk/nrf52_erratas.h', line: 4, reason: "nrf52_errata_1(): function body not delimited by '{' and a closing '}' in column 0" },
      { file: 'mdk/nrf52_erratas.h', line: 15, reason: "nrf52_errata_3(): function body not delimited by '{' and a closing '}' in column 0" }
    ])
    expect(r.result.facts.map((f) => f.name)).toEqual(['errata.2'])
    expect(r.stats.functions).toBe(1)
  })

  it('the preamble starts at the banner, even on the first line of the file', () => {
    const text = ['/* ========= Errata 1 ========= */', '#define NRF52_ERRATA_1_ENABLE_WORKAROUND 0', '#define NO_VALUE', ...GOOD(1).slice(1)].join('\n')
    const r = parse(text)
    expect(r.result.problems).toEqual([])
    expect(r.result.facts[0]?.value.workaroundEnabledByDefault).toBe(false)
    expect(r.stats.presentMismatches).toEqual([])
  })

  it('PRESENT macros that contradict the body: never applies, and per core', () => {
    const r = parse(header(fn(1, ['#if defined (NRF52832_XXAA)', 'return false;', '#endif', 'return false;'], ['#define NRF52_ERRATA_1_PRESENT 1'])))
    expect(r.stats.presentMismatches).toEqual(['nrf52_errata_1 NRF52832_XXAA: PRESENT=1 but the function never applies'])
    expect(r.stats.neverApplies).toBe(1)
    const text = [
      '#include <stdbool.h>',
      '#define NRF53_ERRATA_4_PRESENT 0',
      'static inline bool nrf53_errata_4(void)',
      '{',
      '    #if defined (NRF5340_XXAA) && defined (NRF_NETWORK)',
      '        return true;',
      '    #endif',
      '    return false;',
      '}'
    ].join('\n')
    // Without a banner the preamble is empty: the PRESENT define above is not this function's.
    expect(parseNordicErrata([art('mdk/nrf53_erratas.h', text)]).stats.presentMismatches).toEqual([])
    const banner = text.replace('#define NRF53', '/* ===== Errata 4 ===== */\n#define NRF53')
    expect(parseNordicErrata([art('mdk/nrf53_erratas.h', banner)]).stats.presentMismatches).toEqual(['nrf53_errata_4 NRF5340_XXAA NRF_NETWORK: PRESENT=0 but the function applies'])
  })

  it('never-applies counts a model the function names by any of its variants', () => {
    const r = parse(header(GOOD(1), fn(2, ['#if defined (NRF52832_XXAB)', 'return false;', '#endif', 'return false;'])))
    expect(r.result.facts.map((f) => f.name)).toEqual(['errata.1'])
    expect(r.stats.neverApplies).toBe(1)
    expect(r.stats.functions).toBe(2)
    expect(r.stats.functionsWithoutFacts).toEqual(['nrf52_errata_2'])
    // Only the variants some fact applies to are the target's.
    expect(r.result.targets[0]?.identity?.variants).toEqual(['NRF52832_XXAA'])
    expect(r.result.targets[0]?.description).toBe('Nordic MDK errata for NRF52832: variants NRF52832_XXAA; part code 0x06')
    // Variants in name order, whatever order the header names them in.
    const later = parse(header(fn(2, ['#if defined (NRF52832_XXAB)', 'return true;', '#endif', 'return false;']), GOOD(1)))
    expect(later.result.targets[0]?.identity?.variants).toEqual(['NRF52832_XXAA', 'NRF52832_XXAB'])
    expect(later.result.targets[0]?.description).toBe('Nordic MDK errata for NRF52832: variants NRF52832_XXAA, NRF52832_XXAB; part code 0x06')
  })

  it('two part codes for one model are both named', () => {
    const r = parse(header(GOOD(1), fn(2, ['#if defined (NRF52832_XXAA)', ...READS, 'if (var1 == 0x07) return true;', '#endif', 'return false;'])))
    expect(r.result.targets[0]?.description).toBe('Nordic MDK errata for NRF52832: variants NRF52832_XXAA; part code 0x06, 0x07')
  })

  it('two headers for one model: the second is skipped for it, with a problem', () => {
    const text = header(GOOD(1))
    const r = parseNordicErrata([art('a/nrf52_erratas.h', text), art('b/nrf52_erratas.h', text)])
    expect(r.result.problems).toEqual([{ file: 'b/nrf52_erratas.h', reason: 'NRF52832 is already described by another errata header; skipped' }])
    expect(r.result.targets.map((t) => t.sourcePath)).toEqual(['a/nrf52_erratas.h'])
  })

  it('an erratum and a configuration function with one number: the second is skipped', () => {
    const r = parse(header(GOOD(6), fn(6, ['#if defined (NRF52832_XXAA)', 'return true;', '#endif', 'return false;'], [], 'configuration')))
    const def = lineOf(r.text, 'nrf52_configuration_6(void)')
    expect(r.result.problems).toEqual([{ file: 'mdk/nrf52_erratas.h', line: def, reason: 'nrf52_configuration_6(): errata.6 already given for NRF52832 by another function; skipped' }])
    expect(r.result.facts.map((f) => f.value.function)).toEqual(['nrf52_errata_6'])
    expect(r.stats.configurationFunctions).toBe(1)
  })

  it('the target: description, identity and scope from the variants and part code the header gives', () => {
    const r = parse(
      header(
        GOOD(1),
        fn(2, ['#if defined (NRF52832_XXAB)', ...READS, 'if (var1 == 0x06) return true;', '#endif', '#if defined (NRF52840_XXAA)', 'return false;', '#endif', 'return false;'])
      )
    )
    expect(r.result.problems).toEqual([])
    expect(r.result.targets).toEqual([
      {
        key: 'nordic-errata:NRF52832',
        topics: ['errata'],
        device: 'NRF52832',
        sourceSha256: SHA,
        sourcePath: 'mdk/nrf52_erratas.h',
        description: 'Nordic MDK errata for NRF52832: variants NRF52832_XXAA, NRF52832_XXAB; part code 0x06',
        identity: { vendor: 'Nordic Semiconductor', series: 'nRF52', variants: ['NRF52832_XXAA', 'NRF52832_XXAB'] }
      }
    ])
    // NRF52840 is named, but nothing applies to it: no target, counted.
    expect(r.stats.modelsWithoutFacts).toEqual(['NRF52840'])
    const [e1, e2] = r.result.facts
    expect(e1?.scope).toEqual({ device: 'NRF52832', parts: ['NRF52832_XXAA'], siliconRevisions: [] })
    expect(e1?.value).toMatchObject({ variants: ['NRF52832_XXAA'], revisions: [{ code: '0x01', applies: false }], appliesToUnlistedRevisions: true })
    expect(e2?.scope).toEqual({ device: 'NRF52832', parts: ['NRF52832_XXAB'], siliconRevisions: [] })
    expect(e2?.evidence).toEqual([
      { sourceSha256: SHA, sourcePath: 'mdk/nrf52_erratas.h', locator: `line ${lineOf(r.text, 'if (var1 == 0x06) return true;')}: nrf52_errata_2() › if (var1 == 0x06) return true;`, excerpt: 'if (var1 == 0x06) return true;' }
    ])
  })

  it('a model without a part code says none; an nRF5340 target names its core', () => {
    const text = [
      '#include <stdbool.h>',
      'static inline bool nrf53_errata_4(void)',
      '{',
      '    #if defined (NRF5340_XXAA) && defined (NRF_NETWORK)',
      '        return true;',
      '    #endif',
      '    return false;',
      '}',
      '// NRF_APPLICATION'
    ].join('\n')
    const r = parseNordicErrata([art('mdk/nrf53_erratas.h', text)])
    expect(r.result.problems).toEqual([])
    expect(r.result.targets.map((t) => [t.key, t.description, t.identity])).toEqual([
      ['nordic-errata:NRF5340_NETWORK', 'Nordic MDK errata for NRF5340_NETWORK (network core, NRF_NETWORK): variants NRF5340_XXAA', { vendor: 'Nordic Semiconductor', series: 'nRF53', variants: ['NRF5340_XXAA'], core: 'network' }]
    ])
    expect(r.result.facts[0]?.value).toMatchObject({ series: 'nRF53', device: 'NRF5340_NETWORK', partCode: null, revisions: [], appliesToUnlistedRevisions: true })
    expect(r.result.facts[0]?.scope).toEqual({ device: 'NRF5340_NETWORK', siliconRevisions: [] })
    expect(r.stats.modelsWithoutFacts).toEqual(['NRF5340_APPLICATION'])
  })

  it('the evidence excerpt collapses runs of blanks', () => {
    const r = parse(header(fn(1, ['#if defined (NRF52832_XXAA)', ...READS, 'if (var1 == 0x06)   return  true;', '#endif', 'return false;'])))
    expect(r.result.facts[0]?.evidence[0]?.excerpt).toBe('if (var1 == 0x06) return true;')
  })

  it('the evidence excerpt leaves out brace lines and is cut at 240 characters', () => {
    const cases = Array.from({ length: 30 }, (_, i) => [`case 0x${(i + 16).toString(16)}ul:`, 'return true;']).flat()
    const r = parse(header(fn(1, ['#if defined (NRF52832_XXAA)', ...READS, 'if (var1 == 0x06)', '{', 'switch(var2)', '{', ...cases, 'default:', 'return false;', '}', '}', '#endif', 'return false;'])))
    const ex = r.result.facts[0]?.evidence[0]?.excerpt ?? ''
    expect(ex).toHaveLength(240)
    expect(ex.endsWith('…')).toBe(true)
    expect(ex.startsWith('if (var1 == 0x06) switch(var2) case 0x10ul: return true; case 0x11ul: return true;')).toBe(true)
  })

  it('the workaround default: _ENABLE defines too; a value that is neither 0, 1 nor the PRESENT macro says nothing', () => {
    const pre = (v: string) => ['#define NRF52_CONFIGURATION_1_PRESENT 1', `#define NRF52_CONFIGURATION_1_ENABLE ${v}`]
    const conf = (v: string) => parse(header(fn(1, ['#if defined (NRF52832_XXAA)', 'return true;', '#endif', 'return false;'], pre(v), 'configuration'))).result.facts[0]?.value
    expect(conf('1')).toMatchObject({ kind: 'configuration', workaroundEnabledByDefault: true })
    expect(conf('0')).toMatchObject({ workaroundEnabledByDefault: false })
    expect(conf('NRF52_CONFIGURATION_1_PRESENT')).toMatchObject({ workaroundEnabledByDefault: true })
    expect(conf('MAYBE')).not.toHaveProperty('workaroundEnabledByDefault')
    // A PRESENT macro of another erratum is not this one's.
    expect(conf('NRF52_CONFIGURATION_2_PRESENT')).not.toHaveProperty('workaroundEnabledByDefault')
  })
})

describe('nordic errata edges: the matrix', () => {
  const TABLE = ['|  Series  | Erratum | Handling | Affected Module | Affected Function(s) | Comment |', '  | :--: | :--: | :--: | :--: | :--: | :--: | ']
  const withMatrix = (rows: string[], after: string[] = []) =>
    parseNordicErrata([art('nrfx/errata.dox', ['/**', 'The | Series | column names the chip family.', ...TABLE, ...rows, ...after, '*/'].join('\n')), art('mdk/nrf52_erratas.h', header(GOOD(1), GOOD(2)))])

  it('rows of one erratum apart are named line by line; one row by its line', () => {
    const r = withMatrix(['| NRF52 | 1 | MDK / driver | | f() g() | |', '| NRF52 | 2 | **code** | | see nrfx_x.h | |', '| NRF52 | 1 | @tagRedCrossNoCenter | @ref  nrfx_x | | |'])
    expect(r.result.problems).toEqual([])
    const e1 = r.result.facts.find((f) => f.name === 'errata.1')!
    expect(e1.value.handling).toEqual([
      { handling: 'MDK / driver', module: null, functions: ['f()', 'g()'], comment: null },
      { handling: 'to be implemented', module: 'nrfx_x', functions: [], comment: null }
    ])
    expect(e1.value.workaroundInMdk).toBe(true)
    expect(e1.evidence[1]).toEqual({ sourceSha256: SHA, sourcePath: 'nrfx/errata.dox', locator: 'lines 5, 7: | NRF52 | 1 | …', excerpt: '| NRF52 | 1 | MDK / driver | | f() g() | |' })
    const e2 = r.result.facts.find((f) => f.name === 'errata.2')!
    expect(e2.value).toMatchObject({ handling: [{ handling: 'code', module: null, functions: ['see nrfx_x.h'], comment: null }], workaroundInMdk: false })
    expect(e2.evidence[1]?.locator).toBe('line 6: | NRF52 | 2 | …')
  })

  it('the table ends at the first line that is not a row; rows without series or number are problems', () => {
    const bad = ['| nrf52 | 2 | MDK | | | |', '| NRF52 | two | MDK | | | |', '| XNRF52 | 2 | MDK | | | |', '| NRF52-X | 2 | MDK | | | |', '| NRF52 | x2 | MDK | | | |', '| NRF52 | 2x | MDK | | | |']
    const r = withMatrix(['  | NRF52 | 1 | **driver**   /  **code** | | | |', ...bad], ['NRF52 | 2 | MDK | | | |', '| NRF52 | 2 | MDK | | | |'])
    expect(r.result.problems).toEqual(bad.map((row, i) => ({ file: 'nrfx/errata.dox', line: 6 + i, reason: `matrix row without a series/erratum number: ${row}` })))
    expect(r.result.facts.find((f) => f.name === 'errata.1')?.value).toMatchObject({ handling: [{ handling: 'driver / code' }], workaroundInMdk: false })
    // After a line that does not start with | nothing is read: erratum 2 has no rows (and so no claim about MDK).
    expect(r.result.facts.find((f) => f.name === 'errata.2')?.value.handling).toEqual([])
    expect(r.result.facts.find((f) => f.name === 'errata.2')?.value).not.toHaveProperty('workaroundInMdk')
    expect(r.stats.matrixRows).toBe(1)
  })

  it('a header row with the six columns under other names is refused', () => {
    const r = parseNordicErrata([art('nrfx/errata.dox', '| Series | Erratum | Handling | Module | Affected Function(s) | Comment |\n|:-:|:-:|:-:|:-:|:-:|:-:|\n'), art('mdk/nrf52_erratas.h', header(GOOD(1)))])
    expect(r.result.problems).toEqual([{ file: 'nrfx/errata.dox', line: 1, reason: 'unexpected matrix columns: series | erratum | handling | module | affected function(s) | comment' }])
  })

  it('a file without a matrix table is a problem, and facts then say nothing about handling', () => {
    const r = parseNordicErrata([art('nrfx/errata.dox', '/** no table here */'), art('mdk/nrf52_erratas.h', header(GOOD(1)))])
    expect(r.result.problems).toEqual([{ file: 'nrfx/errata.dox', reason: 'no errata matrix table (| Series | Erratum | ... |) found' }])
    expect(r.result.facts[0]?.value).not.toHaveProperty('handling')
  })
})
