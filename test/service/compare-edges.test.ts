import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { countTokens } from 'gpt-tokenizer/encoding/cl100k_base'
import { buildRelease } from '../../indexer/build.js'
import type { ComparePartsParams, CompareReleasesParams } from '../../src/schemas/compare.js'
import { compareOf, type Compare } from '../../src/service/compare.js'
import { HardwareFacts } from '../../src/service/facts.js'
import { DataDir } from '../../src/store/layout.js'
import { SqliteRepository } from '../../src/store/sqlite/store.js'
import { buildInputsDigest } from '../helpers/corpus-release.js'

/*
 * Comparisons on two tiny hand-written releases (one SVD part, two or three STM32 MCU files each),
 * so a mutant's run takes about a second. Every expected value is read off the inline files below:
 * release A → B changes QZ7101's UART.CTRL reset mask and UART.CTRL.EN's width and access, removes UART.DATA,
 * adds UART.STAT, gives STM32QAUx a GPIO IP (USART1_TX on PA10 as AF7) and USART1_RX on PA11, and widens
 * STM32Q(A-B)Tx to STM32Q(A-B-C)Tx (its facts' scope.parts gain STM32QCTx, values unchanged).
 */

type Obj = Record<string, any>

const svd = (name: string, base: string, mask: string, enOffset: number, extra: string, ctrl = '', en = '<bitWidth>1</bitWidth>') => `<?xml version="1.0" encoding="utf-8"?>
<device schemaVersion="1.3">
  <vendor>Quazar Microdevices</vendor>
  <name>${name}</name>
  <addressUnitBits>8</addressUnitBits>
  <width>32</width>
  <size>32</size>
  <peripherals>
    <peripheral>
      <name>UART</name>
      <baseAddress>${base}</baseAddress>
      <registers>
        <register>
          <name>CTRL</name>
          <addressOffset>0x0</addressOffset>
          <resetValue>0x00000000</resetValue>
          <resetMask>${mask}</resetMask>${ctrl}
          <fields><field><name>EN</name><bitOffset>${enOffset}</bitOffset>${en}</field></fields>
        </register>${extra}
      </registers>
    </peripheral>
  </peripherals>
</device>
`
const DATA = '<register><name>DATA</name><addressOffset>0x4</addressOffset></register>'
const STAT = '<register><name>STAT</name><addressOffset>0x8</addressOffset></register>'
const mcu = (ref: string, pkg: string, vmin: string, pin: string, ip = '') => `<Mcu RefName="${ref}" Package="${pkg}" Family="STM32Q" Line="STM32Qx">
<Core>Arm Cortex-M0</Core>${ip}
<Frequency>48</Frequency>
<Flash>16</Flash>
<Ram>4</Ram>
<Voltage Max="3.6" Min="${vmin}"/>
<Pin Name="${pin}" Position="1" Type="I/O"><Signal Name="USART1_TX"/></Pin>
</Mcu>
`
const QZ = 'svd/Quazar/QZ7101.svd'
const QAB = 'pins/stm32/mcu/STM32Q(A-B)Tx.xml'
const QAU = 'pins/stm32/mcu/STM32QAUx.xml'
const A: Record<string, string> = {
  [QZ]: svd('QZ7101', '0x40000000', '0xFFFFFFFF', 0, DATA),
  [QAB]: mcu('STM32Q(A-B)Tx', 'QFN8', '1.7', 'PA9'),
  [QAU]: mcu('STM32QAUx', 'UFQFPN20', '1.7', 'PA9')
}
const B: Record<string, string> = {
  [QZ]: svd('QZ7101', '0x40000000', '0x0000FFFF', 0, STAT, '', '<bitWidth>2</bitWidth><access>read-write</access>'),
  'svd/Quazar/QZ7102.svd': svd(
    'QZ7102',
    '0x40001000',
    '0xFFFFFFFF',
    1,
    DATA + '<register><name>STAT</name><addressOffset>0xC</addressOffset><size>16</size><resetValue>0x1</resetValue></register>',
    '<access>read-only</access>',
    '<bitWidth>2</bitWidth><access>read-write</access>'
  ),
  [QAB]: mcu('STM32Q(A-B-C)Tx', 'QFN8', '1.7', 'PA9'),
  [QAU]: mcu('STM32QAUx', 'UFQFPN20', '2.0', 'PA10', '\n<IP Name="GPIO" Version="Q_gpio"/>\n<Pin Name="PA11" Position="2" Type="I/O"><Signal Name="USART1_RX"/></Pin>'),
  // USART1_TX is alternate function 7 on PA10 of the parts using this GPIO IP.
  'pins/stm32/mcu/IP/GPIO-Q_gpio_Modes.xml':
    '<IP Name="GPIO"><GPIO_Pin Name="PA10"><PinSignal Name="USART1_TX"><SpecificParameter Name="GPIO_AF"><PossibleValue>GPIO_AF7_USART1</PossibleValue></SpecificParameter></PinSignal></GPIO_Pin></IP>'
}
const sha = (text: string) => createHash('sha256').update(text).digest('hex')

function corpus(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'hwfacts-cmp-corpus-'))
  const sources = Object.entries(files).map(([path, content]) => {
    mkdirSync(dirname(join(dir, path)), { recursive: true })
    writeFileSync(join(dir, path), content)
    const kind = path.startsWith('svd/') ? 'cmsis-svd' : path.includes('/IP/') ? 'stm32-pin-data-gpio-modes' : 'stm32-pin-data-mcu'
    return { path, sha256: sha(content), bytes: Buffer.byteLength(content), kind, publisher: 'Quazar Microdevices', license: 'CC0-1.0', mediaType: 'application/xml' }
  })
  writeFileSync(join(dir, 'sources.json'), JSON.stringify({ sources }))
  return dir
}

/**
 * Both releases in one data directory, kept in the temp directory under the digest of the files and
 * the indexer: built once (a mutation run re-runs this file for every mutant, and compare.ts plays
 * no part in building).
 */
async function releases(): Promise<{ dir: string; a: string; b: string }> {
  const dir = join(tmpdir(), `hwfacts-compare-edges-${sha(JSON.stringify([A, B]) + buildInputsDigest()).slice(0, 16)}`)
  const ids = join(dir, 'ids.json')
  if (!existsSync(ids)) {
    const work = mkdtempSync(join(tmpdir(), 'hwfacts-cmp-build-'))
    const inputs = [corpus(A), corpus(B)]
    try {
      const [a, b] = [(await buildRelease({ inventory: inputs[0]!, dataDir: work })).id, (await buildRelease({ inventory: inputs[1]!, dataDir: work })).id]
      writeFileSync(join(work, 'ids.json'), JSON.stringify({ a, b }))
      try {
        renameSync(work, dir)
      } catch {
        rmSync(work, { recursive: true, force: true }) // built by another run meanwhile
      }
    } finally {
      for (const d of inputs) rmSync(d, { recursive: true, force: true })
    }
  }
  return { dir, ...(JSON.parse(readFileSync(ids, 'utf8')) as { a: string; b: string }) }
}

let repo: SqliteRepository
let facts: HardwareFacts
let compare: Compare
let data: DataDir
let a: string
let b: string

beforeAll(async () => {
  const r = await releases()
  ;({ a, b } = r)
  data = new DataDir(r.dir)
  data.promote(b)
  repo = new SqliteRepository(r.dir)
  facts = new HardwareFacts(repo, 'compare-edges-secret')
  compare = compareOf(facts)
})
afterAll(() => repo?.close())

const rel = async (p: Partial<CompareReleasesParams>): Promise<Obj> => JSON.parse(await compare.releases({ from_release: a, to_release: b, ...p } as CompareReleasesParams))
const parts = async (p: Partial<ComparePartsParams>): Promise<Obj> => JSON.parse(await compare.parts({ corpus_release: b, ...p } as ComparePartsParams))
const brief = (changes: Obj[]) => changes.map((c) => [c.change, c.name, c.changedMembers, c.from?.value ?? null, c.to?.value ?? null])

describe('compare releases on two tiny releases', () => {
  it('registers: a changed reset mask alone is a change of resetMask; a removed and an added register', async () => {
    const j = await rel({ part: 'QZ7101', topic: 'registers' })
    expect(j.status).toBe('ok')
    // UART is the same in both files; CTRL differs in <resetMask> only, EN in width and access (named in name order).
    expect(j.counts).toEqual({ added: 1, removed: 1, changed: 2, unchanged: 1 })
    const ctrl = (mask: string) => ({ address: '0x40000000', offset: '0x0', size: 32, resetValue: '0x00000000', resetMask: mask, access: null, description: null })
    const reg = (offset: string) => ({ address: `0x4000000${offset.slice(-1)}`, offset, size: 32, resetValue: null, resetMask: null, access: null, description: null })
    expect(brief(j.changes)).toEqual([
      ['changed', 'UART.CTRL', ['resetMask'], ctrl('0xFFFFFFFF'), ctrl('0x0000FFFF')],
      ['changed', 'UART.CTRL.EN', ['access', 'bitWidth'], { bitOffset: 0, bitWidth: 1, access: null, description: null, enumeratedValues: [] }, { bitOffset: 0, bitWidth: 2, access: 'read-write', description: null, enumeratedValues: [] }],
      ['removed', 'UART.DATA', [], reg('0x4'), null],
      ['added', 'UART.STAT', [], null, reg('0x8')]
    ])
    expect(j.artifacts).toEqual([{ path: QZ, status: 'changed', fromSha256: sha(A[QZ]!), toSha256: sha(B[QZ]!) }])
    expect(j.from).toMatchObject({ part: 'QZ7101', release: a, status: 'resolved', target: { key: 'svd:Quazar/QZ7101', source: { path: QZ, sha256: sha(A[QZ]!) } } })
    expect(j.to).toMatchObject({ part: 'QZ7101', release: b, status: 'resolved', target: { key: 'svd:Quazar/QZ7101', source: { path: QZ, sha256: sha(B[QZ]!) } } })
  })

  it('electrical: a fact whose value is the same but whose scope.parts grew is changed in scope, and only scope', async () => {
    const j = await rel({ part: 'STM32QAT', topic: 'electrical' })
    expect(j.status).toBe('ok')
    // <Frequency>, <Voltage Max> and <Voltage Min> are the same; RefName STM32Q(A-B)Tx became STM32Q(A-B-C)Tx.
    expect(j.counts).toEqual({ added: 0, removed: 0, changed: 3, unchanged: 0 })
    expect(j.changes.map((c: Obj) => [c.name, c.changedMembers])).toEqual([
      ['clock.cpu.max', ['scope']],
      ['supply.vdd.max', ['scope']],
      ['supply.vdd.min', ['scope']]
    ])
    for (const c of j.changes) {
      expect(c.from.scope.parts).toEqual(['STM32QATx', 'STM32QBTx'])
      expect(c.to.scope.parts).toEqual(['STM32QATx', 'STM32QBTx', 'STM32QCTx'])
      expect(c.to.value).toEqual(c.from.value)
    }
    // A file whose bytes did not change is unchanged, fact for fact, and its artifact too.
    const same = await rel({ part: 'QZ7101', topic: 'registers', to_release: a })
    expect(same.counts).toEqual({ added: 0, removed: 0, changed: 0, unchanged: 4 })
    expect(same.changes).toEqual([])
    expect(same.artifacts).toEqual([{ path: QZ, status: 'unchanged', fromSha256: sha(A[QZ]!), toSha256: sha(A[QZ]!) }])
  })

  it('pins: matched by name and package; the package is named', async () => {
    const j = await rel({ part: 'STM32QAT', topic: 'pins' })
    expect(j.status).toBe('ok')
    expect(j.counts).toEqual({ added: 0, removed: 0, changed: 1, unchanged: 0 })
    expect(j.changes.map((c: Obj) => [c.change, c.name, c.package, c.changedMembers])).toEqual([['changed', 'PA9', 'QFN8', ['scope']]])
    expect(j.artifacts).toEqual([{ path: QAB, status: 'changed', fromSha256: sha(A[QAB]!), toSha256: sha(B[QAB]!) }])
    // Pins are per package: the side names the one it compared.
    expect(j.from.target).toEqual({ key: 'stm32:STM32Q(A-B)Tx', device: 'STM32Q(A-B)Tx', package: 'QFN8', source: { path: QAB, sha256: sha(A[QAB]!) } })
    expect((await rel({ part: 'QZ7101', topic: 'registers' })).from.target).toEqual({ key: 'svd:Quazar/QZ7101', device: 'QZ7101', source: { path: QZ, sha256: sha(A[QZ]!) } })
  })

  it('filters narrow both sides and are echoed as given', async () => {
    const j = await rel({ part: 'QZ7101', topic: 'registers', peripheral: 'uart', fact_names: 'uart.stat', fact_name_prefixes: 'UART.DA' })
    expect(j.filters).toEqual({ factNames: ['uart.stat'], factNamePrefixes: ['UART.DA'], peripheral: 'UART' })
    expect(j.changes.map((c: Obj) => [c.change, c.name])).toEqual([
      ['removed', 'UART.DATA'],
      ['added', 'UART.STAT']
    ])
    expect(j.counts).toEqual({ added: 1, removed: 1, changed: 0, unchanged: 0 })
    const none = await rel({ part: 'QZ7101', topic: 'registers', fact_names: 'UART' })
    expect(none.counts).toEqual({ added: 0, removed: 0, changed: 0, unchanged: 1 })
    expect(none.changes).toEqual([])
    expect(none.notes).toEqual(['No differences match these filters.'])
    // No fact selected: the artifacts are still the targets' sources.
    const nothing = await rel({ part: 'QZ7101', topic: 'registers', fact_names: 'NOPE' })
    expect(nothing.artifacts).toEqual([{ path: QZ, status: 'changed', fromSha256: sha(A[QZ]!), toSha256: sha(B[QZ]!) }])
    // A cursor is bound to its filters: names joined differently are another comparison.
    const two = await rel({ part: 'QZ7101', topic: 'registers', fact_names: 'UART.CTRL,UART.DATA', limit: 1 })
    await expect(rel({ part: 'QZ7101', topic: 'registers', fact_names: 'UART.CTRLUART.DATA', limit: 1, cursor: two.page.nextCursor })).rejects.toMatchObject({ code: 'INVALID_CURSOR' })
    const pre = await rel({ part: 'QZ7101', topic: 'registers', fact_name_prefixes: 'UART.C,UART.D', limit: 1 })
    await expect(rel({ part: 'QZ7101', topic: 'registers', fact_name_prefixes: 'UART.CUART.D', limit: 1, cursor: pre.page.nextCursor })).rejects.toMatchObject({ code: 'INVALID_CURSOR' })
  })

  it('an artifact only one release has is added or removed, sorted by path', async () => {
    const modes = 'pins/stm32/mcu/IP/GPIO-Q_gpio_Modes.xml'
    const j = await rel({ part: 'STM32QAU', topic: 'pins' })
    expect(j.artifacts).toEqual([
      { path: modes, status: 'added', fromSha256: null, toSha256: sha(B[modes]!) },
      { path: QAU, status: 'changed', fromSha256: sha(A[QAU]!), toSha256: sha(B[QAU]!) }
    ])
    expect(j.changes.map((c: Obj) => [c.change, c.name, c.package])).toEqual([
      ['removed', 'PA9', 'UFQFPN20'],
      ['added', 'PA10', 'UFQFPN20'],
      ['added', 'PA11', 'UFQFPN20']
    ].sort((x, y) => (x[1]! < y[1]! ? -1 : 1)))
    const back = await rel({ part: 'STM32QAU', topic: 'pins', from_release: b, to_release: a })
    expect(back.artifacts).toEqual([
      { path: modes, status: 'removed', fromSha256: sha(B[modes]!), toSha256: null },
      { path: QAU, status: 'changed', fromSha256: sha(B[QAU]!), toSha256: sha(A[QAU]!) }
    ])
  })

  it('refusals name their parameter', async () => {
    const no = (p: Promise<unknown>, param: string, code = 'INVALID_PARAMETER') => expect(p).rejects.toMatchObject({ code, param })
    await no(rel({ part: 'QZ7101', topic: 'registers', fact_names: ',' }), 'fact_names')
    await no(rel({ part: 'QZ7101', topic: 'registers', fact_name_prefixes: ',' }), 'fact_name_prefixes')
    await no(parts({ part: 'QZ7101', other: 'QZ7102', topic: 'registers', fact_names: ',' }), 'fact_names')
    await no(parts({ part: 'QZ7101', other: 'QZ7102', topic: 'registers', fact_name_prefixes: ',' }), 'fact_name_prefixes')
    await no(rel({ part: 'QZ7101', topic: 'registers', from_release: 'ffffffffffffffff' }), 'from_release', 'UNKNOWN_CORPUS_RELEASE')
    await no(rel({ part: 'QZ7101', topic: 'registers', to_release: 'ffffffffffffffff' }), 'to_release', 'UNKNOWN_CORPUS_RELEASE')
    await no(parts({ part: 'QZ7101', other: 'QZ7102', topic: 'registers', corpus_release: 'ffffffffffffffff' }), 'corpus_release', 'UNKNOWN_CORPUS_RELEASE')
  })

  it('an added part: not found in the old release, nothing compared', async () => {
    const j = await rel({ part: 'QZ7102', topic: 'registers' })
    expect(j.status).toBe('not_found')
    expect(j.from).toMatchObject({ part: 'QZ7102', release: a, status: 'not_found', target: null })
    expect(j.to).toMatchObject({ status: 'resolved', release: b })
    expect(j.changes).toEqual([])
    expect(j.artifacts).toEqual([])
    expect(j.counts).toEqual({ added: 0, removed: 0, changed: 0, unchanged: 0 })
    expect(j.notes).toEqual(['A part did not resolve to one target in both releases: nothing compared; see from/to.'])
  })

  it('a repeated request without to_release answers from the release promoted now, not from the page kept for the last one', async () => {
    const p = { part: 'QZ7101', topic: 'registers' as const, to_release: undefined }
    expect((await rel(p)).to.release).toBe(b)
    data.promote(a)
    try {
      await new Promise((r) => setTimeout(r, 1100)) // the repository re-reads the pointer once a second
      const j = await rel(p)
      expect(j.to.release).toBe(a)
      expect(j.counts).toEqual({ added: 0, removed: 0, changed: 0, unchanged: 4 })
      const q = await parts({ part: 'QZ7101', other: 'QZ7101', topic: 'registers', corpus_release: undefined })
      expect(q.release).toBe(a)
    } finally {
      data.promote(b)
    }
    await new Promise((r) => setTimeout(r, 1100))
    expect((await parts({ part: 'QZ7101', other: 'QZ7101', topic: 'registers', corpus_release: undefined })).release).toBe(b)
  })
})

describe('compare parts on a tiny release', () => {
  it('registers: each kind compared on its own members, in name order', async () => {
    const j = await parts({ part: 'QZ7101', other: 'QZ7102', topic: 'registers' })
    expect(j.status).toBe('ok')
    expect(j.release).toBe(b)
    // QZ7102: UART at 0x40001000; CTRL read-only, mask 0xFFFFFFFF (QZ7101 in B: 0x0000FFFF); EN at bit 1 (QZ7101: 0);
    // STAT at 0xC, 16 bits, reset 0x1 (written as 0x0001: hex digits for the register's 16 bits; QZ7101: 0x8, the
    // device's 32, none); DATA only there.
    expect(j.counts).toEqual({ onlyPart: 0, onlyOther: 1, differs: 4, same: 0 })
    const d = (member: string, part: unknown, other: unknown) => ({ member, part, other })
    expect(j.entries.map((e: Obj) => [e.name, e.kind, e.status, e.differences])).toEqual([
      ['UART', 'peripheral', 'differs', [d('baseAddress', '0x40000000', '0x40001000')]],
      ['UART.CTRL', 'register', 'differs', [d('address', '0x40000000', '0x40001000'), d('resetMask', '0x0000FFFF', '0xFFFFFFFF'), d('access', null, 'read-only')]],
      ['UART.CTRL.EN', 'field', 'differs', [d('bitOffset', 0, 1)]],
      ['UART.DATA', 'register', 'only_other', []],
      ['UART.STAT', 'register', 'differs', [d('address', '0x40000008', '0x4000100C'), d('offset', '0x8', '0xC'), d('size', 32, 16), d('resetValue', null, '0x0001')]]
    ])
    expect(j.entries[3].part).toBeNull()
    expect(j.entries[3].other.name).toBe('UART.DATA')
    const back = await parts({ part: 'QZ7102', other: 'QZ7101', topic: 'registers', fact_names: 'uart.data' })
    expect(back.entries.map((e: Obj) => [e.name, e.status, e.part.name, e.other])).toEqual([['UART.DATA', 'only_part', 'UART.DATA', null]])
    expect(back.counts).toEqual({ onlyPart: 1, onlyOther: 0, differs: 0, same: 0 })
    // One peripheral: its registers and fields, the peripheral itself too.
    const uart = await parts({ part: 'QZ7101', other: 'QZ7102', topic: 'registers', peripheral: 'uart', fact_names: 'UART.CTRL,UART.DATA' })
    expect(uart.filters).toEqual({ factNames: ['UART.CTRL', 'UART.DATA'], peripheral: 'UART', includeSame: false })
    expect(uart.entries.map((e: Obj) => e.name)).toEqual(['UART.CTRL', 'UART.DATA'])
    expect(uart.counts).toEqual({ onlyPart: 0, onlyOther: 1, differs: 1, same: 0 })
    const pre = await parts({ part: 'QZ7101', other: 'QZ7102', topic: 'registers', fact_name_prefixes: 'uart.ctrl' })
    expect(pre.filters).toEqual({ factNamePrefixes: ['uart.ctrl'], includeSame: false })
    expect(pre.entries.map((e: Obj) => e.name)).toEqual(['UART.CTRL', 'UART.CTRL.EN'])
    // The same part on both sides: everything same, listed only when asked.
    const self = await parts({ part: 'QZ7101', other: 'QZ7101', topic: 'registers', include_same: true })
    expect(self.entries.map((e: Obj) => [e.name, e.status, e.differences])).toEqual(['UART', 'UART.CTRL', 'UART.CTRL.EN', 'UART.STAT'].map((n) => [n, 'same', []]))
  })

  it('pages with a cursor bound to its comparison and release', async () => {
    const whole = await parts({ part: 'QZ7101', other: 'QZ7102', topic: 'registers' })
    const names: string[] = []
    let cursor: string | undefined
    let pages = 0
    do {
      const j = await parts({ part: 'QZ7101', other: 'QZ7102', topic: 'registers', limit: 2, ...(cursor ? { cursor, corpus_release: undefined } : {}) })
      expect(j.counts).toEqual(whole.counts)
      names.push(...j.entries.map((e: Obj) => e.name))
      cursor = j.page.nextCursor ?? undefined
      pages++
    } while (cursor)
    expect(pages).toBe(3)
    expect(names).toEqual(whole.entries.map((e: Obj) => e.name))
    const first = await parts({ part: 'QZ7101', other: 'QZ7102', topic: 'registers', limit: 2 })
    const next = first.page.nextCursor as string
    await expect(parts({ part: 'QZ7101', other: 'QZ7101', topic: 'registers', limit: 2, cursor: next })).rejects.toMatchObject({ code: 'INVALID_CURSOR', param: 'cursor', message: 'The cursor belongs to a different comparison.' })
    await expect(parts({ part: 'QZ7101', other: 'QZ7102', topic: 'registers', limit: 2, cursor: next, corpus_release: a })).rejects.toMatchObject({ code: 'INVALID_CURSOR', param: 'cursor' })

    const r1 = await rel({ part: 'QZ7101', topic: 'registers', limit: 2 })
    expect(r1.changes.map((c: Obj) => c.name)).toEqual(['UART.CTRL', 'UART.CTRL.EN'])
    const rc = r1.page.nextCursor as string
    // The cursor pins the to-release: without to_release it continues there, with another one it is refused.
    const r2 = await rel({ part: 'QZ7101', topic: 'registers', limit: 2, cursor: rc, to_release: undefined })
    expect(r2.changes.map((c: Obj) => c.name)).toEqual(['UART.DATA', 'UART.STAT'])
    expect(r2.to.release).toBe(b)
    await expect(rel({ part: 'QZ7101', topic: 'registers', limit: 2, cursor: rc, to_release: a })).rejects.toMatchObject({ code: 'INVALID_CURSOR', param: 'cursor' })
    await expect(rel({ part: 'STM32QAT', topic: 'electrical', limit: 2, cursor: rc })).rejects.toMatchObject({ code: 'INVALID_CURSOR', param: 'cursor' })
  })

  it('electrical: value and unit side by side; same limits listed only with include_same', async () => {
    const j = await parts({ part: 'STM32QAT', other: 'STM32QAU', topic: 'electrical' })
    expect(j.counts).toEqual({ onlyPart: 0, onlyOther: 0, differs: 1, same: 2 })
    expect(j.entries.map((e: Obj) => [e.name, e.status, e.differences])).toEqual([['supply.vdd.min', 'differs', [{ member: 'value', part: 1.7, other: 2 }]]])
    expect(j.entries[0].kind).toBeUndefined()
    const all = await parts({ part: 'STM32QAT', other: 'STM32QAU', topic: 'electrical', include_same: true })
    expect(all.entries.map((e: Obj) => [e.name, e.status])).toEqual([
      ['clock.cpu.max', 'same'],
      ['supply.vdd.max', 'same'],
      ['supply.vdd.min', 'differs']
    ])
    expect(all.filters).toEqual({ includeSame: true })
  })

  it('pins: a signal on another pin differs, as pin lists', async () => {
    // Pin lists are made here, not stored: counted when paged, and the count is still over the whole answer.
    const rawPins = await compare.parts({ corpus_release: b, part: 'STM32QAT', other: 'STM32QAU', topic: 'pins', include_same: true } as ComparePartsParams)
    const pinsPage = (JSON.parse(rawPins) as Obj).page
    expect(pinsPage.tokens).toBeGreaterThanOrEqual(countTokens(rawPins))
    expect(pinsPage.tokens).toBeLessThanOrEqual(countTokens(rawPins) * 1.01 + 4)
    const j = await parts({ part: 'STM32QAT', other: 'STM32QAU', topic: 'pins', signal: 'usart1_tx' })
    expect(j.status).toBe('ok')
    expect(j.filters).toEqual({ signal: 'USART1_TX', includeSame: false })
    // STM32QAT's file names no GPIO IP: its pin has no AF number.
    expect(j.entries.map((e: Obj) => [e.name, e.status, e.differences])).toEqual([['USART1_TX', 'differs', [{ member: 'pins', part: ['PA9'], other: ['PA10/AF7'] }]]])
    expect(j.counts).toEqual({ onlyPart: 0, onlyOther: 0, differs: 1, same: 0 })
    const both = await parts({ part: 'STM32QAT', other: 'STM32QAU', topic: 'pins' })
    expect(both.entries.map((e: Obj) => [e.name, e.status, e.differences, e.part, e.other?.pins.map((p: Obj) => p.pin)])).toEqual([
      ['USART1_RX', 'only_other', [], null, ['PA11']],
      ['USART1_TX', 'differs', [{ member: 'pins', part: ['PA9'], other: ['PA10/AF7'] }], expect.anything(), ['PA10']]
    ])
    expect(both.counts).toEqual({ onlyPart: 0, onlyOther: 1, differs: 1, same: 0 })
    const back = await parts({ part: 'STM32QAU', other: 'STM32QAT', topic: 'pins', fact_names: 'usart1_rx' })
    expect(back.entries.map((e: Obj) => [e.name, e.status, e.differences, e.other])).toEqual([['USART1_RX', 'only_part', [], null]])
    expect(back.counts).toEqual({ onlyPart: 1, onlyOther: 0, differs: 0, same: 0 })
    const self = await parts({ part: 'STM32QAU', other: 'STM32QAU', topic: 'pins' })
    expect(self.entries).toEqual([])
    expect(self.counts).toEqual({ onlyPart: 0, onlyOther: 0, differs: 0, same: 2 })
    const selfAll = await parts({ part: 'STM32QAU', other: 'STM32QAU', topic: 'pins', include_same: true })
    expect(selfAll.entries.map((e: Obj) => [e.name, e.status, e.differences])).toEqual([
      ['USART1_RX', 'same', []],
      ['USART1_TX', 'same', []]
    ])
    expect(j.entries[0].part.pins.map((p: Obj) => [p.pin, p.position, p.af])).toEqual([['PA9', '1', null]])
    expect(j.entries[0].other.pins.map((p: Obj) => [p.pin, p.position, p.af])).toEqual([['PA10', '1', 7]])
    expect(j.entries[0].other.pins[0].evidence[0].sourcePath).toBe(QAU)
    for (const q of [{ fact_names: 'usart1_tx' }, { fact_name_prefixes: 'usart1_t' }, { fact_names: 'SPI1_SCK', fact_name_prefixes: 'usart1_t' }]) {
      const k = await parts({ part: 'STM32QAT', other: 'STM32QAU', topic: 'pins', ...q })
      expect(k.entries.map((e: Obj) => e.name)).toEqual(['USART1_TX'])
    }
    for (const q of [{ fact_names: 'usart1' }, { fact_name_prefixes: 'usart2' }, { fact_names: 'PA10' }]) {
      const k = await parts({ part: 'STM32QAT', other: 'STM32QAU', topic: 'pins', ...q })
      expect(k.entries).toEqual([])
    }
    const none = await parts({ part: 'STM32QAT', other: 'STM32QAU', topic: 'pins', signal: 'SPI1_SCK' })
    expect(none.entries).toEqual([])
    expect(none.counts).toEqual({ onlyPart: 0, onlyOther: 0, differs: 0, same: 0 })
  })

  it('the top-level status is the first refusal of: not_found, ambiguous, not_covered (either side)', async () => {
    // STM32QA names two targets (QFN8 and UFQFPN20); QZ7101 has no electrical facts; NOPE77 is no part.
    const status = async (part: string, other: string) => {
      const j = await parts({ part, other, topic: 'electrical' })
      if (j.status !== 'ok') {
        expect(j.entries).toEqual([])
        expect(j.counts).toEqual({ onlyPart: 0, onlyOther: 0, differs: 0, same: 0 })
      }
      return [j.status, j.part.status, j.other.status]
    }
    expect(await status('STM32QA', 'NOPE77')).toEqual(['not_found', 'ambiguous', 'not_found'])
    expect(await status('NOPE77', 'STM32QA')).toEqual(['not_found', 'not_found', 'ambiguous'])
    expect(await status('STM32QA', 'QZ7101')).toEqual(['ambiguous', 'ambiguous', 'not_covered'])
    expect(await status('QZ7101', 'STM32QA')).toEqual(['ambiguous', 'not_covered', 'ambiguous'])
    expect(await status('STM32QAT', 'QZ7101')).toEqual(['not_covered', 'resolved', 'not_covered'])
    expect(await status('QZ7101', 'STM32QAT')).toEqual(['not_covered', 'not_covered', 'resolved'])
    expect(await status('STM32QAT', 'STM32QAU')).toEqual(['ok', 'resolved', 'resolved'])
    const amb = await parts({ part: 'STM32QA', other: 'STM32QAT', topic: 'electrical' })
    expect(amb.part.candidates.map((c: Obj) => c.key).sort()).toEqual(['stm32:STM32Q(A-B-C)Tx', 'stm32:STM32QAUx'])
    expect(amb.notes).toEqual(['A part did not resolve to one target for this topic: nothing compared; see part/other.'])
  })

  it('signal narrows pins only, peripheral registers only', async () => {
    await expect(parts({ part: 'QZ7101', other: 'QZ7102', topic: 'registers', signal: 'X' })).rejects.toMatchObject({ code: 'INVALID_PARAMETER', param: 'signal', message: expect.stringMatching(/signal narrows pins only/) })
    await expect(parts({ part: 'STM32QAT', other: 'STM32QAU', topic: 'pins', peripheral: 'X' })).rejects.toMatchObject({ code: 'INVALID_PARAMETER', param: 'peripheral', message: expect.stringMatching(/peripheral narrows registers only/) })
    await expect(rel({ part: 'STM32QAT', topic: 'pins', peripheral: 'X' })).rejects.toMatchObject({ code: 'INVALID_PARAMETER', param: 'peripheral' })
  })
})

describe('the JSON writer and the paging step', () => {
  /** Both answers of one comparison, raw: the body as sent and its count by the real tokenizer. */
  const rawParts = async (p: Partial<ComparePartsParams>) => {
    const body = await compare.parts({ corpus_release: b, part: 'QZ7101', other: 'QZ7102', topic: 'registers', ...p } as ComparePartsParams)
    return { body, j: JSON.parse(body) as Obj, real: countTokens(body) }
  }
  const rawRel = async (p: Partial<CompareReleasesParams>) => {
    const body = await compare.releases({ from_release: a, to_release: b, part: 'QZ7101', topic: 'registers', ...p } as CompareReleasesParams)
    return { body, j: JSON.parse(body) as Obj, real: countTokens(body) }
  }

  it('every page at every budget is within max_tokens by the real tokenizer, page.tokens counted over the whole answer', async () => {
    for (const ask of [rawParts, rawRel]) {
      const whole = await ask({ include_same: true, max_tokens: 16000 })
      const member = whole.j.entries ? 'entries' : 'changes'
      const all = whole.j[member].map((e: Obj) => e.name)
      expect(all.length).toBeGreaterThan(3)
      expect(whole.j.page).toMatchObject({ returned: all.length, limit: 20, maxTokens: 16000, truncatedBy: null, nextCursor: null, budgetTooSmall: false, neededMaxTokens: null })
      // The count is the sum of the parts' counts: never below the real count, never far above it.
      expect(whole.j.page.tokens).toBeGreaterThanOrEqual(whole.real)
      expect(whole.j.page.tokens).toBeLessThanOrEqual(whole.real * 1.01 + 4)
      let sawCut = false
      for (let max = 256; max <= whole.j.page.tokens + 40; max += 151) {
        const names: string[] = []
        let cursor: string | undefined
        let ended = false
        for (let n = 0; n < 20; n++) {
          const r = await ask({ include_same: true, max_tokens: max, ...(cursor ? { cursor } : {}) })
          expect(r.real, `${member} at ${max}`).toBeLessThanOrEqual(max)
          expect(r.j.page.tokens).toBeGreaterThanOrEqual(r.real)
          expect(r.j.page.tokens).toBeLessThanOrEqual(max)
          expect(r.j.page.maxTokens).toBe(max)
          expect(r.j.page.returned).toBe(r.j[member].length)
          if (r.j.page.budgetTooSmall) {
            // Not even one entry fits: the page names a budget with which the first does.
            expect(r.j[member]).toEqual([])
            expect(r.j.page.truncatedBy).toBe('max_tokens')
            const next = await ask({ include_same: true, max_tokens: r.j.page.neededMaxTokens, ...(cursor ? { cursor } : {}) })
            expect(next.j[member].length).toBeGreaterThan(0)
            break
          }
          expect(r.j[member].length).toBeGreaterThan(0)
          names.push(...r.j[member].map((e: Obj) => e.name))
          if (r.j.page.nextCursor === null) {
            expect(r.j.page.truncatedBy).toBeNull()
            ended = true
            break
          }
          sawCut = true
          expect(r.j.page.truncatedBy).toBe('max_tokens')
          // One more entry would not have fit.
          cursor = r.j.page.nextCursor
        }
        if (ended) expect(names).toEqual(all)
      }
      expect(sawCut).toBe(true)
    }
  })

  it('a page holds as many entries as fit: one more would exceed max_tokens', async () => {
    const whole = await rawParts({ include_same: true, max_tokens: 16000 })
    for (let max = 300; max < whole.j.page.tokens; max += 97) {
      const r = await rawParts({ include_same: true, max_tokens: max })
      if (r.j.page.budgetTooSmall) continue
      const n = r.j.entries.length
      // The same answer with the next entry too, as the service would write it.
      const more = JSON.stringify({ ...r.j, entries: whole.j.entries.slice(0, n + 1), page: { ...r.j.page, returned: n + 1 } })
      expect(countTokens(more), `at ${max}`).toBeGreaterThan(max * 0.98)
    }
  })

  it('limit cuts before max_tokens, with a cursor; the last page says the end', async () => {
    const r = await rawParts({ include_same: true, limit: 1 })
    expect(r.j.page).toMatchObject({ returned: 1, limit: 1, maxTokens: 4000, truncatedBy: 'limit', budgetTooSmall: false, neededMaxTokens: null })
    expect(typeof r.j.page.nextCursor).toBe('string')
    expect(r.j.page.tokens).toBeGreaterThanOrEqual(r.real)
    const rel1 = await rawRel({ limit: 3 })
    const rel2 = await rawRel({ limit: 3, cursor: rel1.j.page.nextCursor })
    expect(rel2.j.changes.map((c: Obj) => c.name)).toEqual(['UART.STAT'])
    expect(rel2.j.page).toMatchObject({ returned: 1, truncatedBy: null, nextCursor: null })
    expect(rel2.j.notes ?? []).toEqual([])
  })

  it('a cursor past the end of its comparison is refused; at the very end, a page without entries says so', async () => {
    const first = await rawRel({ limit: 2 })
    const last = await rawRel({ limit: 2, cursor: first.j.page.nextCursor })
    expect(last.j.page.nextCursor).toBeNull()
    // A cursor at the end (position 4 of 4): signed by the service for this binding, as the pager does.
    const codec = (facts as unknown as { cursors: { encode: Function; decode: Function } }).cursors
    const d = codec.decode(first.j.page.nextCursor)
    const atEnd = codec.encode(d.release, d.binding, { score: 0, ord: 4 })
    const end = await rawRel({ limit: 2, cursor: atEnd })
    expect(end.j.changes).toEqual([])
    expect(end.j.notes).toEqual(['No more entries: this is the end of the comparison.'])
    expect(end.j.page).toMatchObject({ returned: 0, truncatedBy: null, nextCursor: null, budgetTooSmall: false })
    expect(end.j.page.tokens).toBeGreaterThanOrEqual(end.real)
    const past = codec.encode(d.release, d.binding, { score: 0, ord: 5 })
    await expect(rawRel({ limit: 2, cursor: past })).rejects.toMatchObject({ code: 'INVALID_CURSOR', param: 'cursor', message: 'The cursor points past the end of this comparison.' })
  })

  it('a budget too small for the head elides the targets and artifacts, and names the budget that gives them', async () => {
    const full = await rawRel({ max_tokens: 16000 })
    let elided = 0
    for (let max = 256; max < full.real; max += 29) {
      const r = await rawRel({ max_tokens: max })
      expect(r.real).toBeLessThanOrEqual(max)
      expect(r.j.page.tokens).toBeGreaterThanOrEqual(r.real)
      expect(r.j.page.tokens).toBeLessThanOrEqual(max)
      if (!r.j.elided) continue
      elided++
      // Counted on the written page, whose own count may take one token more or less than the budget it stood at.
      expect(r.j.page.tokens - r.real).toBeLessThanOrEqual(1)
      expect(r.j.changes).toEqual([])
      expect(r.j.artifacts).toEqual([])
      expect(r.j.from.target).toBeNull()
      expect(r.j.to.target).toBeNull()
      expect(r.j.from.part).toBe('QZ7101')
      expect(r.j.page).toMatchObject({ returned: 0, truncatedBy: 'max_tokens', nextCursor: null, budgetTooSmall: true })
      const again = await rawRel({ max_tokens: r.j.page.neededMaxTokens })
      expect(again.j.elided).toBeUndefined()
      expect(again.j.changes.length).toBeGreaterThan(0)
    }
    // The head with both targets and the artifact takes several hundred tokens: the smallest budgets elide.
    expect(elided).toBeGreaterThan(3)
    expect((await rawRel({ max_tokens: 256 })).j.elided).toBe(true)
    // Nothing to list, and still a head too large for the budget: elided alike, within it.
    const empty = await rawRel({ fact_names: 'NOPE', max_tokens: 256 })
    expect(empty.real).toBeLessThanOrEqual(256)
    expect(empty.j).toMatchObject({ elided: true, changes: [], artifacts: [], counts: { added: 0, removed: 0, changed: 0, unchanged: 0 } })
    const roomy = await rawRel({ fact_names: 'NOPE', max_tokens: 16000 })
    expect(roomy.j.elided).toBeUndefined()
    expect(roomy.j.notes).toEqual(['No differences match these filters.'])
    expect(roomy.j.page).toMatchObject({ returned: 0, truncatedBy: null, budgetTooSmall: false })
    expect(roomy.j.page.tokens).toBeGreaterThanOrEqual(roomy.real)
    expect(roomy.j.page.tokens).toBeLessThanOrEqual(roomy.real * 1.01 + 4)
  })
})

describe('an ambiguous side under a small budget', () => {
  it('its candidates are left out last, with a note naming the budget that lists them', async () => {
    const ask = async (max: number) => {
      const body = await compare.parts({ corpus_release: b, part: 'STM32QA', other: 'STM32QAT', topic: 'electrical', max_tokens: max } as ComparePartsParams)
      return { j: JSON.parse(body) as Obj, real: countTokens(body) }
    }
    const small = await ask(256)
    expect(small.real).toBeLessThanOrEqual(256)
    expect(small.j).toMatchObject({ status: 'ambiguous', elided: true, entries: [], part: { status: 'ambiguous', candidates: [], candidateCount: 2, target: null }, other: { status: 'resolved', target: null } })
    const [first, cut] = small.j.notes as string[]
    expect(first).toBe('A part did not resolve to one target for this topic: nothing compared; see part/other.')
    const full = Number(/^max_tokens=256 leaves no room for the candidates of the ambiguous side; max_tokens=(\d+) lists them\.$/.exec(cut!)![1])
    expect(small.j.notes).toHaveLength(2)
    expect(small.j.page).toMatchObject({ returned: 0, maxTokens: 256, tokens: small.j.page.tokens, nextCursor: null })
    expect(small.j.page.tokens).toBeGreaterThanOrEqual(small.real)
    // The budget it names lists both candidates and the whole head within it.
    const listed = await ask(full)
    expect(listed.real).toBeLessThanOrEqual(full)
    expect(listed.j.elided).toBeUndefined()
    expect(listed.j.part.candidates.map((c: Obj) => c.key).sort()).toEqual(['stm32:STM32Q(A-B-C)Tx', 'stm32:STM32QAUx'])
    expect(listed.j.other.target.key).toBe('stm32:STM32Q(A-B-C)Tx')
    expect(listed.j.notes).toEqual([first])
    // And it is the least that does, but for the digits of page.tokens (counted at 256 when the note was written).
    const below = await ask(full - 4)
    expect(below.j.elided).toBe(true)
    // Budgets between: first the candidates come back with the targets still left out, then the whole head.
    const seen: string[] = []
    for (const max of [...Array.from({ length: Math.ceil((full - 256) / 16) }, (_, i) => 256 + 16 * i), full]) {
      const r = await ask(max)
      expect(r.real).toBeLessThanOrEqual(max)
      const variant = r.j.elided ? (r.j.part.candidates.length ? 'compact' : 'cut') : 'whole'
      if (variant === 'compact') expect(r.j.other.target).toBeNull()
      if (variant !== 'cut') expect(r.j.notes).toEqual([first])
      if (seen.at(-1) !== variant) seen.push(variant)
    }
    expect(seen).toEqual(['cut', 'compact', 'whole'])
  })
})

describe('cursors of both comparisons', () => {
  const codec = () => (facts as unknown as { cursors: { encode: Function; decode: Function } }).cursors

  it('a cursor with its own release named again continues; one whose release is no longer kept is refused as such', async () => {
    const first = await parts({ part: 'QZ7101', other: 'QZ7102', topic: 'registers', limit: 2 })
    const next = await parts({ part: 'QZ7101', other: 'QZ7102', topic: 'registers', limit: 2, cursor: first.page.nextCursor, corpus_release: b })
    expect(next.entries.map((e: Obj) => e.name)).toEqual(['UART.CTRL.EN', 'UART.DATA'])
    const r1 = await rel({ part: 'QZ7101', topic: 'registers', limit: 2 })
    const r2 = await rel({ part: 'QZ7101', topic: 'registers', limit: 2, cursor: r1.page.nextCursor, to_release: b })
    expect(r2.changes.map((c: Obj) => c.name)).toEqual(['UART.DATA', 'UART.STAT'])
    await expect(parts({ part: 'QZ7101', other: 'QZ7102', topic: 'registers', limit: 2, cursor: first.page.nextCursor, corpus_release: a })).rejects.toMatchObject({
      code: 'INVALID_CURSOR',
      param: 'cursor',
      message: `The cursor belongs to corpus release ${b}, not ${a}.`
    })
    // The same binding, signed for a release this data directory does not keep (removed since the first page).
    const d = codec().decode(first.page.nextCursor)
    const gone = codec().encode('0123456789abcdef', d.binding, d.pos)
    for (const ask of [
      () => parts({ part: 'QZ7101', other: 'QZ7102', topic: 'registers', limit: 2, cursor: gone, corpus_release: undefined }),
      () => rel({ part: 'QZ7101', topic: 'registers', limit: 2, cursor: gone, to_release: undefined })
    ])
      await expect(ask()).rejects.toMatchObject({ code: 'INVALID_CURSOR', param: 'cursor', message: "The cursor's corpus release 0123456789abcdef is no longer kept." })
  })

  it('a parts cursor is bound to its names and prefixes as given, not as joined', async () => {
    const two = await parts({ part: 'QZ7101', other: 'QZ7102', topic: 'registers', fact_names: 'UART.CTRL,UART.DATA', limit: 1 })
    await expect(parts({ part: 'QZ7101', other: 'QZ7102', topic: 'registers', fact_names: 'UART.CTRLUART.DATA', limit: 1, cursor: two.page.nextCursor })).rejects.toMatchObject({ code: 'INVALID_CURSOR' })
    const pre = await parts({ part: 'QZ7101', other: 'QZ7102', topic: 'registers', fact_name_prefixes: 'UART.C,UART.D', limit: 1 })
    await expect(parts({ part: 'QZ7101', other: 'QZ7102', topic: 'registers', fact_name_prefixes: 'UART.CUART.D', limit: 1, cursor: pre.page.nextCursor })).rejects.toMatchObject({ code: 'INVALID_CURSOR' })
    const ok = await parts({ part: 'QZ7101', other: 'QZ7102', topic: 'registers', fact_name_prefixes: 'UART.C,UART.D', limit: 1, cursor: pre.page.nextCursor })
    expect(ok.entries.map((e: Obj) => e.name)).toEqual(['UART.CTRL.EN'])
  })
})
