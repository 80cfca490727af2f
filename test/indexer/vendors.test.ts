import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { CurationError } from '../../indexer/curation/curation.js'
import { VENDORS_FILE, VENDORS_FORMAT } from '../../indexer/curation/vendors.js'
import { loadVendors, orderingOf, parseVendors, vendorNamed, vendorOfPart, vendorSpelling, type Vendor } from '../../indexer/curation/vendors.js'
import { normalizeKey } from '../../src/model/text.js'

/**
 * Read in each test, not at import: a reader that throws then fails the tests (a file that fails to
 * import counts as passing in a mutation run).
 */
const all = (): Vendor[] => loadVendors().vendors
const vendor = (id: string): Vendor => all().find((v) => v.id === id)!

/** Whether the entity `name` of `kind` accepts `code` as an ordering code by its vendor's rule. */
function accepts(v: Vendor, name: string, code: string, kind: 'device' | 'selector-part' = 'device', given = {}): boolean {
  const o = orderingOf(v, name, kind, given)
  if (!o) return false
  const key = normalizeKey(code)
  return key.startsWith(o.stem) && new RegExp(`^(?:${o.suffix})$`).test(key.slice(o.stem.length))
}

describe('vendors.json: vendors and their ordering-code rules, as data', () => {
  it('names vendors by the strings sources give, vendor first, then publisher', () => {
    expect(vendorNamed(all(), 'Microchip Technology Inc.')?.id).toBe('microchip')
    expect(vendorNamed(all(), undefined, 'Microchip Technology (Atmel)')?.id).toBe('microchip')
    expect(vendorNamed(all(), 'Keil', 'Artery Technology')?.id).toBe('artery')
    expect(vendorNamed(all(), 'NXP Semiconductors (Freescale)')?.id).toBe('nxp')
    expect(vendorNamed(all(), 'Nobody GmbH')).toBeUndefined()
  })

  it('ST: the temperature digit in place of the x, the tail after it kept, TR optional; for selector parts only', () => {
    const st = vendor('st')
    expect(accepts(st, 'STM32F407VGTx', 'STM32F407VGT6', 'selector-part')).toBe(true)
    expect(accepts(st, 'STM32F407VGTx', 'STM32F407VGT7TR', 'selector-part')).toBe(true)
    expect(accepts(st, 'STM32G071K8TxN', 'STM32G071K8T6N', 'selector-part')).toBe(true)
    expect(accepts(st, 'STM32G071K8TxN', 'STM32G071K8T6', 'selector-part')).toBe(false)
    expect(accepts(st, 'STM32F407VGTx', 'STM32F407VGTA', 'selector-part')).toBe(false)
    // An SVD device with wildcards (STM32L4x6) is no selector part: no ordering code.
    expect(orderingOf(st, 'STM32L4x6', 'device')).toBeUndefined()
  })

  it('a wildcard inside the name (Infineon XMC, Nuvoton NUC1xx): each x one character of the code', () => {
    expect(accepts(vendor('infineon'), 'XMC4500-F144x1024', 'XMC4500-F144K1024 AB')).toBe(true)
    expect(accepts(vendor('infineon'), 'XMC4500-F144x1024', 'XMC4500-F144F1024')).toBe(true)
    expect(accepts(vendor('infineon'), 'XMC4500-F144x1024', 'XMC4500-F144K2048')).toBe(false)
    expect(accepts(vendor('nuvoton'), 'NUC1xx', 'NUC140')).toBe(true)
    expect(accepts(vendor('nuvoton'), 'NUC1xx', 'NUC140VE3CN')).toBe(true)
    expect(accepts(vendor('nuvoton'), 'NUC1xx', 'NUC2400')).toBe(false)
    expect(accepts(vendor('artery'), 'AT32F421xx', 'AT32F421G4U7')).toBe(true)
    expect(accepts(vendor('fujitsu'), 'MB9AF10xN', 'MB9AF104NPMC')).toBe(true)
    expect(accepts(vendor('fujitsu'), 'MB9AF10xN', 'MB9AF104RPMC')).toBe(false)
  })

  it('vendor forms of the issue: TI, GigaDevice, Renesas, Silicon Labs, NXP, Microchip', () => {
    expect(accepts(vendor('ti'), 'TM4C123GH6PM', 'TM4C123GH6PMI')).toBe(true)
    expect(accepts(vendor('ti'), 'TM4C1230C3PM', 'TM4C1230C3PMIR')).toBe(true)
    expect(accepts(vendor('ti'), 'MSP432P401R', 'MSP432P401RIPZR')).toBe(true)
    expect(accepts(vendor('ti'), 'CC26x0', 'CC2640R2FRGZR')).toBe(true)
    expect(accepts(vendor('gigadevice'), 'GD32F103C8', 'GD32F103C8T6')).toBe(true)
    expect(accepts(vendor('renesas'), 'R7FA4M1AB', 'R7FA4M1AB3CFM#AA0')).toBe(true)
    expect(accepts(vendor('renesas'), 'R7FA2E2A7', 'R7FA2E2A72DNK')).toBe(true)
    expect(accepts(vendor('silabs'), 'EFM32GG230F1024', 'EFM32GG230F1024-QFN64')).toBe(true)
    expect(accepts(vendor('silabs'), 'EFR32MG21A010F1024', 'EFR32MG21A010F1024IM32-B')).toBe(true)
    expect(accepts(vendor('silabs'), 'EFM32PG1B100F128GM32', 'EFM32PG1B100F128GM32-C0')).toBe(true)
    expect(accepts(vendor('silabs'), 'BGM13P22F512GA', 'BGM13P22F512GA-V2')).toBe(true)
    expect(accepts(vendor('nxp'), 'MKL25Z128VLK4', 'MKL25Z128VLK4R', 'selector-part')).toBe(true)
    expect(accepts(vendor('microchip'), 'ATSAM3X8E', 'ATSAM3X8EA-AU')).toBe(true)
  })

  it('packages and build variants the sources give narrow the rule; without them, the rule says any is accepted', () => {
    const mchp = vendor('microchip')
    // modm's SAM package letters (samd21g18a-au: package a, grade u).
    expect(accepts(mchp, 'ATSAMD21G18A', 'ATSAMD21G18A-AU', 'device', { packages: ['a', 'm'] })).toBe(true)
    expect(accepts(mchp, 'ATSAMD21G18A', 'ATSAMD21G18A-MUT', 'device', { packages: ['a', 'm'] })).toBe(true)
    expect(accepts(mchp, 'ATSAMD21G18A', 'ATSAMD21G18A-XU', 'device', { packages: ['a', 'm'] })).toBe(false)
    expect(orderingOf(mchp, 'ATSAMD21G18A', 'device', { packages: ['a', 'm'] })!.reason).toContain('packages the sources give: a, m')
    expect(orderingOf(mchp, 'ATSAMD21G18A', 'device')!.reason).toContain('no source lists its packages')
    const nordic = vendor('nordic')
    expect(accepts(nordic, 'nRF52840', 'nRF52840-QIAA-R7', 'device', { variants: ['AA'] })).toBe(true)
    expect(accepts(nordic, 'nRF52840', 'nRF52840-QIAB', 'device', { variants: ['AA'] })).toBe(false)
    // Packages its SVD enumerates (FICR.INFO.PACKAGE): QD is the nRF52833's, not the nRF52840's.
    const given = { packages: ['CK', 'QF', 'QI'], variants: ['AA'] }
    expect(accepts(nordic, 'nRF52840', 'nRF52840-CKAA-R', 'device', given)).toBe(true)
    expect(accepts(nordic, 'nRF52840', 'nRF52840-QDAA', 'device', given)).toBe(false)
    expect(orderingOf(nordic, 'nRF52840', 'device', given)!.reason).toContain('packages the sources give: CK, QF, QI')
  })

  it('Nordic: both rules end in an optional -R or -R7 (reel), as their reasons say', () => {
    const nordic = vendor('nordic')
    for (const [name, code] of [
      ['nRF52840', 'nRF52840-QIAA'],
      ['nRF9160', 'nRF9160-SICA']
    ]) {
      for (const reel of ['', '-R', '-R7']) expect(accepts(nordic, name!, `${code}${reel}`, 'device', { variants: ['AA'] }), `${code}${reel}`).toBe(true)
      for (const other of ['-R6', '-T', '-R77']) expect(accepts(nordic, name!, `${code}${other}`, 'device', { variants: ['AA'] }), `${code}${other}`).toBe(false)
    }
  })

  it("Nordic's SiPs (nRF91): the SiP's own variant code, not the MDK's build variant", () => {
    const nordic = vendor('nordic')
    expect(accepts(nordic, 'nRF9160', 'nRF9160-SICA-R7', 'device', { variants: ['AA'] })).toBe(true)
    expect(accepts(nordic, 'nRF9160', 'nRF9160-SIBA', 'device', { variants: ['AA'] })).toBe(true)
    expect(accepts(nordic, 'nRF9160', 'nRF9160-SICA-R8', 'device', { variants: ['AA'] })).toBe(false)
    expect(accepts(nordic, 'nRF9160', 'nRF9160-SIC', 'device', { variants: ['AA'] })).toBe(false)
    // Not the SoCs: their second pair is the build variant.
    expect(accepts(nordic, 'nRF5340', 'nRF5340-QKCA', 'device', { variants: ['AA'] })).toBe(false)
  })

  it("a tail: NXP's K32 L device name ends its ordering codes", () => {
    const nxp = vendor('nxp')
    expect(accepts(nxp, 'K32L2B21A', 'K32L2B21VLH0A')).toBe(true)
    expect(accepts(nxp, 'K32L2B21A', 'K32L2B21VMP0A')).toBe(true)
    expect(accepts(nxp, 'K32L2A41A', 'K32L2A41VLL1A')).toBe(true)
    expect(accepts(nxp, 'K32L2B21A', 'K32L2B21VLH0B')).toBe(false)
    expect(accepts(nxp, 'K32L2B21A', 'K32L2B21AVLH0A')).toBe(false)
    expect(orderingOf(nxp, 'K32L2B21A', 'device')).toMatchObject({ stem: 'K32L2B21', suffix: '[JVC][A-Z]{2}[0-9]A' })
    // A name the tail does not end (K32L3A60) falls to the next rule.
    expect(orderingOf(nxp, 'K32L3A60', 'device')!.stem).toBe('K32L3A60')
  })

  it("a vendor's prefix starts its ordering codes where the source's name lacks it (Toshiba's TMP)", () => {
    const toshiba = vendor('toshiba')
    expect(accepts(toshiba, 'M367', 'TMPM367FDFG')).toBe(true)
    expect(accepts(toshiba, 'M36B', 'TMPM36BFYFG')).toBe(true)
    expect(accepts(toshiba, 'M367', 'M367FDFG')).toBe(false)
    expect(accepts(toshiba, 'M367', 'TMPM368FDFG')).toBe(false)
    expect(orderingOf(toshiba, 'M367', 'device')!.stem).toBe('TMPM367')
  })

  it('a part whose source names no vendor is known by the one vendor whose part-name patterns match it', () => {
    expect(vendorOfPart(all(), 'GD32F303CC')?.id).toBe('gigadevice')
    expect(vendorOfPart(all(), 'CH32V003F4')?.id).toBe('wch')
    expect(vendorOfPart(all(), 'EFR32MG24B210F1536IM48')?.id).toBe('silabs')
    expect(vendorOfPart(all(), 'ATSAML21J18B')?.id).toBe('microchip')
    expect(vendorOfPart(all(), 'W7500')).toBeUndefined()
  })

  it("a vendor's prefix is put in front of part numbers a source writes without it", () => {
    expect(vendorSpelling(vendor('microchip'), 'samd21g18a-au')).toEqual({ name: 'ATSAMD21G18A-AU', reason: expect.stringContaining('AT in front') })
    expect(vendorSpelling(vendor('microchip'), 'atmega328p-au')).toEqual({ name: 'atmega328p-au' })
    expect(vendorSpelling(vendor('st'), 'stm32f407vgt6')).toEqual({ name: 'stm32f407vgt6' })
  })

  it('a bad vendors file is refused whole, every bad entry named', () => {
    const bad = {
      format: 'hwfacts-vendors/1',
      vendors: [
        { id: 'a', name: 'A', match: ['('], ordering: [] },
        { id: 'a', name: 'B', match: ['B'], ordering: [{ names: '^B', suffix: '[', reason: 'r', example: 'e' }] },
        { id: 'c', name: 'C', match: ['C'], ordering: [{ names: '^C', suffix: 'X' }] },
        { id: 'd', name: 'D', match: ['D'], ordering: [{ names: '^D', suffix: 'X', tail: '[A-Z]', reason: 'r', example: 'e' }] }
      ]
    }
    let err: unknown
    try {
      parseVendors(bad, 'v.json')
    } catch (e) {
      err = e
    }
    expect(err).toBeInstanceOf(CurationError)
    const errors = (err as CurationError).errors
    expect(errors.some((e) => e.startsWith('vendors[0] (a).match[0]'))).toBe(true)
    expect(errors).toContain('vendors[1] (a): id given twice')
    expect(errors.some((e) => e.startsWith('vendors[1] (a).ordering[0].suffix'))).toBe(true)
    expect(errors).toContain('vendors[2] (c).ordering[0]: reason and example are required')
    expect(errors).toContain('vendors[3] (d).ordering[0]: a tail and a {tail} in the suffix go together')
    expect(() => parseVendors({ format: 'x', vendors: [] }, 'v.json')).toThrow(/format/)
  })
})

describe('parseVendors: every member checked, every bad one named', () => {
  const rule = { names: '^A', suffix: 'X', reason: 'r', example: 'e' }
  const good = { id: 'a', name: 'A', match: ['acme'], ordering: [rule], parts: ['^A[0-9]'] }
  const errorsOf = (doc: unknown): string[] => {
    try {
      parseVendors(doc, 'v.json')
    } catch (e) {
      expect(e).toBeInstanceOf(CurationError)
      expect((e as Error).message).toContain('v.json')
      return (e as CurationError).errors
    }
    return []
  }
  const one = (v: Record<string, unknown>) => errorsOf({ format: VENDORS_FORMAT, vendors: [v] })

  it('reads a good file: patterns case-insensitive (names, match, parts, tail), optional members only when given', () => {
    expect(VENDORS_FORMAT).toBe('hwfacts-vendors/1')
    expect(String(VENDORS_FILE)).toMatch(/\/indexer\/curation\/vendors\.json$/)
    const [v] = parseVendors(
      {
        format: VENDORS_FORMAT,
        vendors: [
          {
            ...good,
            prefix: { name: 'AC', reason: 'writes AC in front' },
            ordering: [{ kinds: ['device'], names: '^A', wildcard: '[0-9]', tail: '[A-Z]', suffix: 'X{tail}', anyPackage: '[A-Z]{2}', anyVariant: '', reason: 'r', example: 'e' }, rule]
          }
        ]
      },
      'v.json'
    )
    expect(v!.id).toBe('a')
    expect(v!.name).toBe('A')
    expect(v!.match.map(String)).toEqual(['/acme/i'])
    expect(v!.parts.map(String)).toEqual(['/^A[0-9]/i'])
    expect(v!.prefix).toEqual({ name: 'AC', reason: 'writes AC in front' })
    const [r0, r1] = v!.ordering
    expect({ ...r0, names: String(r0!.names), tail: String(r0!.tail) }).toEqual({
      kinds: ['device'],
      names: '/^A/i',
      wildcard: '[0-9]',
      tail: '/(?:[A-Z])$/i',
      suffix: 'X{tail}',
      anyPackage: '[A-Z]{2}',
      reason: 'r',
      example: 'e'
    })
    expect({ ...r1, names: String(r1!.names) }).toEqual({ names: '/^A/i', suffix: 'X', reason: 'r', example: 'e' })
    const [plain] = parseVendors({ format: VENDORS_FORMAT, vendors: [{ id: 'b', name: 'B', match: ['b'] }] }, 'v.json')
    expect(plain).toEqual({ id: 'b', name: 'B', match: [/b/i], parts: [], ordering: [] })
  })

  it('the file itself: its format, its vendors array', () => {
    expect(errorsOf({ format: 'hwfacts-vendors/2', vendors: [] })).toEqual(['format: expected "hwfacts-vendors/1", found "hwfacts-vendors/2"'])
    expect(errorsOf({ vendors: [] })).toEqual(['format: expected "hwfacts-vendors/1", found undefined'])
    expect(errorsOf({ format: VENDORS_FORMAT })).toEqual(['vendors: expected an array'])
    expect(errorsOf(null)).toEqual(['format: expected "hwfacts-vendors/1", found undefined', 'vendors: expected an array'])
    expect(errorsOf({ format: VENDORS_FORMAT, vendors: [] })).toEqual([])
  })

  it('id and name (non-blank strings), each id once', () => {
    expect(one({ ...good, id: undefined })).toEqual(['vendors[0]: id and name are required'])
    expect(one({ ...good, id: '  ' })).toEqual(['vendors[0]: id and name are required'])
    expect(one({ ...good, name: '' })).toEqual(['vendors[0] (a): id and name are required'])
    expect(one({ ...good, name: 7 })).toEqual(['vendors[0] (a): id and name are required'])
    expect(errorsOf({ format: VENDORS_FORMAT, vendors: [good, { ...good, name: 'Other' }, { ...good, id: 'b' }] })).toEqual(['vendors[1] (a): id given twice'])
  })

  it('match: at least one pattern, each a valid regular expression', () => {
    expect(one({ ...good, match: [] })).toEqual(['vendors[0] (a): match needs at least one pattern'])
    expect(one({ ...good, match: 'acme' })).toEqual(['vendors[0] (a): match needs at least one pattern'])
    expect(one({ ...good, match: [5] })).toEqual(['vendors[0] (a).match[0]: expected a regular expression', 'vendors[0] (a): match needs at least one pattern'])
    expect(one({ ...good, match: ['ok', ' '] })).toEqual(['vendors[0] (a).match[1]: expected a regular expression'])
    const bad = one({ ...good, match: ['('] })
    expect(bad).toHaveLength(2)
    expect(bad[0]).toMatch(/^vendors\[0\] \(a\)\.match\[0\]: Invalid regular expression/)
  })

  it('an ordering rule: names, suffix (placeholders filled in first), wildcard and tail valid; tail and {tail} together; reason and example', () => {
    const o = (r: Record<string, unknown>) => one({ ...good, ordering: [{ ...rule, ...r }] })
    const at = 'vendors[0] (a).ordering[0]'
    expect(o({})).toEqual([])
    expect(o({ suffix: '{packages}{variants}X' })).toEqual([])
    expect(o({ suffix: '{packages}+' })).toEqual([])
    expect(o({ suffix: '{variants}+' })).toEqual([])
    expect(o({ suffix: '{tail}+', tail: '[A-Z]' })).toEqual([])
    expect(o({ suffix: undefined })).toEqual([`${at}.suffix: expected a regular expression`])
    expect(o({ suffix: '+' })[0]).toMatch(new RegExp(`^${escapeRe(at)}\\.suffix: Invalid regular expression`))
    expect(o({ names: '[' })[0]).toMatch(new RegExp(`^${escapeRe(at)}\\.names: Invalid regular expression`))
    expect(o({ names: undefined })).toEqual([`${at}.names: expected a regular expression`])
    expect(o({ wildcard: '[' })[0]).toMatch(new RegExp(`^${escapeRe(at)}\\.wildcard: Invalid regular expression`))
    expect(o({ wildcard: 3 })).toEqual([`${at}.wildcard: expected a regular expression`])
    expect(o({ tail: '[A-Z]', suffix: 'X{tail}' })).toEqual([])
    expect(o({ tail: '(', suffix: 'X{tail}' })[0]).toMatch(new RegExp(`^${escapeRe(at)}\\.tail: Invalid regular expression`))
    expect(o({ tail: 1, suffix: 'X{tail}' })).toEqual([`${at}.tail: expected a regular expression`, `${at}: a tail and a {tail} in the suffix go together`])
    expect(o({ tail: '[A-Z]' })).toEqual([`${at}: a tail and a {tail} in the suffix go together`])
    expect(o({ suffix: 'X{tail}' })).toEqual([`${at}: a tail and a {tail} in the suffix go together`])
    expect(o({ reason: undefined })).toEqual([`${at}: reason and example are required`])
    expect(o({ example: ' ' })).toEqual([`${at}: reason and example are required`])
    expect(o({ reason: '', example: '' })).toEqual([`${at}: reason and example are required`])
  })

  it('prefix: name and reason; parts: valid regular expressions', () => {
    expect(one({ ...good, prefix: { name: 'AT' } })).toEqual(['vendors[0] (a).prefix: name and reason are required'])
    expect(one({ ...good, prefix: { reason: 'r' } })).toEqual(['vendors[0] (a).prefix: name and reason are required'])
    expect(one({ ...good, prefix: { name: 'AT', reason: 'r' } })).toEqual([])
    expect(one({ ...good, parts: ['^A', '['] })[0]).toMatch(/^vendors\[0\] \(a\)\.parts\[1\]: Invalid regular expression/)
    expect(one({ ...good, parts: [2] })).toEqual(['vendors[0] (a).parts[0]: expected a regular expression'])
  })

  it('the shipped vendors.json reads clean', () => {
    expect(all().length).toBeGreaterThan(10)
    expect(loadVendors().raw).toBe(readFileSync(VENDORS_FILE, 'utf8'))
  })
})

describe('vendor look-ups and ordering rules at their edges', () => {
  const v = (over: Record<string, unknown>): Vendor => parseVendors({ format: VENDORS_FORMAT, vendors: [{ id: 'x', name: 'X', match: ['x'], ...over }] }, 'v.json')[0]!
  it('vendorOfPart: none when two vendors claim a part', () => {
    const a = v({ id: 'a', parts: ['^AB'] })
    const b = v({ id: 'b', parts: ['^A'] })
    expect(vendorOfPart([a, b], 'AB12')).toBeUndefined()
    expect(vendorOfPart([a, b], 'AC12')?.id).toBe('b')
  })
  it('vendorNamed: blank names are skipped, the first that names a vendor wins', () => {
    const a = v({ id: 'a', match: ['^$|acme'] })
    expect(vendorNamed([a], '', 'acme')?.id).toBe('a')
    expect(vendorNamed([a], '')).toBeUndefined()
  })
  it('the notes of the reason: the packages and variants the sources give, sorted, or that any package is accepted', () => {
    const n = v({ ordering: [{ names: '^N', suffix: '{packages}{variants}', anyPackage: '[A-Z]{2}', anyVariant: '[A-Z]{2}', reason: 'N code', example: 'N1-QIAA' }] })
    expect(orderingOf(n, 'N1', 'device', { packages: ['qi', 'CK'], variants: ['AB', 'aa'] })).toEqual({
      stem: 'N1',
      suffix: '(?:CK|QI)(?:AA|AB)',
      reason: 'N code, e.g. N1-QIAA (packages the sources give: qi, CK; build variants the sources give: AB, aa)'
    })
    expect(orderingOf(n, 'N1', 'device')).toEqual({ stem: 'N1', suffix: '[A-Z]{2}[A-Z]{2}', reason: 'N code, e.g. N1-QIAA (no source lists its packages: any package code is accepted)' })
    // Without the rule's any-codes and without codes given, a placeholder stands for nothing.
    const bare = v({ ordering: [{ names: '^N', suffix: '{packages}{variants}T', reason: 'N code', example: 'N1T' }] })
    expect(orderingOf(bare, 'N1', 'device')!.suffix).toBe('T')
    const plain = v({ ordering: [{ names: '^N', suffix: 'T?', reason: 'N code', example: 'N1T' }] })
    expect(orderingOf(plain, 'N1', 'device', { packages: ['QI'], variants: ['AA'] })).toEqual({ stem: 'N1', suffix: 'T?', reason: 'N code, e.g. N1T' })
    // Codes are escaped: a package written with a regex character stays literal.
    expect(orderingOf(n, 'N1', 'device', { packages: ['A+'] })!.suffix).toBe('(?:A)[A-Z]{2}')
  })
  it('a wildcard rule: an x past the first four characters only; none, and the rule does not apply', () => {
    const w = v({ ordering: [{ names: '^', wildcard: '[0-9]', suffix: 'T?', reason: 'w', example: 'e' }, { names: '^', suffix: 'Z', reason: 'fallback', example: 'e' }] })
    expect(orderingOf(w, 'ABCDx1', 'device')).toMatchObject({ stem: 'ABCD', suffix: '[0-9]1T?' })
    expect(orderingOf(w, 'xBCDEx', 'device')).toMatchObject({ stem: 'XBCDE', suffix: '[0-9]T?' })
    expect(orderingOf(w, 'ABCx', 'device')).toMatchObject({ stem: 'ABCX', reason: expect.stringMatching(/^fallback/) })
    expect(orderingOf(w, 'ABCD1', 'device')).toMatchObject({ stem: 'ABCD1', suffix: 'Z' })
  })
})

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
