import { describe, expect, it } from 'vitest'
import type { FactDraft } from '../../src/model/fact.js'
import { parseSvd, svdAdapter } from '../../indexer/sources/svd.js'
import type { AdapterResult, LoadedArtifact } from '../../indexer/sources/types.js'

/*
 * The SVD adapter at the edges of CMSIS-SVD that the features fixture does not reach: number
 * forms, dim index lists, property inheritance, derivedFrom lookups and every problem it reports.
 * Each file is written inline; expected values are worked out by hand from the SVD rules
 * (https://open-cmsis-pack.github.io/svd-spec/) and from the lines as written here.
 */

const SHA = 'e'.repeat(64)

function parse(lines: string[], publisher = 'Acme'): AdapterResult & { get: (name: string) => Record<string, unknown>; fact: (name: string) => FactDraft } {
  const content = Buffer.from(lines.join('\n'))
  const a: LoadedArtifact = { path: 'svd/Acme/edge.svd', sha256: SHA, bytes: content.length, kind: 'cmsis-svd', publisher, license: 'MIT', mediaType: 'application/xml', content }
  const r = parseSvd(a)
  const fact = (name: string) => {
    const f = r.facts.find((x) => x.name === name)
    if (!f) throw new Error(`no fact ${name}; have ${r.facts.map((x) => x.name).join(' ')}`)
    return f
  }
  return { ...r, fact, get: (name) => fact(name).value }
}

/** [line, reason] in line order: which stage notices a problem first is not part of the contract. */
const problems = (r: AdapterResult) =>
  r.problems.map((p) => [p.line, p.reason] as const).sort((a, b) => (a[0] ?? 0) - (b[0] ?? 0) || (a[1] < b[1] ? -1 : 1))

/** A device with one peripheral P at 0x1000 whose <registers> are the given lines (starting on line 4). */
const device = (...registers: string[]) => [
  '<device><name>EDGE</name>',
  '<peripherals><peripheral><name>P</name><baseAddress>0x1000</baseAddress>',
  '<registers>',
  ...registers,
  '</registers></peripheral></peripherals></device>'
]

describe('svd edges: the device and its target', () => {
  it('a root other than <device>, or a device without <name>: one problem, no target', () => {
    const r = parse(['<?xml version="1.0"?>', '<peripherals/>'])
    expect(problems(r)).toEqual([[2, 'root element is <peripherals>, expected <device>']])
    expect(r.targets).toEqual([])
    const n = parse(['<device>', '<description>no name</description>', '</device>'])
    expect(problems(n)).toEqual([[1, 'device has no <name>']])
    expect(n.targets).toEqual([])
  })

  it('identity: <cpu><name>, the publisher when there is no <vendor>; <series> stands in for a missing description', () => {
    const r = parse(['<device>', '<name>EDGE</name>', '<series>EDGE1</series>', '<cpu><revision>r0p1</revision><name>CM4</name></cpu>', '</device>'], 'Silicon Acme')
    expect(r.problems).toEqual([])
    expect(r.targets).toEqual([
      {
        key: 'svd:Acme/edge',
        topics: ['registers'],
        device: 'EDGE',
        sourceSha256: SHA,
        sourcePath: 'svd/Acme/edge.svd',
        description: 'EDGE1',
        identity: { vendor: 'Silicon Acme', series: 'EDGE1', cpu: 'CM4' }
      }
    ])
    expect(r.facts).toEqual([])
    // Neither vendor nor publisher, no series or cpu: an empty identity, and no description.
    const bare = parse(['<device><name>BARE</name><vendor>  Big   Acme </vendor></device>'], '')
    expect(bare.targets[0]?.identity).toEqual({ vendor: 'Big Acme' })
    expect(bare.targets[0]).not.toHaveProperty('description')
    const none = parse(['<device><name>BARE</name><cpu><name></name></cpu></device>'], '')
    expect(none.targets[0]?.identity).toEqual({})
  })

  it("identity: the package codes a PACKAGE register's PACKAGE field enumerates (Nordic's FICR INFO.PACKAGE)", () => {
    const values = (...ds: string[]) => ds.map((d, i) => `<enumeratedValue><name>V${i}</name><description>${d}</description><value>${i}</value></enumeratedValue>`).join('')
    const field = (reg: string, f: string, ...ds: string[]) =>
      `<register><name>${reg}</name><addressOffset>0x${reg.length.toString(16)}</addressOffset><fields><field><name>${f}</name><lsb>0</lsb><msb>31</msb><enumeratedValues>${values(...ds)}</enumeratedValues></field></fields></register>`
    const r = parse([
      '<device><name>NRFX</name>',
      '<peripherals><peripheral><name>FICR</name><baseAddress>0x1000</baseAddress><registers>',
      '<cluster><name>INFO</name><addressOffset>0x100</addressOffset>',
      field('PACKAGE', 'PACKAGE', 'QIxx - 7x7 73-pin aQFN', 'CExx or CFxx - 236 ball WLCSP', 'Unspecified', 'QIxx again'),
      '</cluster>',
      // Not the package field: another field of another register, the same words.
      field('VARIANT', 'PACKAGE', 'QDxx - 5x5 40-pin QFN'),
      field('PACKAGE', 'OTHER', 'QKxx - 94-pin aQFN'),
      '</registers></peripheral></peripherals></device>'
    ])
    expect(r.problems).toEqual([])
    expect(r.targets[0]!.identity).toEqual({ vendor: 'Acme', packages: ['CE', 'CF', 'QI'] })
  })

  it('a file starting with a byte-order mark is read; the key drops svd/ and .svd only', () => {
    const content = Buffer.from('\uFEFF<device><name>B</name></device>')
    const r = parseSvd({ path: 'svd/X/a.svd.SVD', sha256: SHA, bytes: content.length, kind: 'cmsis-svd', publisher: 'X', license: 'MIT', mediaType: 'application/xml', content })
    expect(r.problems).toEqual([])
    expect(r.targets[0]?.key).toBe('svd:X/a.svd')
  })

  it('interrupts: value and description as written, a missing value is null; not inherited by a derived peripheral', () => {
    const r = parse([
      '<device><name>EDGE</name><peripherals>',
      '<peripheral><name>A</name><baseAddress>0x1000</baseAddress>',
      '<interrupt><name>A_IRQ</name><description>First   one</description><value>0x10</value></interrupt>',
      '<interrupt><name>A_ERR</name><value>x</value></interrupt>',
      '</peripheral>',
      '<peripheral derivedFrom="A"><name>B</name><baseAddress>0x2000</baseAddress></peripheral>',
      '</peripherals></device>'
    ])
    expect(r.get('A')).toEqual({
      baseAddress: '0x00001000',
      description: null,
      interrupts: [
        { name: 'A_IRQ', value: 16, description: 'First one' },
        { name: 'A_ERR', value: null, description: null }
      ]
    })
    expect(r.get('B')).toEqual({ baseAddress: '0x00002000', description: null, derivedFrom: 'A', interrupts: [] })
  })

  it('interrupts facts: one per line name, its number and every peripheral declaring it (array instances too, sorted); no number, no fact; a second number is a problem, the first kept', () => {
    const r = parse([
      '<device><name>EDGE</name><peripherals>',
      '<peripheral><name>UART1</name><baseAddress>0x1000</baseAddress>',
      '<interrupt><name>UART</name><value>37</value></interrupt>',
      '<interrupt><name>NOVALUE</name></interrupt>',
      '</peripheral>',
      '<peripheral><dim>2</dim><dimIncrement>0x100</dimIncrement><name>TIM%s</name><baseAddress>0x2000</baseAddress>',
      '<interrupt><name>TIM</name><value>5</value></interrupt>',
      '</peripheral>',
      '<peripheral><name>ALPHA</name><baseAddress>0x3000</baseAddress>',
      '<interrupt><name>UART</name><value>38</value></interrupt>',
      '</peripheral>',
      '</peripherals></device>'
    ])
    const irqs = r.facts.filter((f) => f.topic === 'interrupts')
    expect(irqs.map((f) => [f.name, f.value, f.peripherals])).toEqual([
      ['UART', { number: 37, peripherals: ['ALPHA', 'UART1'] }, ['ALPHA', 'UART1']],
      ['TIM', { number: 5, peripherals: ['TIM0', 'TIM1'] }, ['TIM0', 'TIM1']]
    ])
    for (const f of irqs) expect(f.target).toBe(r.targets[0]!.key)
    // The first declaring element is the evidence, its line quoted.
    expect(irqs[0]!.evidence).toEqual([
      { sourceSha256: SHA, sourcePath: 'svd/Acme/edge.svd', locator: 'line 3: /device/peripherals/peripheral[name=UART1]/interrupt[name=UART]', excerpt: expect.stringContaining('<name>UART</name><value>37</value>') }
    ])
    expect(irqs[1]!.evidence.map((e) => e.locator)).toEqual(['line 7: /device/peripherals/peripheral[name=TIM%s]/interrupt[name=TIM]'])
    expect(r.targets[0]!.topics).toEqual(['interrupts', 'registers'])
    expect(problems(r)).toEqual([
      [4, 'peripheral UART1: <interrupt> without a name and a number; no interrupts fact'],
      [10, 'interrupt UART is 38 here and 37 at line 3; the first is kept']
    ])
    // Without interrupts, the target offers registers only.
    expect(parse(device('<register><name>R</name><addressOffset>0</addressOffset></register>')).targets[0]!.topics).toEqual(['registers'])
  })
})

describe('svd edges: numbers (scaledNonNegativeInteger)', () => {
  it('decimal, 0x/0X hex, #binary, a leading +, and k/M scale suffixes', () => {
    const r = parse(
      device(
        '<register><name>R1</name><addressOffset>+0x8</addressOffset><size>16</size><resetValue>#1010</resetValue></register>',
        '<register><name>R2</name><addressOffset>1k</addressOffset><size>32</size><resetValue>0X1f</resetValue></register>',
        '<register><name>R3</name><addressOffset>1K</addressOffset><size>32</size><resetValue>2m</resetValue></register>'
      )
    )
    expect(r.problems).toEqual([])
    // 0x1000 + 8; #1010 = 10 in a 16-bit register: 4 hex digits.
    expect(r.get('P.R1')).toMatchObject({ address: '0x00001008', offset: '0x8', resetValue: '0x000A' })
    // 1k = 1024 = 0x400.
    expect(r.get('P.R2')).toMatchObject({ address: '0x00001400', offset: '0x400', resetValue: '0x0000001F' })
    // 2m = 2 × 1048576 = 0x200000.
    expect(r.get('P.R3')).toMatchObject({ address: '0x00001400', resetValue: '0x00200000' })
  })

  it('negative, fractional or empty numbers are no numbers: the element is left out with a problem', () => {
    const r = parse(
      device(
        '<register><name>NEG</name><addressOffset>-4</addressOffset></register>',
        '<register><name>FRAC</name><addressOffset>1.5</addressOffset></register>',
        '<register><name>EMPTY</name><addressOffset></addressOffset></register>',
        '<register><name>WORD</name><addressOffset>four</addressOffset></register>',
        '<register><name>OK</name><addressOffset>4</addressOffset><size>x</size><resetValue>-1</resetValue><resetMask>0x</resetMask></register>'
      )
    )
    expect(problems(r)).toEqual([
      [4, 'register NEG has no addressOffset'],
      [5, 'register FRAC has no addressOffset'],
      [6, 'register EMPTY has no addressOffset'],
      [7, 'register WORD has no addressOffset']
    ])
    // Unreadable size and reset values stay unknown.
    expect(r.get('P.OK')).toEqual({ address: '0x00001004', offset: '0x4', size: null, resetValue: null, resetMask: null, access: null, description: null })
  })

  it('reset values wider than the register are cut to its size; a 64-bit mask is cut too', () => {
    const r = parse([
      '<device><name>EDGE</name><resetValue>0x1234567890ABCDEF</resetValue><resetMask>0xFFFFFFFFFFFFFFFF</resetMask>',
      '<peripherals><peripheral><name>P</name><baseAddress>0x1000</baseAddress><registers>',
      '<register><name>B</name><addressOffset>0</addressOffset><size>8</size></register>',
      '<register><name>H</name><addressOffset>2</addressOffset><size>16</size></register>',
      '<register><name>W</name><addressOffset>4</addressOffset><size>32</size></register>',
      '<register><name>D</name><addressOffset>8</addressOffset><size>64</size></register>',
      '<register><name>S</name><addressOffset>16</addressOffset><size>56</size></register>',
      '</registers></peripheral></peripherals></device>'
    ])
    expect(r.get('P.B')).toMatchObject({ size: 8, resetValue: '0xEF', resetMask: '0xFF' })
    expect(r.get('P.H')).toMatchObject({ size: 16, resetValue: '0xCDEF', resetMask: '0xFFFF' })
    expect(r.get('P.W')).toMatchObject({ size: 32, resetValue: '0x90ABCDEF', resetMask: '0xFFFFFFFF' })
    expect(r.get('P.D')).toMatchObject({ size: 64, resetValue: '0x1234567890ABCDEF', resetMask: '0xFFFFFFFFFFFFFFFF' })
    expect(r.get('P.S')).toMatchObject({ size: 56, resetValue: '0x34567890ABCDEF', resetMask: '0xFFFFFFFFFFFFFF' })
    // Small device values on small registers: 0x1FF on a 4-bit register is 0xF, one hex digit.
    const s = parse([
      '<device><name>EDGE</name><resetValue>0x1FF</resetValue><size>4</size>',
      '<peripherals><peripheral><name>P</name><baseAddress>0x1000</baseAddress><registers>',
      '<register><name>N</name><addressOffset>0</addressOffset></register>',
      '<register><name>L</name><addressOffset>4</addressOffset><size>60</size></register>',
      '</registers></peripheral></peripherals></device>'
    ])
    expect(s.get('P.N')).toMatchObject({ size: 4, resetValue: '0xF', resetMask: null })
    // A 60-bit register: 15 hex digits.
    expect(s.get('P.L')).toMatchObject({ size: 60, resetValue: '0x0000000000001FF' })
  })
})

describe('svd edges: dim', () => {
  it('dimIndex: lower-case letters, blanks around the dash, fewer or more indices than dim', () => {
    const r = parse(
      device(
        '<register><dim>3</dim><dimIncrement>4</dimIncrement><dimIndex>a-c</dimIndex><name>L%s</name><addressOffset>0x10</addressOffset></register>',
        '<register><dim>2</dim><dimIncrement>4</dimIncrement><dimIndex>7 - 8</dimIndex><name>N%s</name><addressOffset>0x20</addressOffset></register>',
        '<register><dim>3</dim><dimIncrement>4</dimIncrement><dimIndex>X,Y</dimIndex><name>F%s</name><addressOffset>0x30</addressOffset></register>',
        '<register><dim>2</dim><dimIncrement>4</dimIncrement><dimIndex>P,Q,R</dimIndex><name>M%s</name><addressOffset>0x40</addressOffset></register>',
        '<register><dim>2</dim><dimIncrement>4</dimIncrement><name>PLAIN</name><addressOffset>0x50</addressOffset></register>',
        '<register><dim>1</dim><name>ONE%s</name><addressOffset>0x60</addressOffset></register>'
      )
    )
    expect(r.problems).toEqual([])
    const names = r.facts.map((f) => f.name)
    expect(names).toEqual(['P', 'P.La', 'P.Lb', 'P.Lc', 'P.N7', 'P.N8', 'P.FX', 'P.FY', 'P.F2', 'P.MP', 'P.MQ', 'P.PLAIN0', 'P.PLAIN1', 'P.ONE0'])
    expect(['P.La', 'P.Lc', 'P.N8', 'P.F2', 'P.MQ', 'P.PLAIN1', 'P.ONE0'].map((n) => r.get(n).address)).toEqual([
      '0x00001010',
      '0x00001018',
      '0x00001024',
      '0x00001038',
      '0x00001044',
      '0x00001054',
      '0x00001060'
    ])
  })

  it('a %s in a description is replaced everywhere; an unreadable <dim> is a problem and yields nothing', () => {
    const r = parse(
      device(
        '<register><dim>2</dim><dimIncrement>4</dimIncrement><name>R%s</name><description>R%s is %s</description><addressOffset>0</addressOffset>',
        '<fields><field><dim>2</dim><dimIncrement>2</dimIncrement><name>F%s</name><description>bit %s of %s</description><bitOffset>1</bitOffset><bitWidth>2</bitWidth></field></fields></register>',
        '<register><dim>two</dim><dimIncrement>4</dimIncrement><name>BAD%s</name><addressOffset>0x10</addressOffset></register>',
        '<cluster><dim>2</dim><name>C%s</name><addressOffset>0x20</addressOffset><register><name>X</name><addressOffset>0</addressOffset></register></cluster>'
      )
    )
    expect(r.get('P.R1').description).toBe('R1 is 1')
    expect(r.get('P.R0.F1')).toEqual({ bitOffset: 3, bitWidth: 2, access: null, description: 'bit 1 of 1', enumeratedValues: [] })
    expect(r.get('P.R1.F0')).toEqual({ bitOffset: 1, bitWidth: 2, access: null, description: 'bit 0 of 0', enumeratedValues: [] })
    expect(problems(r)).toEqual([
      [6, 'unusable <dim>two</dim>'],
      [7, 'dim without a usable <dimIncrement>']
    ])
    expect(r.facts.some((f) => f.name.startsWith('P.BAD') || f.name.startsWith('P.C'))).toBe(false)
  })

  it('a dim’d peripheral without %s appends the index; a derived peripheral named with %s takes its base’s dim', () => {
    const r = parse([
      '<device><name>EDGE</name><peripherals>',
      '<peripheral><dim>2</dim><dimIncrement>0x100</dimIncrement><name>Q</name><description>Q block %s</description><baseAddress>0x1000</baseAddress></peripheral>',
      '<peripheral derivedFrom="Q"><name>S%s</name><baseAddress>0x2000</baseAddress></peripheral>',
      '</peripherals></device>'
    ])
    expect(r.facts.map((f) => [f.name, f.value.baseAddress, f.value.description])).toEqual([
      ['Q0', '0x00001000', 'Q block 0'],
      ['Q1', '0x00001100', 'Q block 1'],
      ['S0', '0x00002000', 'Q block 0'],
      ['S1', '0x00002100', 'Q block 1']
    ])
  })

  it('a derived register or field named with %s takes its base’s dim and is found by an element name', () => {
    const r = parse(
      device(
        '<register><dim>2</dim><dimIncrement>4</dimIncrement><name>A%s</name><addressOffset>0</addressOffset><size>16</size>',
        '<fields><field><dim>2</dim><dimIncrement>4</dimIncrement><name>F%s</name><bitOffset>0</bitOffset><bitWidth>4</bitWidth></field>',
        '<field derivedFrom="F%s"><name>G%s</name><bitOffset>1</bitOffset></field></fields></register>',
        '<register derivedFrom="A%s"><name>B%s</name><addressOffset>0x10</addressOffset></register>',
        '<register derivedFrom="A1"><name>C</name><addressOffset>0x20</addressOffset></register>'
      )
    )
    expect(r.problems).toEqual([])
    expect(r.get('P.B1')).toMatchObject({ address: '0x00001014', size: 16 })
    // G takes F's dim (2, increment 4) and width 4, with its own bitOffset 1.
    expect(['P.A0.G0', 'P.A0.G1'].map((n) => [r.get(n).bitOffset, r.get(n).bitWidth])).toEqual([
      [1, 4],
      [5, 4]
    ])
    // C derives from the array element A1: A's properties and fields, its own offset.
    expect(r.get('P.C')).toMatchObject({ address: '0x00001020', size: 16 })
    expect(r.get('P.C.F1')).toMatchObject({ bitOffset: 4, bitWidth: 4 })
  })
})

describe('svd edges: fields', () => {
  it('lsb/msb in either order, bitRange with blanks; a bad bitRange, a repeated bitWidth, a nameless field', () => {
    const r = parse(
      device(
        '<register><name>R</name><addressOffset>0</addressOffset><fields>',
        '<field><name>SWAP</name><lsb>7</lsb><msb>4</msb></field>',
        '<field><name>RANGE</name><bitRange>[ 15 : 8 ]</bitRange></field>',
        '<field><name>NOCOLON</name><bitRange>[15]</bitRange></field>',
        '<field><name>ONLYLSB</name><lsb>3</lsb></field>',
        '<field><name>TWICE</name><bitOffset>16</bitOffset><bitWidth>2</bitWidth>',
        '<bitWidth>3</bitWidth></field>',
        '<field><description>no name</description><bitOffset>20</bitOffset><bitWidth>1</bitWidth></field>',
        '<field><name>EXPLICIT</name><bitOffset>24</bitOffset><bitWidth>2</bitWidth><lsb>0</lsb><msb>7</msb></field>',
        '</fields></register>'
      )
    )
    expect(r.get('P.R.SWAP')).toMatchObject({ bitOffset: 4, bitWidth: 4 })
    expect(r.get('P.R.RANGE')).toMatchObject({ bitOffset: 8, bitWidth: 8 })
    expect(r.get('P.R.TWICE')).toMatchObject({ bitOffset: 16, bitWidth: 2 })
    // An explicit bitOffset/bitWidth wins over lsb/msb given in the same field.
    expect(r.get('P.R.EXPLICIT')).toMatchObject({ bitOffset: 24, bitWidth: 2 })
    expect(problems(r)).toEqual([
      [7, 'field NOCOLON has no bit position'],
      [8, 'field ONLYLSB has no bit position'],
      [10, '<bitWidth> given twice in one field (lines 9 and 10); the one on line 9 is used'],
      [11, 'field without <name>']
    ])
  })

  it('a field inherits access and description from its base, the register’s access otherwise', () => {
    const r = parse(
      device(
        '<register><name>R</name><addressOffset>0</addressOffset><access>write-only</access><fields>',
        '<field><name>A</name><description>Field   A</description><bitOffset>0</bitOffset><bitWidth>1</bitWidth><access>read-only</access></field>',
        '<field derivedFrom="A"><name>B</name><bitOffset>1</bitOffset></field>',
        '<field><name>C</name><bitOffset>2</bitOffset><bitWidth>1</bitWidth></field>',
        '<field derivedFrom="P.R.A"><name>D</name><bitOffset>3</bitOffset></field>',
        '</fields></register>',
        '<register><name>S</name><addressOffset>4</addressOffset><fields>',
        '<field derivedFrom="P.R.C"><name>E</name><bitOffset>5</bitOffset></field>',
        '<field derivedFrom="P.R"><name>NOTFIELD</name><bitOffset>6</bitOffset></field>',
        '</fields></register>'
      )
    )
    expect(r.get('P.R.B')).toEqual({ bitOffset: 1, bitWidth: 1, access: 'read-only', description: 'Field A', enumeratedValues: [] })
    expect(r.get('P.R.C')).toMatchObject({ access: 'write-only', description: null })
    expect(r.get('P.R.D')).toMatchObject({ bitOffset: 3, bitWidth: 1, access: 'read-only' })
    // A field derived from a field of another register, by its full path.
    expect(r.get('P.S.E')).toEqual({ bitOffset: 5, bitWidth: 1, access: null, description: null, enumeratedValues: [] })
    expect(problems(r)).toEqual([[12, 'field NOTFIELD: derivedFrom P.R not found']])
  })
})

describe('svd edges: derivedFrom lookups', () => {
  it('clusters: a register found in an enclosing scope and by a CLUSTER.REG path; a base of another kind is not found', () => {
    const r = parse(
      device(
        '<register><name>TOP</name><addressOffset>0</addressOffset><size>16</size><resetValue>0x11</resetValue></register>',
        '<cluster><name>C</name><addressOffset>0x100</addressOffset>',
        '<register><name>IN</name><addressOffset>4</addressOffset><size>8</size><resetValue>0x22</resetValue></register>',
        '<register derivedFrom="TOP"><name>UP</name><addressOffset>8</addressOffset></register>',
        '</cluster>',
        '<register derivedFrom="C.IN"><name>VIA</name><addressOffset>0x10</addressOffset></register>',
        '<register derivedFrom="P.C.IN"><name>FULL</name><addressOffset>0x14</addressOffset></register>',
        '<register derivedFrom="C"><name>KIND</name><addressOffset>0x18</addressOffset></register>',
        '<register derivedFrom="P.C.NONE"><name>MISS</name><addressOffset>0x1C</addressOffset></register>',
        '<register derivedFrom="C.IN.X"><name>DEEP</name><addressOffset>0x20</addressOffset></register>'
      )
    )
    expect(r.get('P.C.UP')).toMatchObject({ address: '0x00001108', size: 16, resetValue: '0x0011' })
    expect(r.get('P.VIA')).toMatchObject({ address: '0x00001010', size: 8, resetValue: '0x22' })
    expect(r.get('P.FULL')).toMatchObject({ address: '0x00001014', size: 8, resetValue: '0x22' })
    expect(problems(r)).toEqual([
      [11, 'register KIND: derivedFrom C not found'],
      [12, 'register MISS: derivedFrom P.C.NONE not found'],
      [13, 'register DEEP: derivedFrom C.IN.X not found']
    ])
  })

  it('peripheral chains: properties and registers through two levels; a cycle and a missing base are problems', () => {
    const r = parse([
      '<device><name>EDGE</name><peripherals>',
      '<peripheral><name>A</name><baseAddress>0x1000</baseAddress><size>16</size><protection>s</protection><groupName>G</groupName><description>Base A</description>',
      '<registers><register><name>R</name><addressOffset>2</addressOffset></register></registers></peripheral>',
      '<peripheral derivedFrom="A"><name>B</name><baseAddress>0x2000</baseAddress><access>read-only</access></peripheral>',
      '<peripheral derivedFrom=" B "><name>C</name><baseAddress>0x3000</baseAddress></peripheral>',
      '<peripheral derivedFrom="Y"><name>X</name><baseAddress>0x4000</baseAddress></peripheral>',
      '<peripheral derivedFrom="X"><name>Y</name><baseAddress>0x5000</baseAddress></peripheral>',
      '<peripheral derivedFrom="C"><name>D</name></peripheral>',
      '<peripheral><description>nameless</description><baseAddress>0x6000</baseAddress></peripheral>',
      '<peripheral><name>E</name></peripheral>',
      '</peripherals></device>'
    ])
    expect(r.get('C')).toEqual({ baseAddress: '0x00003000', description: 'Base A', groupName: 'G', derivedFrom: 'B', interrupts: [] })
    expect(r.get('C.R')).toEqual({ address: '0x00003002', offset: '0x2', size: 16, resetValue: null, resetMask: null, access: 'read-only', description: null, protection: 's' })
    // D has no <baseAddress> of its own: it takes C's, and its registers' evidence names C's element.
    expect(r.get('D.R').address).toBe('0x00003002')
    expect(r.fact('D.R').evidence.map((e) => e.locator)).toEqual([
      'line 8: /device/peripherals/peripheral[name=D]',
      'line 3: /device/peripherals/peripheral[name=A]/registers/register[name=R]',
      'line 5: /device/peripherals/peripheral[name=C]/baseAddress'
    ])
    expect(problems(r)).toEqual([
      [6, 'peripheral X: derivedFrom cycle'],
      [7, 'peripheral Y: derivedFrom X, which is itself unresolved'],
      [9, 'peripheral without <name>'],
      [10, 'peripheral E has no baseAddress']
    ])
    expect(r.facts.some((f) => ['X', 'Y', 'E'].includes(f.name.split('.')[0]!))).toBe(false)
  })

  it('a nameless register or cluster is a problem and yields nothing', () => {
    const r = parse(
      device(
        '<register><description>nameless</description><addressOffset>0</addressOffset></register>',
        '<cluster><addressOffset>0x10</addressOffset></cluster>',
        '<register><name>R</name><addressOffset>4</addressOffset></register>',
        '<cluster><name>R</name><addressOffset>8</addressOffset><register><name>Z</name><addressOffset>0</addressOffset></register></cluster>'
      )
    )
    expect(problems(r)).toEqual([
      [4, 'register without <name>'],
      [5, 'cluster without <name>']
    ])
    expect(r.facts.map((f) => f.name)).toEqual(['P', 'P.R', 'P.R.Z'])
  })
})

describe('svd edges: enumerated values', () => {
  it('read and write sets are both kept; isDefault as 1; a derived set takes its own usage', () => {
    const r = parse(
      device(
        '<register><name>R</name><addressOffset>0</addressOffset><fields>',
        '<field><name>A</name><bitOffset>0</bitOffset><bitWidth>1</bitWidth>',
        '<enumeratedValues><name>RD</name><usage>read</usage><enumeratedValue><name>LOW</name><value>0</value></enumeratedValue></enumeratedValues>',
        '<enumeratedValues><name>WR</name><usage>write</usage><enumeratedValue><name>SET</name><value>1</value></enumeratedValue><enumeratedValue><name>ANY</name><isDefault>1</isDefault></enumeratedValue></enumeratedValues>',
        '</field>',
        '<field><name>B</name><bitOffset>1</bitOffset><bitWidth>1</bitWidth><enumeratedValues derivedFrom="WR"><usage>read-write</usage></enumeratedValues></field>',
        '<field><name>C</name><bitOffset>2</bitOffset><bitWidth>1</bitWidth><enumeratedValues derivedFrom="RD"><usage>read</usage></enumeratedValues></field>',
        '<field><name>D</name><bitOffset>3</bitOffset><bitWidth>1</bitWidth><enumeratedValues derivedFrom="NOPE"/></field>',
        '<field><name>E</name><bitOffset>4</bitOffset><bitWidth>1</bitWidth><enumeratedValues><enumeratedValue><name>N</name><value>2</value><isDefault>false</isDefault></enumeratedValue></enumeratedValues></field>',
        '</fields></register>'
      )
    )
    expect(r.get('P.R.A').enumeratedValues).toEqual([
      { name: 'LOW', value: 0, description: null, usage: 'read' },
      { name: 'SET', value: 1, description: null, usage: 'write' },
      { name: 'ANY', value: null, description: null, usage: 'write', isDefault: true }
    ])
    expect(r.get('P.R.B').enumeratedValues).toEqual([
      { name: 'SET', value: 1, description: null, usage: 'read-write' },
      { name: 'ANY', value: null, description: null, usage: 'read-write', isDefault: true }
    ])
    expect(r.get('P.R.C').enumeratedValues).toEqual([{ name: 'LOW', value: 0, description: null, usage: 'read' }])
    expect(r.get('P.R.D').enumeratedValues).toEqual([])
    expect(r.get('P.R.E').enumeratedValues).toEqual([{ name: 'N', value: 2, description: null }])
    expect(problems(r)).toEqual([[11, 'enumeratedValues derivedFrom NOPE not found']])
  })

  it('a set derived by a name from another peripheral, or by a path whose last part names it', () => {
    const r = parse([
      '<device><name>EDGE</name><peripherals>',
      '<peripheral><name>P</name><baseAddress>0x1000</baseAddress><registers>',
      '<cluster><name>CL</name><addressOffset>0</addressOffset><register><name>R</name><addressOffset>0</addressOffset><fields>',
      '<field><name>F</name><bitOffset>0</bitOffset><bitWidth>1</bitWidth><enumeratedValues><name>Mode</name><enumeratedValue><name>ON</name><value>1</value></enumeratedValue></enumeratedValues></field>',
      '</fields></register></cluster></registers></peripheral>',
      '<peripheral><name>Q</name><baseAddress>0x2000</baseAddress><registers><register><name>S</name><addressOffset>0</addressOffset><fields>',
      '<field><name>G</name><bitOffset>0</bitOffset><bitWidth>1</bitWidth><enumeratedValues derivedFrom="Mode"/></field>',
      '<field><name>H</name><bitOffset>1</bitOffset><bitWidth>1</bitWidth><enumeratedValues derivedFrom="P.CL.R.F.Mode"/></field>',
      '<field><name>I</name><bitOffset>2</bitOffset><bitWidth>1</bitWidth><enumeratedValues derivedFrom="Other.Path.Mode"/></field>',
      '<field><name>J</name><bitOffset>3</bitOffset><bitWidth>1</bitWidth><enumeratedValues derivedFrom="NoDot"/></field>',
      '</fields></register></registers></peripheral>',
      '</peripherals></device>'
    ])
    const on = [{ name: 'ON', value: 1, description: null }]
    expect(['Q.S.G', 'Q.S.H', 'Q.S.I'].map((n) => r.get(n).enumeratedValues)).toEqual([on, on, on])
    expect(r.get('Q.S.J').enumeratedValues).toEqual([])
    expect(problems(r)).toEqual([[10, 'enumeratedValues derivedFrom NoDot not found']])
  })

  it('a derived set that derives from itself is a problem, not a loop', () => {
    const r = parse(
      device(
        '<register><name>R</name><addressOffset>0</addressOffset><fields>',
        '<field><name>F</name><bitOffset>0</bitOffset><bitWidth>1</bitWidth><enumeratedValues derivedFrom="Self"><name>Self</name></enumeratedValues></field>',
        '</fields></register>'
      )
    )
    expect(r.get('P.R.F').enumeratedValues).toEqual([])
    expect(problems(r)).toEqual([[5, 'enumeratedValues derivedFrom Self not found']])
  })
})

describe('svd edges: register properties', () => {
  it('protection and access inherited from the device down; own values win', () => {
    const r = parse([
      '<device><name>EDGE</name><access>read-only</access><protection>n</protection><size>8</size>',
      '<peripherals><peripheral><name>P</name><baseAddress>0x1000</baseAddress><protection>p</protection><registers>',
      '<cluster><name>C</name><addressOffset>0</addressOffset><size>16</size>',
      '<register><name>R</name><addressOffset>0</addressOffset><access>write-only</access></register>',
      '</cluster>',
      '<register><name>S</name><addressOffset>8</addressOffset><protection>s</protection><access></access></register>',
      '</registers></peripheral></peripherals></device>'
    ])
    expect(r.get('P.C.R')).toMatchObject({ size: 16, access: 'write-only', protection: 'p' })
    expect(r.get('P.S')).toMatchObject({ size: 8, access: 'read-only', protection: 's' })
    const bare = parse(device('<register><name>R</name><addressOffset>0</addressOffset><protection></protection></register>'))
    expect(bare.get('P.R')).not.toHaveProperty('protection')
  })
})

describe('svd edges: more of the rules', () => {
  it('register sizes that are no multiple of 4 bits: as many hex digits as the bits need; no size, the digits the value needs', () => {
    const r = parse(
      device(
        '<register><name>T</name><addressOffset>0</addressOffset><size>10</size><resetValue>0x3FF</resetValue></register>',
        '<register><name>N</name><addressOffset>4</addressOffset><size>9</size><resetValue>1</resetValue></register>',
        '<register><name>U</name><addressOffset>8</addressOffset><resetValue>0x5</resetValue></register>'
      )
    )
    expect(['P.T', 'P.N', 'P.U'].map((n) => r.get(n).resetValue)).toEqual(['0x3FF', '0x001', '0x5'])
  })

  it('numbers: a bare scale letter, 2^53 and beyond, and 1e20 are no usable numbers', () => {
    const r = parse(
      device(
        '<register><name>K</name><addressOffset>k</addressOffset></register>',
        '<register><name>BIG</name><addressOffset>0x20000000000000</addressOffset></register>',
        '<register><name>E</name><addressOffset>0</addressOffset><size>64</size><resetValue>1e20</resetValue></register>'
      )
    )
    expect(problems(r)).toEqual([
      [4, 'register K has no addressOffset'],
      [5, 'register BIG has no addressOffset']
    ])
    expect(r.get('P.E').resetValue).toBeNull()
  })

  it('empty descriptions and group names are absent, not empty; a dim’d field without a description has none', () => {
    const r = parse([
      '<device><name>EDGE</name><peripherals>',
      '<peripheral><name>P</name><description></description><groupName></groupName><baseAddress>0x1000</baseAddress><registers>',
      '<register><name>R</name><description></description><addressOffset>0</addressOffset><fields>',
      '<field><name>F</name><description></description><bitOffset>0</bitOffset><bitWidth>1</bitWidth></field>',
      '<field><dim>2</dim><dimIncrement>1</dimIncrement><name>G%s</name><bitOffset>1</bitOffset><bitWidth>1</bitWidth></field>',
      '</fields></register></registers></peripheral></peripherals></device>'
    ])
    expect(r.problems).toEqual([])
    expect(r.get('P')).toStrictEqual({ baseAddress: '0x00001000', description: null, interrupts: [] })
    expect(r.get('P.R').description).toBeNull()
    expect(r.get('P.R.F').description).toBeNull()
    expect(r.get('P.R.G1')).toEqual({ bitOffset: 2, bitWidth: 1, access: null, description: null, enumeratedValues: [] })
  })

  it('a problem inside an element walked once per array element or derived copy is reported once', () => {
    const r = parse([
      '<device><name>EDGE</name><peripherals>',
      '<peripheral><name>A</name><baseAddress>0x1000</baseAddress><registers>',
      '<cluster><dim>3</dim><dimIncrement>0x10</dimIncrement><name>C%s</name><addressOffset>0</addressOffset>',
      '<register><name>NOOFF</name></register>',
      '<register><name>OK</name><addressOffset>0</addressOffset></register>',
      '</cluster></registers></peripheral>',
      '<peripheral derivedFrom="A"><name>B</name><baseAddress>0x2000</baseAddress></peripheral>',
      '</peripherals></device>'
    ])
    expect(problems(r)).toEqual([[4, 'register NOOFF has no addressOffset']])
    expect(r.facts.filter((f) => f.name.endsWith('.OK')).map((f) => [f.name, f.value.address])).toEqual([
      ['A.C0.OK', '0x00001000'],
      ['A.C1.OK', '0x00001010'],
      ['A.C2.OK', '0x00001020'],
      ['B.C0.OK', '0x00002000'],
      ['B.C1.OK', '0x00002010'],
      ['B.C2.OK', '0x00002020']
    ])
  })

  it('derivedFrom: a chain declared in reverse, a dim’d peripheral by its written name, itself, and the first of two same names', () => {
    const r = parse([
      '<device><name>EDGE</name><peripherals>',
      '<peripheral derivedFrom="B"><name>C</name><baseAddress>0x3000</baseAddress></peripheral>',
      '<peripheral derivedFrom="A"><name>B</name><baseAddress>0x2000</baseAddress></peripheral>',
      '<peripheral><name>A</name><baseAddress>0x1000</baseAddress><size>8</size><registers><register><name>R</name><addressOffset>1</addressOffset></register></registers></peripheral>',
      '<peripheral><dim>2</dim><dimIncrement>0x100</dimIncrement><name>U%s</name><baseAddress>0x4000</baseAddress><registers><register><name>D</name><addressOffset>4</addressOffset></register></registers></peripheral>',
      '<peripheral derivedFrom="U%s"><name>V</name><baseAddress>0x5000</baseAddress></peripheral>',
      '<peripheral derivedFrom="Z"><name>Z</name><baseAddress>0x6000</baseAddress></peripheral>',
      '<peripheral><name>A</name><baseAddress>0x7000</baseAddress></peripheral>',
      '<peripheral derivedFrom="A"><name>W</name><baseAddress>0x8000</baseAddress></peripheral>',
      '<x-note>not a peripheral</x-note>',
      '</peripherals></device>'
    ])
    expect(problems(r)).toEqual([[7, 'peripheral Z: derivedFrom Z not found']])
    expect(r.get('C.R')).toMatchObject({ address: '0x00003001', size: 8 })
    expect(r.get('V.D').address).toBe('0x00005004')
    // W derives from the first A (with R); the second A is a duplicate name and gives no fact.
    expect(r.get('W.R').address).toBe('0x00008001')
    expect(r.facts.filter((f) => f.name === 'A').map((f) => f.value.baseAddress)).toEqual(['0x00001000'])
  })

  it('enumerated values: the first set of a name in the file; two sets deriving from each other are a problem, not a loop', () => {
    const r = parse([
      '<device><name>EDGE</name><peripherals>',
      '<peripheral><name>P1</name><baseAddress>0x1000</baseAddress><registers><register><name>R</name><addressOffset>0</addressOffset><fields>',
      '<field><name>F</name><bitOffset>0</bitOffset><bitWidth>1</bitWidth><enumeratedValues><name>Mode</name><enumeratedValue><name>ON</name><value>1</value></enumeratedValue></enumeratedValues></field>',
      '</fields></register></registers></peripheral>',
      '<peripheral><name>P2</name><baseAddress>0x2000</baseAddress><registers><register><name>R</name><addressOffset>0</addressOffset><fields>',
      '<field><name>F</name><bitOffset>0</bitOffset><bitWidth>1</bitWidth><enumeratedValues><name>Mode</name><enumeratedValue><name>OFF</name><value>0</value></enumeratedValue></enumeratedValues></field>',
      '</fields></register></registers></peripheral>',
      '<peripheral><name>Q</name><baseAddress>0x3000</baseAddress><registers><register><name>S</name><addressOffset>0</addressOffset><fields>',
      '<field><name>G</name><bitOffset>0</bitOffset><bitWidth>1</bitWidth><enumeratedValues derivedFrom="Mode"/></field>',
      '<field><name>H</name><bitOffset>1</bitOffset><bitWidth>1</bitWidth><enumeratedValues derivedFrom="E2"><name>E1</name></enumeratedValues></field>',
      '<field><name>I</name><bitOffset>2</bitOffset><bitWidth>1</bitWidth><enumeratedValues derivedFrom="E1"><name>E2</name></enumeratedValues></field>',
      '</fields></register></registers></peripheral>',
      '</peripherals></device>'
    ])
    expect(r.get('Q.S.G').enumeratedValues).toEqual([{ name: 'ON', value: 1, description: null }])
    expect(r.get('Q.S.H').enumeratedValues).toEqual([])
    expect(r.get('Q.S.I').enumeratedValues).toEqual([])
    expect(r.problems.length).toBeGreaterThan(0)
    for (const p of r.problems) expect(p.reason).toMatch(/^enumeratedValues derivedFrom E[12] not found$/)
  })

  it('parse statistics count the names given twice; the adapter parses each file on its own', () => {
    const content = Buffer.from(device('<register><name>R</name><addressOffset>0</addressOffset></register>', '<register><name>R</name><addressOffset>4</addressOffset></register>').join('\n'))
    const a: LoadedArtifact = { path: 'svd/Acme/dup.svd', sha256: SHA, bytes: content.length, kind: 'cmsis-svd', publisher: 'Acme', license: 'MIT', mediaType: 'application/xml', content }
    const stats = { duplicateNames: 0 }
    const r = parseSvd(a, stats)
    expect(stats.duplicateNames).toBe(1)
    expect(r.facts.map((f) => [f.name, f.value.address])).toEqual([
      ['P', undefined],
      ['P.R', '0x00001000']
    ])
    // Files of other devices are units of their own; files naming one device are one unit (merge.ts).
    const otherContent = Buffer.from(content.toString().replace('<name>EDGE</name>', '<name>OTHER</name>'))
    const b = { ...a, path: 'svd/Acme/other.svd', content: otherContent }
    const c = { ...a, path: 'svd/Acme2/dup.svd' }
    expect(svdAdapter.units!([a, b, c])).toEqual([[a, c], [b]])
    // The device's name as files write it: attributes on <device>, other elements and line breaks before <name>.
    const written = { ...a, path: 'svd/Acme/written.svd', content: Buffer.from(content.toString().replace('<device><name>EDGE</name>', '<device schemaVersion="1.3" xmlns:xs="http://www.w3.org/2001/XMLSchema-instance">\n  <vendor>Acme</vendor>\n  <name> EDGE </name>')) }
    expect(svdAdapter.units!([a, b, written])).toEqual([[a, written], [b]])
  })

  it('several <registers>, <fields> and <peripherals> blocks are one list each, in document order; a name repeated across blocks is a duplicate', () => {
    // The same lines twice: once as single blocks, once with blocks closed and reopened at line
    // ends, so every element keeps its line and the two readings must agree fact for fact.
    const body = (split: boolean) => {
      const regs = split ? '</registers><registers>' : ''
      const fields = split ? '</fields><fields>' : ''
      const periphs = split ? '</peripherals><peripherals>' : ''
      return [
        '<device><name>EDGE</name>',
        '<peripherals><peripheral><name>P</name><baseAddress>0x1000</baseAddress>',
        '<registers>',
        '<register><name>A</name><addressOffset>0</addressOffset></register>' + regs,
        '<register><name>B</name><addressOffset>4</addressOffset><fields>',
        '<field><name>F0</name><bitOffset>0</bitOffset><bitWidth>1</bitWidth></field>' + fields,
        '<field><name>F1</name><bitOffset>1</bitOffset><bitWidth>3</bitWidth></field>',
        '</fields></register>',
        '<cluster><name>C</name><addressOffset>0x10</addressOffset><register><name>R</name><addressOffset>4</addressOffset></register></cluster>',
        '<register><name>A</name><addressOffset>8</addressOffset></register>' + regs,
        '<register derivedFrom="B"><name>D</name><addressOffset>0x20</addressOffset></register>',
        '</registers></peripheral>' + periphs,
        '<peripheral><name>Q</name><baseAddress>0x2000</baseAddress><registers><register derivedFrom="P.F1"><name>Z</name><addressOffset>0</addressOffset></register></registers></peripheral>',
        '</peripherals></device>'
      ]
    }
    const stats = { duplicateNames: 0 }
    const content = Buffer.from(body(true).join('\n'))
    const split = parseSvd({ path: 'svd/Acme/edge.svd', sha256: SHA, bytes: content.length, kind: 'cmsis-svd', publisher: 'Acme', license: 'MIT', mediaType: 'application/xml', content }, stats)
    // Worked out from the lines: A at 0x1000 (the second A, line 10, is dropped), B at +4 with F0
    // and F1 from two <fields> blocks, C.R at 0x10 + 4, D a copy of B (declared two blocks later)
    // at 0x20; Q from the second <peripherals> block, its Z deriving from a base that does not exist.
    expect(split.facts.map((f) => [f.name, f.value.address ?? f.value.bitOffset ?? null])).toEqual([
      ['P', null],
      ['P.A', '0x00001000'],
      ['P.B', '0x00001004'],
      ['P.B.F0', 0],
      ['P.B.F1', 1],
      ['P.C.R', '0x00001014'],
      ['P.D', '0x00001020'],
      ['P.D.F0', 0],
      ['P.D.F1', 1],
      ['Q', null]
    ])
    expect(stats.duplicateNames).toBe(1)
    expect(problems(split)).toEqual([[13, 'register Z: derivedFrom P.F1 not found']])
    expect(split.facts.find((f) => f.name === 'P.D')?.evidence.map((e) => e.locator)).toEqual([
      'line 11: /device/peripherals/peripheral[name=P]/registers/register[name=D]',
      'line 5: /device/peripherals/peripheral[name=P]/registers/register[name=B]',
      'line 2: /device/peripherals/peripheral[name=P]/baseAddress'
    ])
    // Only the excerpts, which quote the lines as written, may differ.
    const unquoted = (r: AdapterResult) => r.facts.map((f) => ({ ...f, evidence: f.evidence.map(({ excerpt: _, ...e }) => e) }))
    const whole = parse(body(false))
    expect(unquoted(split)).toEqual(unquoted(whole))
    expect(split.problems).toEqual(whole.problems)
  })

  it('a bitRange not written [msb:lsb] gives no bit position', () => {
    const r = parse(device('<register><name>R</name><addressOffset>0</addressOffset><fields><field><name>F</name><bitRange>7]</bitRange></field></fields></register>'))
    expect(problems(r)).toEqual([[4, 'field F has no bit position']])
  })
})
