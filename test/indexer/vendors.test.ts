import { describe, expect, it } from 'vitest'
import { CurationError } from '../../indexer/curation/curation.js'
import { loadVendors, orderingOf, parseVendors, vendorNamed, vendorOfPart, vendorSpelling, type Vendor } from '../../indexer/curation/vendors.js'
import { normalizeKey } from '../../src/model/text.js'

const { vendors } = loadVendors()
const vendor = (id: string): Vendor => vendors.find((v) => v.id === id)!

/** Whether the entity `name` of `kind` accepts `code` as an ordering code by its vendor's rule. */
function accepts(v: Vendor, name: string, code: string, kind: 'device' | 'selector-part' = 'device', given = {}): boolean {
  const o = orderingOf(v, name, kind, given)
  if (!o) return false
  const key = normalizeKey(code)
  return key.startsWith(o.stem) && new RegExp(`^(?:${o.suffix})$`).test(key.slice(o.stem.length))
}

describe('vendors.json: vendors and their ordering-code rules, as data', () => {
  it('names vendors by the strings sources give, vendor first, then publisher', () => {
    expect(vendorNamed(vendors, 'Microchip Technology Inc.')?.id).toBe('microchip')
    expect(vendorNamed(vendors, undefined, 'Microchip Technology (Atmel)')?.id).toBe('microchip')
    expect(vendorNamed(vendors, 'Keil', 'Artery Technology')?.id).toBe('artery')
    expect(vendorNamed(vendors, 'NXP Semiconductors (Freescale)')?.id).toBe('nxp')
    expect(vendorNamed(vendors, 'Nobody GmbH')).toBeUndefined()
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
    expect(vendorOfPart(vendors, 'GD32F303CC')?.id).toBe('gigadevice')
    expect(vendorOfPart(vendors, 'CH32V003F4')?.id).toBe('wch')
    expect(vendorOfPart(vendors, 'EFR32MG24B210F1536IM48')?.id).toBe('silabs')
    expect(vendorOfPart(vendors, 'ATSAML21J18B')?.id).toBe('microchip')
    expect(vendorOfPart(vendors, 'W7500')).toBeUndefined()
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
