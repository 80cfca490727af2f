import { describe, expect, it } from 'vitest'
import { buildCatalog } from '../../indexer/curation/catalog.js'
import { EMPTY_CURATION } from '../../indexer/curation/curation.js'
import { checkReach } from '../../indexer/curation/reach.js'
import { coreOf, svdCovers } from '../../indexer/curation/rules.js'
import { loadVendors } from '../../indexer/curation/vendors.js'
import type { TargetSummary } from '../../src/model/catalog.js'
import type { CatalogPart, PartNumber, TargetIdentity } from '../../src/model/fact.js'
import { CatalogIndex } from '../../src/service/catalog-index.js'

const sha = 'a'.repeat(64)
function svd(path: string, device: string, identity: TargetIdentity = {}): TargetSummary {
  return { key: `svd:${path}`, topics: ['registers'], device, sourceSha256: sha, sourcePath: `svd/${path}.svd`, identity, factCounts: { registers: 10 } }
}
function errata(model: string, variants: string[], core?: string): TargetSummary {
  const identity: TargetIdentity = { vendor: 'Nordic Semiconductor', series: 'nRF53', variants, ...(core ? { core } : {}) }
  return { key: `nordic-errata:${model}`, topics: ['errata'], device: model, sourceSha256: sha, sourcePath: 'errata/nordic/nrf53_erratas.h', identity, factCounts: { errata: 3 } }
}
function pins(refName: string, pkg: string): TargetSummary {
  return { key: `stm32:${refName}`, topics: ['pins', 'electrical'], device: refName, sourceSha256: sha, sourcePath: `pins/stm32/mcu/${refName}.xml`, packages: [pkg], factCounts: { pins: 5, electrical: 2 } }
}
function part(name: string, refName: string, line: string, pkg: string): CatalogPart {
  return { name, refName, family: 'STM32', line, package: pkg, flashKb: 1, ramKb: 1, core: 'Arm Cortex-M4', target: `stm32:${refName}`, sourceSha256: sha, sourcePath: `pins/stm32/mcu/${refName}.xml` }
}
const ST: TargetIdentity = { vendor: 'STMicroelectronics' }
const { vendors } = loadVendors()

function index(targets: TargetSummary[], parts: CatalogPart[]) {
  const { catalog } = buildCatalog({ targets, parts }, EMPTY_CURATION, vendors)
  return { ix: new CatalogIndex(catalog), catalog }
}
const registers = (ix: CatalogIndex, q: string) => ix.choices(ix.match(q).matches.map((m) => m.entity), 'registers').choices.map((c) => c.target.device)

describe('naming rules', () => {
  it('an SVD device name covers the parts it names, x standing for one character', () => {
    // The examples of corpus-wide/README: STM32L4x6 covers STM32L476/486/496/4A6.
    for (const p of ['STM32L476RGTx', 'STM32L486JGYx', 'STM32L496ZGTx', 'STM32L4A6ZGTx']) expect(svdCovers('STM32L4x6', p), p).toBe(1)
    expect(svdCovers('STM32L4x6', 'STM32L452RETx')).toBe(-1)
    expect(svdCovers('STM32F0x2', 'STM32F072RBTx')).toBe(1)
    expect(svdCovers('STM32F0x2', 'STM32F042K6Tx')).toBe(1)
    expect(svdCovers('STM32H73x', 'STM32H735IGKx')).toBe(1)
    expect(svdCovers('STM32H73x', 'STM32H723ZGTx')).toBe(-1)
    expect(svdCovers('STM32F407', 'STM32F417VGTx')).toBe(-1)
    expect(svdCovers('STM32H745_CM4', 'STM32H745ZITx')).toBe(0)
  })

  it('core suffixes of multi-core SVDs', () => {
    expect(coreOf('STM32H745_CM7')).toEqual({ chip: 'STM32H745', core: 'CM7' })
    expect(coreOf('nrf5340_network')).toEqual({ chip: 'nrf5340', core: 'network' })
    expect(coreOf('ESP32-C6-LP')).toEqual({ chip: 'ESP32-C6', core: 'LP' })
    expect(coreOf('ESP32-C3')).toBeUndefined()
    expect(coreOf('STM32F0x2')).toBeUndefined()
  })
})

describe('derived catalog', () => {
  it('the most specific SVD wins; equally specific ones (two cores) leave the topic ambiguous', () => {
    const { ix } = index(
      [svd('H73x', 'STM32H73x', ST), svd('H733', 'STM32H733', ST), svd('H745_CM4', 'STM32H745_CM4', ST), svd('H745_CM7', 'STM32H745_CM7', ST), pins('STM32H733VGTx', 'LQFP100'), pins('STM32H745ZITx', 'LQFP144')],
      [part('STM32H733VGTx', 'STM32H733VGTx', 'STM32H723/733', 'LQFP100'), part('STM32H745ZITx', 'STM32H745ZITx', 'STM32H745/755', 'LQFP144')]
    )
    expect(registers(ix, 'STM32H733VGT6')).toEqual(['STM32H733'])
    expect(registers(ix, 'STM32H745ZIT6')).toEqual(['STM32H745_CM4', 'STM32H745_CM7'])
    // The chip name groups its cores and the parts they cover.
    expect(registers(ix, 'STM32H745')).toEqual(['STM32H745_CM4', 'STM32H745_CM7'])
    expect(ix.choices(ix.match('STM32H745').matches.map((m) => m.entity), 'pins').choices.map((c) => c.package)).toEqual(['LQFP144'])
    expect(registers(ix, 'STM32H745_CM7')).toEqual(['STM32H745_CM7'])
  })

  it('nRF5340: registers and errata are ambiguous between the cores, by the chip name and by the shared build variant', () => {
    const nordic = { vendor: 'Nordic Semiconductor', series: 'nrf53' }
    const { ix, catalog } = index(
      [svd('Nordic/nrf5340_application', 'nrf5340_application', nordic), svd('Nordic/nrf5340_network', 'nrf5340_network', nordic), errata('NRF5340_APPLICATION', ['NRF5340_XXAA'], 'application'), errata('NRF5340_NETWORK', ['NRF5340_XXAA'], 'network')],
      []
    )
    for (const q of ['nRF5340', 'NRF5340_XXAA', 'nRF5340-QKAA']) {
      expect(registers(ix, q), q).toEqual(['nrf5340_application', 'nrf5340_network'])
      expect(ix.choices(ix.match(q).matches.map((m) => m.entity), 'errata').choices.map((c) => c.target.device), q).toEqual(['NRF5340_APPLICATION', 'NRF5340_NETWORK'])
    }
    // Each core by its own name: the SVD's and the errata header's names are one part.
    expect(ix.match('nrf5340_network').matches[0]!.entity.targets).toEqual({ errata: ['nordic-errata:NRF5340_NETWORK'], registers: ['svd:Nordic/nrf5340_network'] })
    expect(checkReach(catalog).problems).toEqual([])
  })

  it('ordering codes by vendor rule: to their own part only, ambiguous when two parts could own one', () => {
    const mchp = { vendor: 'Microchip Technology Inc.' }
    const { ix } = index(
      [svd('Atmel/ATSAMD21G18A', 'ATSAMD21G18A', mchp), svd('Atmel/ATSAMD21E15B', 'ATSAMD21E15B', mchp), svd('Atmel/ATSAMD21E15BU', 'ATSAMD21E15BU', mchp), svd('Nordic/nrf52840', 'nrf52840', { vendor: 'Nordic Semiconductor', series: 'nrf52' }), errata('NRF52840', ['NRF52840_XXAA']), pins('STM32G071K(8-B)TxN', 'LQFP32'), pins('STM32G071K(6-8-B)Tx', 'LQFP32')],
      [part('STM32G071K8TxN', 'STM32G071K(8-B)TxN', 'STM32G0x1', 'LQFP32'), part('STM32G071K8Tx', 'STM32G071K(6-8-B)Tx', 'STM32G0x1', 'LQFP32')]
    )
    const owners = (q: string) => ix.match(q).matches.map((m) => `${m.entity.name}/${m.how}`)
    expect(owners('ATSAMD21G18A-AU')).toEqual(['ATSAMD21G18A/ordering-code'])
    expect(owners('ATSAMD21G18A-AUT')).toEqual(['ATSAMD21G18A/ordering-code'])
    expect(owners('nRF52840-QIAA')).toEqual(['nRF52840/ordering-code'])
    expect(owners('nRF52840-QIAA-R7')).toEqual(['nRF52840/ordering-code'])
    // AB is no build variant of the nRF52840 (the MDK names NRF52840_XXAA only): not its code.
    expect(ix.match('nRF52840-QIAB').matches.filter((m) => m.how === 'ordering-code')).toEqual([])
    // T6N: the N is the TxN part's own tail, never a packing code of the Tx part.
    expect(owners('STM32G071K8T6N')).toEqual(['STM32G071K8TxN/ordering-code'])
    expect(owners('STM32G071K8T6TR')).toEqual(['STM32G071K8Tx/ordering-code'])
    // ATSAMD21E15B + U(package) U(temperature) T(reel), or ATSAMD21E15BU + UT: both rules accept it.
    expect(owners('ATSAMD21E15B-UUT').sort()).toEqual(['ATSAMD21E15B/ordering-code', 'ATSAMD21E15BU/ordering-code'])
    expect(registers(ix, 'ATSAMD21E15B-UUT')).toEqual(['ATSAMD21E15B', 'ATSAMD21E15BU'])
  })

  it("package codes an SVD gives narrow its vendor's rule: for its device, the chip of its cores, and a part a curation alias maps to it", () => {
    const nordic = (packages: string[]): TargetIdentity => ({ vendor: 'Nordic Semiconductor', series: 'nrf52', packages })
    const targets = [
      svd('Nordic/nrf52840', 'nrf52840', nordic(['CK', 'QF', 'QI'])),
      errata('NRF52840', ['NRF52840_XXAA']),
      svd('Nordic/nrf5340_application', 'nrf5340_application', nordic(['CL', 'QK'])),
      svd('Nordic/nrf52', 'nrf52', nordic(['CH', 'QF']))
    ]
    const curation = { ...EMPTY_CURATION, aliases: [{ name: 'nRF52832', device: 'nrf52', reason: 'nrf52.svd describes the nRF52832' }] }
    const ix = new CatalogIndex(buildCatalog({ targets, parts: [] }, curation, vendors).catalog)
    const owner = (q: string) => ix.match(q).matches.filter((m) => m.how === 'ordering-code').map((m) => m.entity.name)
    expect(owner('nRF52840-QIAA-R7')).toEqual(['nRF52840'])
    expect(owner('nRF52840-CKAA')).toEqual(['nRF52840'])
    expect(owner('nRF52840-QDAA')).toEqual([])
    expect(ix.entity('nRF52840')!.reason).toContain('the package codes it gives: CK, QF, QI')
    expect(ix.entity('nRF52840')!.ordering!.reason).toContain('packages the sources give: CK, QF, QI')
    expect(owner('nRF5340-QKAA')).toEqual(['nRF5340'])
    expect(owner('nRF5340-QIAA')).toEqual([])
    expect(owner('nRF52832-CHAA')).toEqual(['nRF52832'])
    expect(owner('nRF52832-QIAA')).toEqual([])
  })

  it('a source that could not be read still maps its part: the topic is failed, not missing, and no reach problem', () => {
    const failed: TargetSummary = { ...pins('STM32X123K(6-8)Tx', 'LQFP32'), key: 'failed:pins/stm32/mcu/STM32X123K(6-8)Tx.xml', factCounts: {}, failure: { file: 'pins/stm32/mcu/STM32X123K(6-8)Tx.xml', line: 3, reason: 'not well-formed XML' } }
    const { ix, catalog } = index([failed], [])
    const c = ix.choices(ix.match('STM32X123K(6-8)Tx').matches.map((m) => m.entity), 'pins').choices
    expect(c.map((x) => x.target.failure)).toEqual([{ file: 'pins/stm32/mcu/STM32X123K(6-8)Tx.xml', line: 3, reason: 'not well-formed XML' }])
    expect(checkReach(catalog)).toEqual({ problems: [], reachable: 0, total: 0 })
  })

  it('a device named like its series is found by that name (psoc63), unless a curation alias says which part it describes', () => {
    const { catalog } = buildCatalog({ targets: [svd('Nordic/nrf52', 'nrf52', { vendor: 'Nordic Semiconductor', series: 'nrf52' })], parts: [] }, EMPTY_CURATION, vendors)
    expect(catalog.entities.map((e) => [e.name, e.targets])).toEqual([['nRF52', { registers: ['svd:Nordic/nrf52'] }]])
    expect(catalog.entities[0]!.reason).toContain('named like its series')
    expect(checkReach(catalog).problems).toEqual([])
    const curated = buildCatalog(
      { targets: catalog.targets, parts: [] },
      { ...EMPTY_CURATION, aliases: [{ name: 'nRF52832', device: 'nrf52', reason: 'nrf52.svd describes the nRF52832' }] },
      vendors
    )
    expect(checkReach(curated.catalog).problems).toEqual([])
    expect(curated.catalog.entities.map((e) => [e.name, e.targets])).toEqual([['nRF52832', { registers: ['svd:Nordic/nrf52'] }]])
    const psoc = buildCatalog({ targets: [svd('Cypress/psoc63', 'psoc63', { vendor: 'Cypress', series: 'PSoC63' })], parts: [] }, EMPTY_CURATION, vendors).catalog
    expect(new CatalogIndex(psoc).match('psoc63').matches.map((m) => m.entity.targets)).toEqual([{ registers: ['svd:Cypress/psoc63'] }])
    expect(checkReach(psoc).problems).toEqual([])
  })
})

describe('part numbers of other sources', () => {
  const pn = (name: string, vendor: string | undefined, extra: Partial<PartNumber> = {}): PartNumber => ({ name, ...(vendor ? { vendor } : {}), sourceSha256: sha, sourcePath: extra.sourcePath ?? 'src/x', line: 1, ...extra })
  const build = (targets: TargetSummary[], parts: CatalogPart[], partNumbers: PartNumber[]) => {
    const { catalog, notes } = buildCatalog({ targets, parts, partNumbers }, EMPTY_CURATION, vendors)
    return { ix: new CatalogIndex(catalog), catalog, notes }
  }
  const nxpErrata: TargetSummary = { key: 'nxp-features:MKL25Z4', topics: ['errata'], device: 'MKL25Z4', sourceSha256: sha, sourcePath: 'features/nxp/MKL25Z4_features.h', identity: { vendor: 'NXP Semiconductors' }, factCounts: {} }

  it('a part its source names a part of a device gets that device register map and errata; its reel code resolves by the vendor rule', () => {
    const { ix, catalog } = build(
      [svd('NXP/MKL25Z4', 'MKL25Z4', { vendor: 'Freescale Semiconductor, Inc.' }), nxpErrata],
      [],
      [pn('MKL25Z128VLK4', 'NXP Semiconductors', { device: 'MKL25Z4', sourcePath: 'features/nxp/MKL25Z4_features.h', line: 433 })]
    )
    const m = ix.match('MKL25Z128VLK4').matches
    expect(m.map((x) => [x.entity.name, x.how])).toEqual([['MKL25Z128VLK4', 'exact']])
    expect(m[0]!.entity.targets).toEqual({ errata: ['nxp-features:MKL25Z4'], registers: ['svd:NXP/MKL25Z4'] })
    expect(m[0]!.entity.reason).toContain('features/nxp/MKL25Z4_features.h line 433')
    expect(ix.match('MKL25Z128VLK4R').matches.map((x) => [x.entity.name, x.how])).toEqual([['MKL25Z128VLK4', 'ordering-code']])
    expect(checkReach(catalog).problems).toEqual([])
  })

  it("a part its source names a part of a device stays a part of its own, though the device's rule accepts its name (K32L2B11A)", () => {
    const header: TargetSummary = { ...nxpErrata, key: 'nxp-features:K32L2B11A', device: 'K32L2B11A', sourcePath: 'features/nxp/K32L2B11A_features.h' }
    const { ix } = build([header], [], [pn('K32L2B11VLH0A', 'NXP Semiconductors', { device: 'K32L2B11A', sourcePath: header.sourcePath, line: 449 })])
    const m = ix.match('K32L2B11VLH0A').matches
    expect(m.map((x) => [x.entity.name, x.how, x.entity.targets])).toEqual([['K32L2B11VLH0A', 'exact', { errata: ['nxp-features:K32L2B11A'] }]])
    // A code no source names is the device's, by NXP's K32 L rule.
    expect(ix.match('K32L2B11VMP0A').matches.map((x) => [x.entity.name, x.how])).toEqual([['K32L2B11A', 'ordering-code']])
  })

  it('a part number that is another name or an ordering code of a known part joins it; its package narrows the vendor rule', () => {
    const mchp = { vendor: 'Microchip Technology Inc.' }
    const { ix } = build(
      [svd('Atmel/ATSAMD21G18A', 'ATSAMD21G18A', mchp), svd('Nordic/nrf52840', 'nrf52840', { vendor: 'Nordic Semiconductor', series: 'nrf52' }), errata('NRF52840', ['NRF52840_XXAA'])],
      [],
      [
        pn('samd21g18a-au', 'Microchip Technology (Atmel)', { packages: ['a'] }),
        pn('samd21g18a-mu', 'Microchip Technology (Atmel)', { packages: ['m'] }),
        pn('nRF52840_xxAA', 'Nordic VLSI ASA')
      ]
    )
    // modm's SAM identifiers without Microchip's AT: the same part, found by either spelling.
    for (const q of ['ATSAMD21G18A-AU', 'samd21g18a-au', 'ATSAMD21G18A-MUT']) expect(ix.match(q).matches.map((x) => x.entity.name), q).toEqual(['ATSAMD21G18A'])
    expect(ix.match('ATSAMD21G18A-XU').matches.filter((x) => x.how === 'ordering-code')).toEqual([])
    expect(ix.match('nRF52840_xxAA').matches.map((x) => [x.entity.name, x.how])).toEqual([['nRF52840', 'exact']])
    expect(ix.entity('ATSAMD21G18A')!.ordering!.reason).toContain('packages the sources give: a, m')
  })

  it('a part no SVD covers is a part of its own without registers; its ordering codes resolve; a chip stands for its packages', () => {
    const { ix, catalog } = build(
      [svd('STMicro/STM32F407', 'STM32F407', ST)],
      [],
      [
        pn('GD32F103C8', undefined, { sourcePath: 'targets/probe-rs/GD32F10x_Series.yaml' }),
        pn('W7500', undefined, { sourcePath: 'targets/probe-rs/W7500.yaml' }),
        pn('STM32F407VG', 'STMicroelectronics', { sourcePath: 'chips/stm32-data/STM32F407VG.json', packages: ['LQFP100'] }),
        pn('STM32F407VGTx', 'STMicroelectronics', { sourcePath: 'chips/stm32-data/STM32F407VG.json', packages: ['LQFP100'], line: 9 })
      ]
    )
    expect(ix.match('GD32F103C8T6').matches.map((x) => [x.entity.name, x.how, x.entity.targets])).toEqual([['GD32F103C8', 'ordering-code', {}]])
    // Its source names no vendor: GigaDevice by its part names; W7500 matches no vendor's: unknown, and said.
    expect(ix.entity('GD32F103C8')).toMatchObject({ vendor: 'GigaDevice', reason: expect.stringContaining('GigaDevice by its part names') })
    expect(ix.entity('W7500')!.vendor).toBeUndefined()
    expect(ix.entity('W7500')!.reason).toContain('vendor unknown')
    expect(ix.entity('STM32F407VG')!.members).toEqual(['STM32F407VGTx'])
    expect(registers(ix, 'STM32F407VG')).toEqual(['STM32F407'])
    expect(registers(ix, 'STM32F407VGT6')).toEqual(['STM32F407'])
    expect(checkReach(catalog).problems).toEqual([])
  })

  it('a code two parts’ rules accept is no part of its own: it stays ambiguous, and the build says so', () => {
    const mchp = { vendor: 'Microchip Technology Inc.' }
    const { ix, notes } = build([svd('Atmel/ATSAMD21E15B', 'ATSAMD21E15B', mchp), svd('Atmel/ATSAMD21E15BU', 'ATSAMD21E15BU', mchp)], [], [pn('ATSAMD21E15B-UUT', 'Microchip Technology')])
    expect(ix.match('ATSAMD21E15B-UUT').matches.map((x) => x.entity.name).sort()).toEqual(['ATSAMD21E15B', 'ATSAMD21E15BU'])
    expect(notes.some((n) => n.includes('ATSAMD21E15B-UUT') && n.includes('resolves to neither alone'))).toBe(true)
  })

  it('an ST part no SVD names takes the one register map of its product line, and says whose', () => {
    const { ix } = build(
      [svd('STMicro/STM32F107', 'STM32F107', ST), pins('STM32F105R(8-B-C)Tx', 'LQFP64'), pins('STM32F107RCTx', 'LQFP64')],
      [part('STM32F105RCTx', 'STM32F105R(8-B-C)Tx', 'STM32F105/107', 'LQFP64'), part('STM32F107RCTx', 'STM32F107RCTx', 'STM32F105/107', 'LQFP64')],
      []
    )
    expect(registers(ix, 'STM32F105RCTx')).toEqual(['STM32F107'])
    expect(ix.entity('STM32F105RCTx')!.reason).toContain("a sibling's register map")
    expect(ix.entity('STM32F105RCTx')!.reason).toContain('STM32F105/107')
  })

  it('Nuvoton’s NUC1xx_registers is NUC1xx, and NUC140 resolves to it; a generator-named SVD is found by its file name', () => {
    const { ix } = build([svd('Nuvoton/NUC100_Series', 'NUC1xx_registers', { vendor: 'Nuvoton' }), svd('SiFive-Community/fu740', 'sifive_hifive_unmatched_a00', { vendor: 'SiFive' })], [], [])
    expect(ix.match('NUC140').matches.map((x) => [x.entity.name, x.how])).toEqual([['NUC1xx', 'ordering-code']])
    expect(registers(ix, 'NUC140VE3CN')).toEqual(['NUC1xx_registers'])
    expect(registers(ix, 'FU740')).toEqual(['sifive_hifive_unmatched_a00'])
  })
})
