import { describe, expect, it } from 'vitest'
import { jep106Name, parseProbeRs, PROBE_RS_KIND, probeRsAdapter } from '../../indexer/sources/probe-rs.js'
import type { LoadedArtifact } from '../../indexer/sources/types.js'

/*
 * The probe-rs target adapter on small inline YAML files: memory facts (kind, address, size,
 * access, cores, alias, names, evidence line and excerpt), the flash and RAM sizes of part
 * numbers, and every problem with its line. Expected values are worked out by hand from the YAML
 * below (lines counted from 1, `yaml(...)` joins one string per line) and probe-rs's format:
 * `range` is [start, end), `access.boot` marks the boot region, `is_alias` a second address.
 */

const PATH = 'targets/probe-rs/Q.yaml'
const SHA = 'e'.repeat(64)

const yaml = (...lines: string[]) => lines.join('\n') + '\n'
const art = (text: string): LoadedArtifact => {
  const content = Buffer.from(text)
  return { path: PATH, sha256: SHA, bytes: content.length, kind: PROBE_RS_KIND, publisher: 'test', license: 'MIT', mediaType: 'application/yaml', content }
}
const parse = (...lines: string[]) => parseProbeRs(art(yaml(...lines)))
const problems = (...lines: string[]) => parse(...lines).problems.map((p) => [p.line, p.reason])

/** Lines 1–5: a family of STMicroelectronics (JEP106 bank 1, id 0x20); variants from line 6. */
const HEAD = ['name: Q Series', 'manufacturer:', '  id: 0x20', '  cc: 0x0', 'variants:']
const ev = (line: number, j: number, variant: string, excerpt: string) => [{ sourceSha256: SHA, sourcePath: PATH, locator: `line ${line}: /variants[name=${variant}]/memory_map/${j}`, excerpt }]

describe('probe-rs: memory facts', () => {
  // Built in each test: a mutant that throws while building must fail tests, not their collection.
  const parsed = () => parse(
    ...HEAD,
    '- name: Q1', // 6
    '  cores:',
    '  - name: main',
    '    type: armv7em',
    '  memory_map:', // 10
    '  - !Nvm',
    '    name: FLASH',
    '    range:',
    '      start: 0x8000000',
    '      end: 0x8010000', // 15
    '    access:',
    '      read: true',
    '      boot: true',
    '    cores:',
    '    - main', // 20
    '    - 7',
    '  - !Ram   ',
    '    range:',
    '      start: 0x20000000',
    '      end: 0x20004000', // 25
    '    access: {}',
    '    cores: main',
    '  - !Ram {range: {start: 0x10000000, end: 0x10000400}, is_alias: true}',
    '  - !Generic',
    '    name: ""', // 30
    '    range:',
    '      start: 0x0',
    '      end: 0x10',
    '    access:',
    '      write: false', // 35
    '      execute: maybe',
    '      read: 1',
    '      boot: "true"',
    '    is_alias: "true"',
    '  - !Ram', // 40
    '    range: {start: 0x20004000, end: 0x20004000}',
    '    is_alias: false'
  )

  it('one fact a region: kind from the tag, address, size, access as written, cores, alias', () => {
    const r = parsed()
    expect(r.problems).toStrictEqual([])
    expect(r.facts.map((f) => [f.name, f.value])).toStrictEqual([
      ['FLASH', { kind: 'flash', start: '0x08000000', size: 0x10000, access: { read: true, boot: true }, cores: ['main'] }],
      // `access: {}` sets nothing; `cores: main` is not a list.
      ['RAM', { kind: 'ram', start: '0x20000000', size: 0x4000 }],
      ['RAM_2', { kind: 'ram', start: '0x10000000', size: 0x400, alias: true }],
      // An empty name is no name; only YAML booleans are access flags or an alias.
      ['GENERIC', { kind: 'other', start: '0x00000000', size: 16, access: { write: false } }],
      ['RAM_3', { kind: 'ram', start: '0x20004000', size: 0 }]
    ])
    for (const f of r.facts) {
      expect(f.target).toBe('probe-rs:Q1')
      expect(f.topic).toBe('memory')
      expect(f.scope).toStrictEqual({ device: 'Q1' })
    }
  })

  it('evidence: from the tag line (the line before the first member) to the last member', () => {
    const r = parsed()
    expect(r.facts.map((f) => f.evidence)).toStrictEqual([
      ev(11, 0, 'Q1', '- !Nvm name: FLASH range: start: 0x8000000 end: 0x8010000 access: read: true boot: true cores: - main - 7'),
      ev(22, 1, 'Q1', '- !Ram range: start: 0x20000000 end: 0x20004000 access: {} cores: main'),
      // A flow map starts on its tag's own line.
      ev(28, 2, 'Q1', '- !Ram {range: {start: 0x10000000, end: 0x10000400}, is_alias: true}'),
      ev(29, 3, 'Q1', '- !Generic name: "" range: start: 0x0 end: 0x10 access: write: false execute: maybe read: 1 boot: "true" is_alias: "true"'),
      ev(40, 4, 'Q1', '- !Ram range: {start: 0x20004000, end: 0x20004000} is_alias: false')
    ])
  })

  it('the variant is a target of its own; the part number has its sizes (boot flash; RAM but aliases, empty RAM counted)', () => {
    const r = parsed()
    expect(r.targets).toStrictEqual([
      { key: 'probe-rs:Q1', topics: ['memory'], device: 'Q1', sourceSha256: SHA, sourcePath: PATH, identity: { vendor: 'STMicroelectronics', series: 'Q Series', cpu: 'armv7em' } }
    ])
    expect(r.partNumbers).toStrictEqual([
      { name: 'Q1', vendor: 'STMicroelectronics', family: 'Q Series', core: 'armv7em', flashKb: 64, ramKb: 16, targets: ['probe-rs:Q1'], sourceSha256: SHA, sourcePath: PATH, line: 6 }
    ])
  })
})

describe('probe-rs: flash and RAM sizes', () => {
  const sizes = (...variant: string[]) => {
    const p = parse(...HEAD, ...variant).partNumbers![0]!
    return { flashKb: p.flashKb, ramKb: p.ramKb, targets: p.targets }
  }

  it('the flash is the one boot Nvm that is not an alias; booting RAM or non-booting Nvm is not flash', () => {
    expect(
      sizes(
        '- name: Q2',
        '  memory_map:',
        '  - !Nvm {range: {start: 0x0, end: 0x800}, access: {boot: true}, is_alias: true}',
        '  - !Ram {range: {start: 0x1000, end: 0x1800}, access: {boot: true}}',
        '  - !Nvm {range: {start: 0x8000, end: 0x9000}, access: {boot: false}}',
        '  - !Nvm {range: {start: 0x10000, end: 0x12000}, access: {boot: true}}',
        '  - !Ram {range: {start: 0x2000, end: 0x2400}, is_alias: true}'
      )
    ).toStrictEqual({ flashKb: 8, ramKb: 2, targets: ['probe-rs:Q2'] })
  })

  it('no boot Nvm: no flash size; no RAM region: no RAM size', () => {
    expect(sizes('- name: Q3', '  memory_map:', '  - !Nvm {range: {start: 0x0, end: 0x800}}', '  - !Generic {range: {start: 0x1000, end: 0x1800}}')).toStrictEqual({ flashKb: undefined, ramKb: undefined, targets: ['probe-rs:Q3'] })
  })

  it('an empty or missing memory map: no sizes and no memory target', () => {
    for (const map of [['  memory_map: []'], ['  memory_map: none'], []]) {
      const out = parse(...HEAD, '- name: Q4', '  cores: [{name: a, type: armv6m}]', ...map)
      expect(out.problems).toStrictEqual([])
      expect(out.targets).toStrictEqual([])
      expect(out.facts).toStrictEqual([])
      expect(out.partNumbers).toStrictEqual([{ name: 'Q4', vendor: 'STMicroelectronics', family: 'Q Series', core: 'armv6m', sourceSha256: SHA, sourcePath: PATH, line: 6 }])
    }
  })

  it('one unreadable region drops the whole map, even after a good one, and is reported at its line', () => {
    const bad = [
      ['  - 0x1000', 9],
      ['  - {range: {start: 0x0, end: 0x10}}', 9],
      ['  - !Ram {range: {end: 0x10}}', 9],
      ['  - !Ram {range: {start: 0x0}}', 9],
      ['  - !Ram {range: {start: 0x20, end: 0x10}}', 9],
      ['  - !Ram {range: {start: 0x20000000000000, end: 0x20000000000010}}', 9],
      ['  - !Ram {range: {start: 1.5, end: 16}}', 9],
      ['  - !Ram {range: [0, 16]}', 9],
      ['  - !Ram\n    name: X', 10]
    ] as const
    for (const [region, line] of bad) {
      const out = parse(...HEAD, '- name: Q5', '  memory_map:', '  - !Nvm {range: {start: 0x0, end: 0x800}, access: {boot: true}}', region, '  - !Ram {range: {start: 0x0, end: 0x400}}')
      expect(out.problems, region).toStrictEqual([{ file: PATH, line, reason: 'Q5: memory region without a tag and a numeric range (start <= end); no memory sizes for this variant' }])
      expect(out.facts, region).toStrictEqual([])
      expect(out.targets, region).toStrictEqual([])
      expect(out.partNumbers, region).toStrictEqual([{ name: 'Q5', vendor: 'STMicroelectronics', family: 'Q Series', sourceSha256: SHA, sourcePath: PATH, line: 6 }])
    }
  })
})

describe('probe-rs: family, variants and cores', () => {
  it('the core is the first core with a name and a type; without a manufacturer or core the identity leaves them out', () => {
    const out = parse(
      'name: Anon', // 1
      'manufacturer: 0x20',
      'variants:',
      '- name: A1',
      '  cores:', // 5
      '  - just-a-core',
      '  - name: a',
      '  - type: armv6m',
      '  - name: b',
      '    type: riscv', // 10
      '  - name: c',
      '    type: armv7m',
      '- name: A2',
      '  cores: main',
      '  memory_map:', // 15
      '  - !Ram {range: {start: 0x0, end: 0x400}}'
    )
    expect(out.problems).toStrictEqual([])
    expect(out.partNumbers).toStrictEqual([
      { name: 'A1', family: 'Anon', core: 'riscv', sourceSha256: SHA, sourcePath: PATH, line: 4 },
      { name: 'A2', family: 'Anon', ramKb: 1, targets: ['probe-rs:A2'], sourceSha256: SHA, sourcePath: PATH, line: 13 }
    ])
    expect(out.targets.map((t) => t.identity)).toStrictEqual([{ series: 'Anon' }])
  })

  it('variants without a name are reported and skipped; a name listed twice keeps the first', () => {
    const out = parse(
      ...HEAD,
      '- Q6', // 6
      '- name: ""',
      '- name: 12',
      '- name: Q7',
      '  memory_map: [!Ram {range: {start: 0x0, end: 0x800}}]', // 10
      '- name: Q7',
      '  memory_map: [!Ram {range: {start: 0x0, end: 0x400}}]'
    )
    expect(out.problems.map((p) => [p.line, p.reason])).toStrictEqual([
      [6, 'variant without a name'],
      [7, 'variant without a name'],
      [8, 'variant without a name'],
      [11, 'variant Q7 is listed twice; the first is kept']
    ])
    expect(out.partNumbers!.map((p) => [p.name, p.ramKb, p.line])).toStrictEqual([['Q7', 2, 9]])
    expect(out.targets.map((t) => t.key)).toStrictEqual(['probe-rs:Q7'])
    expect(out.facts.map((f) => f.value.size)).toStrictEqual([0x800])
  })

  it('a manufacturer without a numeric cc and id is reported; the parts come without a vendor', () => {
    for (const [cc, id] of [['x', '0x20'], ['0', '1.5'], ['0', '"0x20"']]) {
      const out = parse('name: Q', 'manufacturer:', `  cc: ${cc}`, `  id: ${id}`, 'variants:', '- name: Q8')
      expect(out.problems.map((p) => [p.line, p.reason])).toStrictEqual([[3, 'manufacturer without a numeric cc and id']])
      expect(out.partNumbers).toStrictEqual([{ name: 'Q8', family: 'Q', sourceSha256: SHA, sourcePath: PATH, line: 6 }])
    }
  })
})

describe('probe-rs: files refused whole', () => {
  it('malformed YAML: the first line of the message, without its position, at the line of the error', () => {
    expect(problems('name: Q', 'name: R')).toStrictEqual([[2, 'malformed YAML: Map keys must be unique']])
    expect(problems('name: Q', '\tvariants: x')).toStrictEqual([[2, 'malformed YAML: Tabs are not allowed as indentation']])
    // Past line 9 and column 9: the position the message ends with is cut whatever its digits.
    expect(problems('name: Q', ...Array(8).fill('#'), 'variants:', '- {name: A, cores: [], name: B}')).toStrictEqual([[11, 'malformed YAML: Map keys must be unique']])
  })

  it('a document that is not a mapping, at its line (1 when empty)', () => {
    const reason = 'not a probe-rs target file: the document is not a mapping'
    expect(problems('# only a comment', '', '- name: Q')).toStrictEqual([[3, reason]])
    expect(problems('# only a comment')).toStrictEqual([[1, reason]])
    expect(problems('', 'plain words')).toStrictEqual([[2, reason]])
  })

  it('no name, at the mapping line', () => {
    for (const name of ['name: ""', 'name: 7', 'title: Q']) expect(problems('# x', name, 'variants:', '- name: Q')).toStrictEqual([[2, 'target file has no name']])
  })

  it('no variants: at the variants value, or at the mapping without one', () => {
    const reason = 'target file has no variants'
    expect(problems('name: Q', 'variants: []')).toStrictEqual([[2, reason]])
    expect(problems('name: Q', 'variants: none')).toStrictEqual([[2, reason]])
    expect(problems('name: Q', 'variants:', '  name: Q1')).toStrictEqual([[3, reason]])
    expect(problems('# x', 'name: Q')).toStrictEqual([[2, reason]])
    for (const r of [parse('name: Q', 'variants: []'), parse('name: Q')]) {
      expect(r.partNumbers).toBeUndefined()
      expect(r.targets).toStrictEqual([])
    }
  })
})

describe('probe-rs: adapter', () => {
  it('JEP106 names: an unknown code spells its bank from 1 and its id in two hex digits', () => {
    expect(jep106Name(5, 7)).toBe('JEP106 bank 6 id 0x07')
    expect(jep106Name(0, 0x15)).toBe('NXP (Philips)')
  })

  it('names itself and its kind', () => {
    expect(probeRsAdapter.name).toBe('probe-rs')
    expect(probeRsAdapter.kinds).toStrictEqual(['probe-rs-target'])
  })
})
