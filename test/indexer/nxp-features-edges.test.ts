import { describe, expect, it } from 'vitest'
import { NXP_FEATURES_KIND, nxpFeaturesAdapter } from '../../indexer/sources/nxp-features.js'
import { appliesTo, commentText, readFeaturesHeader, type Define } from '../../indexer/sources/nxp-features/read.js'
import type { LoadedArtifact } from '../../indexer/sources/types.js'

/*
 * The NXP feature-header adapter on small inline headers: every preprocessor shape the reader
 * accepts or refuses (with line and reason), the parts of each block, erratum flags and their
 * scope, titles and evidence. Expected values are worked out by hand from the header text below
 * (`h(...)` joins one string per line, so line N is the Nth string) and the C preprocessor's
 * meaning of each directive.
 */

const SHA = 'c'.repeat(64)
const art = (file: string, text: string): LoadedArtifact => {
  const content = Buffer.from(text)
  return { path: `features/nxp/${file}`, sha256: SHA, bytes: content.length, kind: NXP_FEATURES_KIND, publisher: 'NXP', license: 'BSD-3-Clause', mediaType: 'text/x-c', content }
}
const h = (...lines: string[]) => lines.join('\n')
const parse = (file: string, ...lines: string[]) => nxpFeaturesAdapter.parse([art(file, h(...lines))])
const read = (...lines: string[]) => {
  const problems: { line?: number; reason: string }[] = []
  const header = readFeaturesHeader(h(...lines), 'X_features.h', problems as never)
  return { header, problems: problems.map((p) => [p.line, p.reason]) }
}
const NOT_PARTS = (d: string, rest: string) => `#${d} condition is not a list of defined(CPU_…) parts: ${rest}`

describe('nxp features: the reader', () => {
  it('the include guard is left out of the frames; a define right above is its comment, a blank line detaches it', () => {
    const { header, problems } = read(
      '#ifndef _X_H_', // 1
      '#define _X_H_',
      '// A line comment.',
      '#define A 1',
      '/* Two', // 5
      ' * lines. */',
      '',
      '#define B 2',
      '/* detached */',
      'int x;', // 10
      '#define C 3',
      '/* before an if */',
      '#if FOO',
      '#define D 4',
      '#endif', // 15
      '#endif'
    )
    expect(problems).toStrictEqual([[10, 'not a preprocessor line or comment: int x;']])
    expect(header.defines.map((d) => [d.name, d.value, d.line, d.endLine, d.comment, d.frames])).toStrictEqual([
      ['A', '1', 4, 4, { body: '// A line comment.', line: 3 }, []],
      ['B', '2', 8, 8, undefined, []],
      ['C', '3', 11, 11, undefined, []],
      ['D', '4', 14, 14, undefined, [{ kind: 'other', line: 13, condition: '#if FOO' }]]
    ])
    expect(header.allPartsKnown).toBe(true)
    expect([...header.parts]).toStrictEqual([])
  })

  it('an #ifndef not followed by its own #define is a condition like any other', () => {
    const { header, problems } = read('#ifndef GUARD', '#define OTHER 1', '#endif', '#ifndef G2', '#endif', '#define AFTER 1')
    expect(problems).toStrictEqual([])
    expect(header.defines.map((d) => [d.name, d.frames])).toStrictEqual([
      ['OTHER', [{ kind: 'other', line: 1, condition: '#ifndef GUARD' }]],
      ['AFTER', []]
    ])
    // Only at the top level, and only a bare name, can be a guard.
    const nested = read('#if FOO', '#ifndef G', '#define G', '#endif', '#endif')
    expect(nested.header.defines.map((d) => [d.name, d.frames.map((f) => f.line)])).toStrictEqual([['G', [1, 2]]])
    const expr = read('#ifndef G || H', '#define G', '#endif')
    expect(expr.header.defines.map((d) => [d.name, d.frames])).toStrictEqual([['G', [{ kind: 'other', line: 1, condition: '#ifndef G || H' }]]])
  })

  it('defines: parameters, continuation lines joined, comments removed, spaces collapsed; directives with spaces around #', () => {
    const { header, problems } = read(
      '#define F(x, y) ((x) + \\', // 1
      '    (y)) /* sum */',
      '  #  define   SPACED    (1U)   // trailing',
      '#define EMPTY',
      '#define NO_SPACE(a)b', // 5
      '#define (x) 1',
      '#define 1A 1'
    )
    expect(problems).toStrictEqual([
      [6, '#define without a macro name: #define (x) 1'],
      [7, '#define without a macro name: #define 1A 1']
    ])
    expect(header.defines.map((d) => [d.name, d.params, d.value, d.line, d.endLine])).toStrictEqual([
      ['F', '(x, y)', '((x) + (y))', 1, 2],
      ['SPACED', undefined, '(1U)', 3, 3],
      ['EMPTY', undefined, '', 4, 4],
      ['NO_SPACE', '(a)', 'b', 5, 5]
    ])
  })

  it('parts chains: #if, #ifdef, defined without parentheses, #elif, #else and the part lines', () => {
    const { header, problems } = read(
      '#if defined(CPU_A) || defined( CPU_AB ) || \\', // 1
      '    defined CPU_B',
      '#define IN_A 1',
      '#elif defined(CPU_C)',
      '#define IN_C 1', // 5
      '#else',
      '#define IN_ELSE 1',
      '#endif',
      '#ifdef CPU_D',
      '#if defined(CPU_A)', // 10
      '#define NESTED 1',
      '#endif',
      '#endif'
    )
    expect(problems).toStrictEqual([])
    // CPU_AB on line 1 does not count as CPU_A's; B is on the continuation line.
    expect([...header.parts]).toStrictEqual([
      ['A', 1],
      ['AB', 1],
      ['B', 2],
      ['C', 4],
      ['D', 9]
    ])
    expect(header.defines.map((d) => [d.name, d.frames])).toStrictEqual([
      ['IN_A', [{ kind: 'parts', line: 1, parts: ['A', 'AB', 'B'] }]],
      ['IN_C', [{ kind: 'parts', line: 4, parts: ['C'] }]],
      ['IN_ELSE', [{ kind: 'else', line: 6, excluded: ['A', 'AB', 'B', 'C'] }]],
      [
        'NESTED',
        [
          { kind: 'parts', line: 9, parts: ['D'] },
          { kind: 'parts', line: 10, parts: ['A'] }
        ]
      ]
    ])
    expect(header.allPartsKnown).toBe(true)
    // The part written first on a line that names it only as a longer name's prefix.
    const later = read('#if defined(CPU_XY) || \\', '    defined(CPU_X)', '#endif')
    expect([...later.header.parts]).toStrictEqual([
      ['XY', 1],
      ['X', 2]
    ])
  })

  it('conditions that are not lists of parts: refused when they name CPU_ or are empty, else plain conditions', () => {
    const { header, problems } = read(
      '#if defined(CPU_A) && defined(FOO)', // 1
      '#endif',
      '#if',
      '#endif',
      '#ifdef __ZEPHYR__', // 5
      '#define Z 1',
      '#endif',
      '#if X',
      '#ifndef CPU_B',
      '#endif', // 10
      '#endif'
    )
    expect(problems).toStrictEqual([
      [1, NOT_PARTS('if', 'defined(CPU_A) && defined(FOO)')],
      [3, NOT_PARTS('if', '')],
      [9, NOT_PARTS('ifndef', 'CPU_B')]
    ])
    expect(header.allPartsKnown).toBe(false)
    expect(header.defines[0]!.frames).toStrictEqual([{ kind: 'other', line: 5, condition: '#ifdef __ZEPHYR__' }])
    // A CPU_ name inside a longer word is not a part condition; an #ifdef of a non-part is not refused.
    expect(read('#if MY_CPU_A', '#endif', '#ifdef X', '#endif').problems).toStrictEqual([])
    expect(read('#if MY_CPU_A', '#endif').header.allPartsKnown).toBe(true)
    // The reason quotes the first 120 characters of the condition.
    const long = 'defined(CPU_A) && ' + 'x'.repeat(200)
    expect(read(`#if ${long}`, '#endif').problems).toStrictEqual([[1, NOT_PARTS('if', long.slice(0, 120))]])
  })

  it('#elif: refused when not about parts in a parts chain, or about parts after another condition', () => {
    const { header, problems } = read(
      '#if defined(CPU_A)', // 1
      '#elif FOO',
      '#define AFTER_FOO 1',
      '#elif defined(CPU_B)',
      '#define AFTER_B 1', // 5
      '#else',
      '#define ELSE 1',
      '#endif',
      '#if BAR',
      '#elif BAZ', // 10
      '#elif defined(CPU_C)',
      '#elif',
      '#elif QUX && CPU_D',
      '#endif'
    )
    expect(problems).toStrictEqual([
      [2, NOT_PARTS('elif', 'FOO')],
      [4, '#elif of parts after a condition that is not about parts (line 2)'],
      [11, '#elif of parts after a condition that is not about parts (line 10)'],
      [12, NOT_PARTS('elif', '')],
      [13, NOT_PARTS('elif', 'QUX && CPU_D')]
    ])
    expect(header.allPartsKnown).toBe(false)
    // Parts an #elif names are parts of the file even when its branch cannot be placed.
    expect([...header.parts]).toStrictEqual([
      ['A', 1],
      ['B', 4],
      ['C', 11]
    ])
    expect(header.defines.map((d) => [d.name, d.frames])).toStrictEqual([
      ['AFTER_FOO', [{ kind: 'other', line: 2, condition: '#elif FOO' }]],
      ['AFTER_B', [{ kind: 'other', line: 4, condition: '#elif defined(CPU_B)' }]],
      ['ELSE', [{ kind: 'other', line: 6, condition: '#else' }]]
    ])
    // A plain condition chain: no problem.
    expect(read('#if BAR', '#elif BAZ', '#endif').problems).toStrictEqual([])
    expect(read('#if BAR', '#elif BAZ', '#endif').header.allPartsKnown).toBe(true)
  })

  it('misplaced #elif, #else, #endif; an unsupported directive; what is left open at the end', () => {
    const { problems } = read(
      '#elif defined(CPU_A)', // 1
      '#else',
      '#endif',
      '#ifndef G',
      '#define G', // 5
      '#elif X',
      '#else',
      '#include "x.h"',
      '#endif',
      '#if defined(CPU_A)', // 10
      '#else',
      '#elif defined(CPU_B)',
      '#else',
      '#endif',
      '#if X', // 15
      '#if Y',
      '/* not closed',
      '#endif'
    )
    expect(problems).toStrictEqual([
      [1, '#elif without an open #if'],
      [2, '#else without an open #if'],
      [3, '#endif without an open #if'],
      [6, '#elif without an open #if'],
      [7, '#else without an open #if'],
      [8, 'unsupported directive #include'],
      [12, '#elif after #else (of the #if at line 10)'],
      [13, 'second #else (of the #if at line 10)'],
      [17, 'comment not closed before the end of the file'],
      [15, 'conditional not closed by #endif before the end of the file'],
      [16, 'conditional not closed by #endif before the end of the file']
    ])
  })

  it('a continuation on the last line keeps its backslash; block comments are removed one by one', () => {
    const { header, problems } = read('#define V 1 /* a */ + /* b */ 2', '#define W 1 \\')
    expect(problems).toStrictEqual([])
    expect(header.defines.map((d) => [d.name, d.value, d.line, d.endLine])).toStrictEqual([
      ['V', '1 + 2', 1, 1],
      ['W', '1 \\', 2, 2]
    ])
  })

  it('a comment between two tokens is a space; text before the # is no directive; a condition right after its name', () => {
    const { header, problems } = read('#define V 1/* a */2', 'int y; #define A 1', '#if(FOO)', '#define B 1', '#endif')
    expect(problems).toStrictEqual([[2, 'not a preprocessor line or comment: int y; #define A 1']])
    expect(header.defines.map((d) => [d.name, d.value, d.frames])).toStrictEqual([
      ['V', '1 2', []],
      ['B', '1', [{ kind: 'other', line: 3, condition: '#if (FOO)' }]]
    ])
  })

  // `defined\` + `CPU_DD`: the reader joins continuation lines with a space (C would splice them into `definedCPU_DD`).
  it('defined with spaces before the name or its parenthesis, a name continued on the next line, a word ending in defined', () => {
    const { header, problems } = read('#if defined  CPU_BB || defined (CPU_CC) || defined\\', 'CPU_DD', '#endif', '#if notdefined(CPU_EE)', '#endif')
    expect([...header.parts]).toStrictEqual([
      ['BB', 1],
      ['CC', 1],
      ['DD', 2]
    ])
    expect(problems).toStrictEqual([[4, NOT_PARTS('if', 'notdefined(CPU_EE)')]])
  })

  it('long conditions and defines are quoted to 120 and 80 characters', () => {
    const cond = 'defined(CPU_A) && ' + 'y'.repeat(200)
    const def = '#define (' + 'x'.repeat(100) + ') 1'
    expect(read('#if defined(CPU_A)', `#elif ${cond}`, '#endif', def).problems).toStrictEqual([
      [2, NOT_PARTS('elif', cond.slice(0, 120))],
      [4, `#define without a macro name: ${def.slice(0, 80)}`]
    ])
  })

  it('a comment that opens with /*/ is not closed by it; CRLF line ends', () => {
    const { header, problems } = read('/*/ still open', 'closed here */', '#define A 1')
    expect(problems).toStrictEqual([])
    expect(header.defines[0]!.comment).toStrictEqual({ body: '/*/ still open\nclosed here */', line: 1 })
    const crlf = readFeaturesHeader('#if defined(CPU_A)\r\n#define A 1\r\n#endif\r\n', 'X_features.h', [])
    expect(crlf.defines.map((d) => [d.name, d.value, d.line])).toStrictEqual([['A', '1', 2]])
    expect([...crlf.parts]).toStrictEqual([['A', 1]])
  })

  it('a directive line of 80+ characters that is not one is quoted to 80', () => {
    const t = 'x'.repeat(100)
    expect(read(`  ${t}  `).problems).toStrictEqual([[1, `not a preprocessor line or comment: ${t.slice(0, 80)}`]])
  })
})

describe('nxp features: comment text and the parts a define applies to', () => {
  it('commentText strips delimiters, leading stars and @brief, and joins lines', () => {
    const c = (body: string) => commentText({ body, line: 1 })
    expect(c('/* @brief Has errata 6070. */')).toBe('Has errata 6070.')
    expect(c('/** @brief Two\n *  lines */')).toBe('Two lines')
    expect(c('// @brief Line comment')).toBe('Line comment')
    expect(c('/*\n * @brief Starts late.\n */')).toBe('Starts late.')
    expect(c('/* @briefing stays */')).toBe('@briefing stays')
    expect(c('/* a */ */')).toBe('a */')
    expect(c('/* 2 ** 3 */')).toBe('2 ** 3')
    expect(c('/* a\n */ b */')).toBe('a */ b')
    expect(c('//x//y z')).toBe('x//y z')
    expect(c('/*x/*y */')).toBe('x/*y')
    expect(c('/* a **/')).toBe('a')
    expect(c('/* a */  ')).toBe('a')
    expect(c('/* a\n ** b */')).toBe('a b')
    expect(c('/* a\nb */')).toBe('a b')
    expect(c('/* see @brief x */')).toBe('see @brief x')
  })

  it('appliesTo: all without part blocks, the intersection of nested ones, #else the parts not named, other conditions refused', () => {
    const d = (frames: Define['frames']): Define => ({ name: 'M', value: '1', line: 9, endLine: 9, frames })
    const file = ['A', 'B', 'C', 'D']
    expect(appliesTo(d([]), file)).toStrictEqual({ parts: 'all' })
    expect(
      appliesTo(
        d([
          { kind: 'parts', line: 1, parts: ['A', 'B', 'C'] },
          { kind: 'else', line: 2, excluded: ['A'] }
        ]),
        file
      )
    ).toStrictEqual({ parts: ['B', 'C'] })
    expect(appliesTo(d([{ kind: 'else', line: 2, excluded: ['A', 'C'] }]), file)).toStrictEqual({ parts: ['B', 'D'] })
    const other = { kind: 'other', line: 3, condition: '#if X' } as const
    expect(appliesTo(d([{ kind: 'parts', line: 1, parts: ['A'] }, other, { kind: 'parts', line: 4, parts: ['A'] }]), file)).toStrictEqual({ other })
  })
})

describe('nxp features: the adapter', () => {
  it('device and core from the file name; every part with the core; an empty header still a target', () => {
    const r = parse('LPC55S66_cm33_core0_features.h', '#if defined(CPU_LPC55S66JBD100)', '#endif')
    expect(r.problems).toStrictEqual([])
    expect(r.targets).toStrictEqual([
      {
        key: 'nxp-features:LPC55S66_cm33_core0',
        topics: ['errata'],
        device: 'LPC55S66_cm33_core0',
        sourceSha256: SHA,
        sourcePath: 'features/nxp/LPC55S66_cm33_core0_features.h',
        description: 'NXP MCUXpresso SDK feature header of LPC55S66_cm33_core0 (cm33_core0 core)',
        identity: { vendor: 'NXP Semiconductors', core: 'cm33_core0' }
      }
    ])
    expect(r.partNumbers).toStrictEqual([
      { name: 'LPC55S66JBD100', vendor: 'NXP Semiconductors', device: 'LPC55S66_cm33_core0', core: 'cm33_core0', targets: ['nxp-features:LPC55S66_cm33_core0'], sourceSha256: SHA, sourcePath: 'features/nxp/LPC55S66_cm33_core0_features.h', line: 1 }
    ])
    const empty = parse('MKE02Z4_features.h', '')
    expect(empty.targets.map((t) => [t.description, t.identity])).toStrictEqual([['NXP MCUXpresso SDK feature header of MKE02Z4', { vendor: 'NXP Semiconductors' }]])
    expect(empty.partNumbers).toStrictEqual([])
    expect(empty.facts).toStrictEqual([])
  })

  it('erratum macros: both spellings, module names with underscores, flag spellings; other macros and values', () => {
    const r = parse(
      'E_features.h',
      '#define FSL_FEATURE_LP_I2C_HAS_ERRATA_6070 (1)', // 1
      '#define FSL_FEATURE_SEMC_ERRATA_050577 1u',
      '#define FSL_FEATURE_X_HAS_ERRATA_e1a ( 1U )',
      '#define FSL_FEATURE_Y_HAS_ERRATA_7 0',
      '#define FSL_FEATURE_Y_HAS_ERRATA_8 (2)', // 5
      '#define FSL_FEATURE_Y_HAS_ERRATA_9 1UL',
      '#define FSL_FEATURE_Y_HAS_ERRATA_ (1)',
      '#define FSL_FEATURE_Y_HAS_ERRATA_10n(x) (1)',
      '#define MY_FSL_FEATURE_Y_HAS_ERRATA_11 (1)',
      '#define FSL_FEATURE_Y_HAS_ERRATA_12_B (1)', // 10
      '#define FSL_FEATURE_Y_HAS_ERRATA_13 (1) + 1',
      '#define FSL_FEATURE_Y_HAS_ERRATA_14 x(1)'
    )
    expect(r.facts.map((f) => [f.name, f.value])).toStrictEqual([
      ['errata.6070', { id: '6070', module: 'LP_I2C' }],
      ['errata.050577', { id: '050577', module: 'SEMC' }],
      ['errata.e1a', { id: 'e1a', module: 'X' }]
    ])
    expect(r.problems.map((p) => [p.line, p.reason])).toStrictEqual([
      [5, "FSL_FEATURE_Y_HAS_ERRATA_8 is '(2)', not 0 or 1; not read"],
      [6, "FSL_FEATURE_Y_HAS_ERRATA_9 is '1UL', not 0 or 1; not read"],
      [11, "FSL_FEATURE_Y_HAS_ERRATA_13 is '(1) + 1', not 0 or 1; not read"],
      [12, "FSL_FEATURE_Y_HAS_ERRATA_14 is 'x(1)', not 0 or 1; not read"]
    ])
  })

  it('scope: the parts of the blocks where the flag is 1, in the order of the file; all parts: none listed', () => {
    const r = parse(
      'S_features.h',
      '#define FSL_FEATURE_A_HAS_ERRATA_1 (0)', // 1
      '#if defined(CPU_P1) || defined(CPU_P2)',
      '#define FSL_FEATURE_B_HAS_ERRATA_2 (1)',
      '#elif defined(CPU_P3)',
      '#define FSL_FEATURE_A_HAS_ERRATA_1 (1)', // 5
      '#define FSL_FEATURE_B_HAS_ERRATA_2 (1)',
      '#else',
      '#define FSL_FEATURE_C_HAS_ERRATA_3 (1)',
      '#endif',
      '#if defined(CPU_P4)', // 10
      '#define FSL_FEATURE_C_HAS_ERRATA_3 (1)',
      '#define FSL_FEATURE_A_HAS_ERRATA_1 (1)',
      '#endif',
      '#define FSL_FEATURE_D_HAS_ERRATA_4 (1)',
      '#if defined(CPU_P2)', // 15
      '#define FSL_FEATURE_D_HAS_ERRATA_4 (1)',
      '#endif'
    )
    expect(r.problems).toStrictEqual([])
    // File parts: P1, P2, P3, P4. The #else (line 7) reaches P4 only.
    expect(r.facts.map((f) => [f.name, f.scope])).toStrictEqual([
      ['errata.1', { device: 'S', parts: ['P3', 'P4'] }],
      ['errata.2', { device: 'S', parts: ['P1', 'P2', 'P3'] }],
      ['errata.3', { device: 'S', parts: ['P4'] }],
      ['errata.4', { device: 'S' }]
    ])
    expect(r.facts.map((f) => f.evidence.map((e) => e.locator))).toStrictEqual([
      ['line 5: #define FSL_FEATURE_A_HAS_ERRATA_1 (in the block at line 4)', 'line 12: #define FSL_FEATURE_A_HAS_ERRATA_1 (in the block at line 10)'],
      ['line 3: #define FSL_FEATURE_B_HAS_ERRATA_2 (in the block at line 2)', 'line 6: #define FSL_FEATURE_B_HAS_ERRATA_2 (in the block at line 4)'],
      ['line 8: #define FSL_FEATURE_C_HAS_ERRATA_3 (in the block at line 7)', 'line 11: #define FSL_FEATURE_C_HAS_ERRATA_3 (in the block at line 10)'],
      ['line 14: #define FSL_FEATURE_D_HAS_ERRATA_4', 'line 16: #define FSL_FEATURE_D_HAS_ERRATA_4 (in the block at line 15)']
    ])
    // Blocks that together reach every part: no parts listed.
    const every = parse('T_features.h', '#if defined(CPU_P1)', '#define FSL_FEATURE_A_HAS_ERRATA_1 (1)', '#else', '#define FSL_FEATURE_A_HAS_ERRATA_1 (1)', '#endif', '#if defined(CPU_P2)', '#endif')
    expect(every.facts.map((f) => f.scope)).toStrictEqual([{ device: 'T' }])
    // Nested blocks: the parts both allow.
    const nested = parse('N_features.h', '#if defined(CPU_P1) || defined(CPU_P2)', '#if defined(CPU_P2) || defined(CPU_P3)', '#define FSL_FEATURE_A_HAS_ERRATA_1 (1)', '#endif', '#endif')
    expect(nested.facts.map((f) => f.scope)).toStrictEqual([{ device: 'N', parts: ['P2'] }])
  })

  it('title from the comment above the first define that sets it; evidence from the comment to the last line', () => {
    const r = parse(
      'V_features.h',
      '#if defined(CPU_P1)', // 1
      '#define FSL_FEATURE_A_HAS_ERRATA_1 \\',
      '    (1)',
      '#else',
      '/* @brief Second. */', // 5
      '#define FSL_FEATURE_A_HAS_ERRATA_1 (1)',
      '#endif',
      '/* @brief Has errata 2,',
      ' * really. */',
      '#define FSL_FEATURE_B_HAS_ERRATA_2 (1)' // 10
    )
    expect(r.problems).toStrictEqual([])
    expect(r.facts.map((f) => [f.name, f.value, f.scope])).toStrictEqual([
      ['errata.1', { id: '1', module: 'A' }, { device: 'V' }],
      ['errata.2', { id: '2', module: 'B', title: 'Has errata 2, really.' }, { device: 'V' }]
    ])
    expect(r.facts.map((f) => f.evidence)).toStrictEqual([
      [
        { sourceSha256: SHA, sourcePath: 'features/nxp/V_features.h', locator: 'line 2: #define FSL_FEATURE_A_HAS_ERRATA_1 (in the block at line 1)', excerpt: '#define FSL_FEATURE_A_HAS_ERRATA_1 \\ (1)' },
        { sourceSha256: SHA, sourcePath: 'features/nxp/V_features.h', locator: 'line 6: #define FSL_FEATURE_A_HAS_ERRATA_1 (in the block at line 4)', excerpt: '/* @brief Second. */ #define FSL_FEATURE_A_HAS_ERRATA_1 (1)' }
      ],
      [{ sourceSha256: SHA, sourcePath: 'features/nxp/V_features.h', locator: 'line 10: #define FSL_FEATURE_B_HAS_ERRATA_2', excerpt: '/* @brief Has errata 2, * really. */ #define FSL_FEATURE_B_HAS_ERRATA_2 (1)' }]
    ])
    for (const f of r.facts) expect([f.target, f.topic]).toStrictEqual(['nxp-features:V', 'errata'])
  })

  it('a flag 1 under a condition not about parts is refused, and does not make the flag a fact elsewhere', () => {
    const r = parse('W_features.h', '#define FSL_FEATURE_A_HAS_ERRATA_1 (0)', '#ifdef __ZEPHYR__', '#define FSL_FEATURE_A_HAS_ERRATA_1 (1)', '#endif')
    expect(r.facts).toStrictEqual([])
    expect(r.problems.map((p) => [p.line, p.reason])).toStrictEqual([[3, 'FSL_FEATURE_A_HAS_ERRATA_1 is 1 under a condition that is not about parts (line 2); which parts it applies to is not known, not read']])
  })

  it('a file not named <device>_features.h is refused without a target; several files in order, one unit each', () => {
    const a = art('MKL25Z4_features.h', '#if defined(CPU_MKL25Z128VLK4)\n#endif\n')
    const b = art('features.h', '')
    const c = art('MK64F12_features.h', '#if defined(CPU_MK64FN1M0VLL12)\n#endif\n')
    const r = nxpFeaturesAdapter.parse([a, b, c])
    expect(r.targets.map((t) => t.key)).toStrictEqual(['nxp-features:MKL25Z4', 'nxp-features:MK64F12'])
    expect(r.problems).toStrictEqual([{ file: b.path, reason: 'not named <device>_features.h: features.h' }])
    expect(r.partNumbers!.map((p) => p.name)).toStrictEqual(['MKL25Z128VLK4', 'MK64FN1M0VLL12'])
    // No core in the file name: none on the part.
    expect(r.partNumbers![0]).toStrictEqual({ name: 'MKL25Z128VLK4', vendor: 'NXP Semiconductors', device: 'MKL25Z4', targets: ['nxp-features:MKL25Z4'], sourceSha256: SHA, sourcePath: a.path, line: 1 })
    expect(nxpFeaturesAdapter.units!([a, b, c])).toStrictEqual([[a], [b], [c]])
    expect(nxpFeaturesAdapter.name).toBe('nxp-features')
    expect(nxpFeaturesAdapter.kinds).toStrictEqual(['nxp-mcux-features-header'])
  })
})
