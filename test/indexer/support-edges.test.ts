import { describe, expect, it } from 'vitest'
import { SourceLines } from '../../indexer/sources/evidence.js'
import { address, UniqueNames } from '../../indexer/sources/memory.js'
import { mergeSources } from '../../indexer/sources/merge.js'
import { concatResults, emptyResult, type AdapterResult } from '../../indexer/sources/types.js'
import { bareParse, child, children, childText, parseXml, XmlParseError } from '../../indexer/xml.js'
import type { DocumentTarget, FactDraft, ParseProblem, Topic } from '../../src/model/fact.js'

/*
 * The indexer's small shared pieces on hand-made inputs: the XML tree (xml.ts), source lines and
 * excerpts (sources/evidence.ts), memory addresses and unique names (sources/memory.ts), results and
 * their merge across sources (sources/types.ts, merge.ts). Expected values are worked out by hand
 * from the doc comments of those files and the inputs written here. The curation file and the
 * reachability check: curation-edges.test.ts.
 */

describe('parseXml', () => {
  it('builds the tree: names, attributes, children in order, trimmed direct text, the line each start tag begins on', () => {
    const doc = ['<?xml version="1.0"?>', '<device schemaVersion="1.3" xmlns:xs="x">', '  <name> STM32F407 </name>', '  <cpu', '    kind="m4">', '    <name>CM4</name>', '  </cpu>', '  <empty/>', '  <note>a<b>inner</b>c<![CDATA[ <raw> ]]>d</note>', '</device>'].join('\n')
    const root = parseXml(doc)
    expect(root.name).toBe('device')
    expect(root.line).toBe(2)
    expect(root.attrs).toEqual({ schemaVersion: '1.3', 'xmlns:xs': 'x' })
    expect(root.children.map((c) => [c.name, c.line])).toEqual([
      ['name', 3],
      ['cpu', 4],
      ['empty', 8],
      ['note', 9]
    ])
    expect(root.text).toBe('')
    expect(root.children[0]!.text).toBe('STM32F407')
    const cpu = root.children[1]!
    expect(cpu.attrs).toEqual({ kind: 'm4' })
    expect(cpu.text).toBe('')
    expect(cpu.children).toEqual([{ name: 'name', attrs: {}, children: [], text: 'CM4', line: 6 }])
    expect(root.children[2]).toEqual({ name: 'empty', attrs: {}, children: [], text: '', line: 8 })
    // Character data directly inside <note>, CDATA included; the child's text is its own.
    const note = root.children[3]!
    expect(note.text).toBe('ac <raw> d')
    expect(note.children[0]!.text).toBe('inner')
  })

  it('keeps namespace prefixes in names as written', () => {
    expect(parseXml('<a:root xmlns:a="u"><a:x/></a:root>').children[0]!.name).toBe('a:x')
  })

  it('a start tag whose name ends its line (LF or CRLF) is on that line, not the next', () => {
    for (const nl of ['\n', '\r\n']) {
      const root = parseXml(['<r>', '<cpu', '  kind="m4"/>', '<x\t', '/>', '<y', '>t</y>', '</r>'].join(nl))
      expect(root.children.map((c) => [c.name, c.line])).toEqual([
        ['cpu', 2],
        ['x', 4],
        ['y', 6]
      ])
    }
  })

  it('refuses malformed XML with the line the parser stopped on', () => {
    let err: unknown
    try {
      parseXml('<device>\n  <name>X</name>\n  <peripherals>\n</device>')
    } catch (e) {
      err = e
    }
    expect(err).toBeInstanceOf(XmlParseError)
    expect((err as XmlParseError).line).toBe(4)
    expect((err as XmlParseError).message).toMatch(/unexpected close tag/)
    expect(() => parseXml('   ')).toThrow(XmlParseError)
    expect(() => parseXml('<?xml version="1.0"?>\n')).toThrow(XmlParseError)
  })

  it('bareParse reads without building and refuses what parseXml refuses', () => {
    expect(bareParse('<a><b/></a>')).toBeUndefined()
    expect(() => bareParse('<a><b></a>')).toThrow()
  })

  it('child, children and childText find by name', () => {
    const root = parseXml('<r><x>1</x><y/><x>2</x><e>  </e></r>')
    expect(child(root, 'x')!.text).toBe('1')
    expect(child(root, 'z')).toBeUndefined()
    expect(children(root, 'x').map((c) => c.text)).toEqual(['1', '2'])
    expect(children(root, 'z')).toEqual([])
    expect(childText(root, 'x')).toBe('1')
    expect(childText(root, 'y')).toBeUndefined()
    expect(childText(root, 'e')).toBeUndefined()
    expect(childText(root, 'z')).toBeUndefined()
  })
})

describe('SourceLines', () => {
  it('line: the 1-based line without its break (LF or CRLF), empty outside the text', () => {
    const s = new SourceLines('first\r\nsecond\n\nlast')
    expect([s.line(1), s.line(2), s.line(3), s.line(4)]).toEqual(['first', 'second', '', 'last'])
    expect(s.line(0)).toBe('')
    expect(s.line(5)).toBe('')
    expect(new SourceLines('one\n').line(1)).toBe('one')
    expect(new SourceLines('one\n').line(2)).toBe('')
    // Only a carriage return ending the line is dropped.
    expect(new SourceLines('a\rb\r\nc').line(1)).toBe('a\rb')
  })

  it('excerpt: whitespace collapsed, from the line on, four lines by default, or as many as asked', () => {
    const s = new SourceLines(['<register>', '  <name>CR</name>   ', '\t<addressOffset>0x0</addressOffset>', '  <size>32</size>', '  <access>rw</access>', '</register>'].join('\n'))
    expect(s.excerpt(1)).toBe('<register> <name>CR</name> <addressOffset>0x0</addressOffset> <size>32</size>')
    expect(s.excerpt(2, 2)).toBe('<name>CR</name> <addressOffset>0x0</addressOffset>')
    expect(s.excerpt(2, 1)).toBe('<name>CR</name>')
    expect(s.excerpt(5)).toBe('<access>rw</access> </register>')
    expect(s.excerpt(6)).toBe('</register>')
    expect(s.excerpt(7)).toBe('')
    expect(s.excerpt(0)).toBe('')
  })

  it('excerpt: blank lines give nothing of their own; a range of blanks is empty', () => {
    expect(new SourceLines('a\n   \n\t\nb').excerpt(2)).toBe('b')
    expect(new SourceLines('a\n   \n\t\nb').excerpt(4, 1)).toBe('b')
    expect(new SourceLines('a\n\n  \n').excerpt(2)).toBe('')
    // The last line without a trailing break, and trailing blanks after it.
    expect(new SourceLines('x\n  tail  ').excerpt(2)).toBe('tail')
    expect(new SourceLines('x\ny  \n  \n').excerpt(2)).toBe('y')
  })

  it('excerpt: cut at 240 characters with an ellipsis, and no further lines read once that much is taken', () => {
    const long = 'A'.repeat(300)
    const cut = new SourceLines(`${long}\nB`).excerpt(1)
    expect(cut).toBe('A'.repeat(239) + '…')
    // 120 + 1 + 119 = 240 counted after two lines: the third is not read.
    const s = new SourceLines(['x'.repeat(120), 'y'.repeat(119), 'zz'].join('\n'))
    expect(s.excerpt(1)).toBe(`${'x'.repeat(120)} ${'y'.repeat(119)}`)
    // 120 + 1 + 117 + 1 = 239: the third is read, and the whole cut at 239 characters and an ellipsis.
    const t = new SourceLines(['x'.repeat(120), 'y'.repeat(117), 'zz'].join('\n'))
    expect(t.excerpt(1)).toBe(`${'x'.repeat(120)} ${'y'.repeat(117)} …`)
    // 120 + 1 + 118 + 1 = 240 after two lines: the third is not read.
    const u = new SourceLines(['x'.repeat(120), 'y'.repeat(118), 'zz'].join('\n'))
    expect(u.excerpt(1)).toBe(`${'x'.repeat(120)} ${'y'.repeat(118)}`)
    // Counted without each line's leading and trailing blanks (spaces too), and blank lines count nothing:
    // 100 + 1 + 130 + 1 = 232, so the third line is read.
    const v = new SourceLines([' '.repeat(50) + 'x'.repeat(100) + ' '.repeat(20), '', '   ', 'y'.repeat(130), 'zz'].join('\n'))
    expect(v.excerpt(1, 5)).toBe(`${'x'.repeat(100)} ${'y'.repeat(130)} zz`)
    // A blank line adds nothing: 120 + 1 + 117 + 1 = 239, the third non-blank line is read and the whole cut.
    const b = new SourceLines(['x'.repeat(120), '', 'y'.repeat(117), 'zz'].join('\n'))
    expect(b.excerpt(1)).toBe(`${'x'.repeat(120)} ${'y'.repeat(117)} …`)
    const w = new SourceLines(['x'.repeat(100), ' '.repeat(60) + 'y'.repeat(130) + ' '.repeat(30), 'zz'].join('\n'))
    expect(w.excerpt(1)).toBe(`${'x'.repeat(100)} ${'y'.repeat(130)} zz`)
    // A line that is not the first: its leading blanks are not the previous line's.
    const x = new SourceLines(['x'.repeat(100), '\t'.repeat(2) + 'y'.repeat(130), 'zz'].join('\n'))
    expect(x.excerpt(2)).toBe(`${'y'.repeat(130)} zz`)
    expect(x.excerpt(1)).toBe(`${'x'.repeat(100)} ${'y'.repeat(130)} zz`)
    // Exactly 240 characters: no ellipsis.
    expect(new SourceLines('C'.repeat(240)).excerpt(1)).toBe('C'.repeat(240))
  })
})

describe('memory values', () => {
  it('address: 0x and at least 8 upper-case hex digits', () => {
    expect(address(0)).toBe('0x00000000')
    expect(address(0x8000000)).toBe('0x08000000')
    expect(address(0x1fff7a10)).toBe('0x1FFF7A10')
    expect(address(0x100000000)).toBe('0x100000000')
  })

  it('UniqueNames: NAME, NAME_2, NAME_3; a NAME_2 the source wrote itself is skipped', () => {
    const u = new UniqueNames()
    expect([u.next('RAM'), u.next('RAM'), u.next('FLASH'), u.next('RAM')]).toEqual(['RAM', 'RAM_2', 'FLASH', 'RAM_3'])
    const v = new UniqueNames()
    expect([v.next('RAM_2'), v.next('RAM'), v.next('RAM'), v.next('RAM_2'), v.next('RAM')]).toEqual(['RAM_2', 'RAM', 'RAM_3', 'RAM_2_2', 'RAM_4'])
  })
})

const sha = (c: string) => c.repeat(64)
function tgt(key: string, sourcePath: string, topics: Topic[], extra: Partial<DocumentTarget> = {}): DocumentTarget {
  return { key, topics, device: 'D', sourceSha256: sha(sourcePath.length % 2 ? 'a' : 'b'), sourcePath, ...extra }
}
function fact(target: string, sourcePath: string, topic: Topic, name: string, value: Record<string, unknown>, scope: Partial<FactDraft['scope']> = {}): FactDraft {
  return { target, topic, name, value, scope: { device: 'D', ...scope }, evidence: [{ sourcePath, sourceSha256: sha('c'), locator: `line 1: ${name}`, excerpt: name }] }
}
const result = (r: Partial<AdapterResult>): AdapterResult => ({ ...emptyResult(), ...r })

describe('results', () => {
  it('emptyResult is empty and new each time', () => {
    const a = emptyResult()
    expect(a).toEqual({ targets: [], facts: [], parts: [], problems: [] })
    a.targets.push(tgt('k', 'p', []))
    expect(emptyResult().targets).toEqual([])
  })

  it('concatResults keeps every list in order; partNumbers only when some result has them', () => {
    const t1 = tgt('svd:a', 'svd/a.svd', ['registers'])
    const t2 = tgt('svd:b', 'svd/b.svd', ['registers'])
    const f1 = fact('svd:a', 'svd/a.svd', 'registers', 'X', { a: 1 })
    const f2 = fact('svd:b', 'svd/b.svd', 'registers', 'Y', { a: 2 })
    const part = { name: 'P1' } as AdapterResult['parts'][number]
    const pn1 = { name: 'N1', sourceSha256: sha('d'), sourcePath: 'x.yaml', line: 1 }
    const pn2 = { name: 'N2', sourceSha256: sha('d'), sourcePath: 'x.yaml', line: 2 }
    const p1: ParseProblem = { file: 'svd/a.svd', reason: 'one' }
    const p2: ParseProblem = { file: 'svd/b.svd', line: 3, reason: 'two' }
    const out = concatResults([result({ targets: [t1], facts: [f1], partNumbers: [pn1], problems: [p1] }), result({ targets: [t2], facts: [f2], parts: [part], partNumbers: [pn2], problems: [p2] })])
    expect(out).toEqual({ targets: [t1, t2], facts: [f1, f2], parts: [part], partNumbers: [pn1, pn2], problems: [p1, p2] })
    const none = concatResults([result({ targets: [t1] }), result({ facts: [f2] })])
    expect(none).toEqual({ targets: [t1], facts: [f2], parts: [], problems: [] })
    expect('partNumbers' in none).toBe(false)
    expect(concatResults([])).toEqual(emptyResult())
  })
})

describe('mergeSources', () => {
  const A = 'svd/Fujitsu/MB9.svd'
  const B = 'svd/Spansion/MB9.svd'
  const ta = tgt('svd:Fujitsu/MB9', A, ['registers', 'interrupts'], { device: 'MB9', identity: { vendor: 'Fujitsu' }, description: 'first' })
  const tb = tgt('svd:Spansion/MB9', B, ['memory', 'interrupts'], { device: 'MB9x', identity: { vendor: 'Spansion' } })

  it('fewer than two sources with one target each: the results concatenated as they are', () => {
    const one = result({ targets: [ta], facts: [fact(ta.key, A, 'registers', 'R', { v: 1 })] })
    const noTarget = result({ problems: [{ file: B, reason: 'unreadable' }] })
    expect(mergeSources([one, noTarget], 'svd:')).toEqual(concatResults([one, noTarget]))
    const two = result({ targets: [ta, tb] })
    expect(mergeSources([one, two], 'svd:')).toEqual(concatResults([one, two]))
  })

  it('one target: the first source`s, keyed by every source, topics joined and sorted, sources listed in order', () => {
    const problem: ParseProblem = { file: 'svd/Other/MB9.svd', line: 2, reason: 'no device' }
    const r = mergeSources([result({ targets: [ta], problems: [{ file: A, reason: 'a' }] }), result({ problems: [problem] }), result({ targets: [tb] })], 'svd:')
    expect(r.targets).toEqual([
      {
        key: 'svd:Fujitsu/MB9+Spansion/MB9',
        topics: ['interrupts', 'memory', 'registers'],
        device: 'MB9',
        sourceSha256: ta.sourceSha256,
        sourcePath: A,
        identity: { vendor: 'Fujitsu' },
        description: 'first',
        sources: [
          { sourcePath: A, sourceSha256: ta.sourceSha256 },
          { sourcePath: B, sourceSha256: tb.sourceSha256 }
        ]
      }
    ])
    // Every result's problems, the target-less one's too, in order.
    expect(r.problems).toEqual([{ file: A, reason: 'a' }, problem])
    expect(r.parts).toEqual([])
  })

  it('facts: alike in every source giving them agree (all evidence); unlike disagree (one per source, scoped); one source alone as given', () => {
    const key = 'svd:Fujitsu/MB9+Spansion/MB9'
    const fa = [
      fact(ta.key, A, 'registers', 'P.A', { address: '0x0' }),
      fact(ta.key, A, 'registers', 'P.B', { address: '0x4' }),
      fact(ta.key, A, 'registers', 'P.C', { address: '0x8' }),
      fact(ta.key, A, 'interrupts', 'P.A', { n: 1 }),
      fact(ta.key, A, 'pins', 'PA1', { f: 1 }, { package: 'LQFP48' }),
      fact(ta.key, A, 'registers', 'P.S', { x: 1 }, { parts: ['X'] })
    ]
    const fb = [
      fact(tb.key, B, 'registers', 'P.B', { address: '0xC' }),
      fact(tb.key, B, 'registers', 'P.A', { address: '0x0' }),
      fact(tb.key, B, 'interrupts', 'P.A', { n: 2 }),
      fact(tb.key, B, 'pins', 'PA1', { f: 1 }, { package: 'QFN32' }),
      fact(tb.key, B, 'registers', 'P.S', { x: 1 }, { parts: ['Y'] }),
      fact(tb.key, B, 'registers', 'Q', { address: '0x10' })
    ]
    const r = mergeSources([result({ targets: [ta], facts: fa }), result({ targets: [tb], facts: fb })], 'svd:')
    const view = r.facts.map((f) => [f.topic, f.name, f.agreement ?? '-', f.scope.source ?? '-', f.scope.package ?? '-', f.evidence.map((e) => e.sourcePath).join(',')])
    // First-seen order of (topic, name, package); per key, the sources in order.
    expect(view).toEqual([
      ['registers', 'P.A', 'agree', '-', '-', `${A},${B}`],
      ['registers', 'P.B', 'disagree', A, '-', A],
      ['registers', 'P.B', 'disagree', B, '-', B],
      ['registers', 'P.C', '-', '-', '-', A],
      ['interrupts', 'P.A', 'disagree', A, '-', A],
      ['interrupts', 'P.A', 'disagree', B, '-', B],
      ['pins', 'PA1', '-', '-', 'LQFP48', A],
      ['registers', 'P.S', 'disagree', A, '-', A],
      ['registers', 'P.S', 'disagree', B, '-', B],
      ['pins', 'PA1', '-', '-', 'QFN32', B],
      ['registers', 'Q', '-', '-', '-', B]
    ])
    expect(r.facts.every((f) => f.target === key)).toBe(true)
    // Agreed: the first source's fact with every evidence; disagreeing: each source's own value and scope.
    expect(r.facts[0]).toEqual({ ...fa[0], target: key, evidence: [...fa[0]!.evidence, ...fb[1]!.evidence], agreement: 'agree' })
    expect(r.facts[2]).toEqual({ ...fb[0], target: key, scope: { device: 'D', source: B }, agreement: 'disagree' })
    expect(r.facts[7]!.scope).toEqual({ device: 'D', parts: ['X'], source: A })
    expect(r.facts[3]).toEqual({ ...fa[2], target: key })
  })
})

