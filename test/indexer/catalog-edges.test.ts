import { describe, expect, it } from 'vitest'
import { buildCatalog } from '../../indexer/curation/catalog.js'
import { EMPTY_CURATION, type Curation } from '../../indexer/curation/curation.js'
import { loadVendors } from '../../indexer/curation/vendors.js'
import type { CatalogEntity, TargetSummary } from '../../src/model/catalog.js'
import type { CatalogPart, PartNumber, TargetIdentity, Topic } from '../../src/model/fact.js'

/*
 * The catalog's rules (indexer/curation/catalog.ts) on hand-made target summaries, each entity
 * compared whole: kind, keys (normalized: upper case, letters and digits), targets per topic,
 * members, attributes and the reasons each rule gives, worked out by hand from the rules' own
 * definitions (the doc comments of catalog.ts and rules.ts, curation.ts for the curation file).
 * Ordering codes are the vendor rules' (vendors.ts, tested on their own) and are left out here.
 */

const sha = 'b'.repeat(64)
const { vendors } = loadVendors()
const ST: TargetIdentity = { vendor: 'STMicroelectronics' }

function target(key: string, device: string, topics: Topic[], sourcePath: string, extra: Partial<TargetSummary> = {}): TargetSummary {
  return { key, topics, device, sourceSha256: sha, sourcePath, factCounts: {}, ...extra }
}
const svd = (path: string, device: string, identity: TargetIdentity, topics: Topic[] = ['registers', 'interrupts']) => target(`svd:${path}`, device, topics, `svd/${path}.svd`, { identity })
const pins = (refName: string) => target(`stm32:${refName}`, refName, ['pins', 'electrical'], `pins/stm32/mcu/${refName}.xml`)
function part(name: string, refName: string, line: string, extra: Partial<CatalogPart> = {}): CatalogPart {
  return { name, refName, family: 'STM32F4', line, package: 'LQFP100', flashKb: 512, ramKb: 128, core: 'Arm Cortex-M4', target: `stm32:${refName}`, sourceSha256: sha, sourcePath: `pins/stm32/mcu/${refName}.xml`, ...extra }
}
const pn = (name: string, extra: Partial<PartNumber> = {}): PartNumber => ({ name, sourceSha256: sha, sourcePath: 'src/parts.yaml', line: 7, ...extra })

/** The entities by name, without the vendor rules' ordering codes. */
function entities(catalog: { entities: CatalogEntity[] }): Record<string, Omit<CatalogEntity, 'ordering'>> {
  return Object.fromEntries(catalog.entities.map(({ ordering: _o, ...e }) => [e.name, e]))
}

describe('catalog edges: STM32 selector parts, RefNames and the SVDs that cover them', () => {
  const stm = svd('STMicro/STM32F407', 'STM32F407', { ...ST, cpu: 'CM4' })
  const f41x = svd('STMicro/STM32F41x', 'STM32F41x', ST, ['registers'])
  const f4x7 = svd('STMicro/STM32F4x7', 'STM32F4x7', ST, ['registers'])
  // Given out of name order: the catalog lists entities by name, sets sorted.
  // Built in each test (not while the file is collected): a rule that throws then fails the test.
  const make = () => buildCatalog(
    {
      targets: [stm, f4x7, f41x, pins('STM32F407V(E-G)Tx'), pins('STM32F405RGTx'), pins('STM32F417VGTx')],
      parts: [
        part('STM32F407VGTx', 'STM32F407V(E-G)Tx', 'STM32F407/417', { flashKb: 1024, maxFrequencyMhz: 168 }),
        part('STM32F407VETx', 'STM32F407V(E-G)Tx', 'STM32F407/417'),
        part('STM32F405RGTx', 'STM32F405RGTx', 'STM32F405/415', { package: 'LQFP64' }),
        part('STM32F417VGTx', 'STM32F417VGTx', 'STM32F417')
      ]
    },
    EMPTY_CURATION,
    vendors
  )
  const attrs = { family: 'STM32F4', core: 'Arm Cortex-M4', vendor: 'STMicroelectronics' }

  it('lists every entity by name; no cross-check without one curated', () => {
    const built = make()
    expect(built.catalog.entities.map((x) => x.name)).toEqual(['STM32F405RGTx', 'STM32F407', 'STM32F407V(E-G)Tx', 'STM32F407VETx', 'STM32F407VGTx', 'STM32F417VGTx', 'STM32F41x', 'STM32F4x7'])
    expect(built.catalog.targets).toEqual([stm, f4x7, f41x, pins('STM32F407V(E-G)Tx'), pins('STM32F405RGTx'), pins('STM32F417VGTx')])
    expect('crossCheck' in built.catalog).toBe(false)
  })

  it('a RefName without alternatives is its own selector part (one entity); none of the SVDs covers STM32F405', () => {
    const built = make()
    const e = entities(built.catalog)
    expect(e['STM32F405RGTx']).toEqual({
      name: 'STM32F405RGTx',
      kind: 'selector-part',
      keys: ['STM32F405RGTX'],
      targets: { electrical: ['stm32:STM32F405RGTx'], pins: ['stm32:STM32F405RGTx'] },
      package: 'LQFP64',
      line: 'STM32F405/415',
      flashKb: 512,
      ramKb: 128,
      ...attrs,
      reason: 'selector part of RefName STM32F405RGTx (pins/stm32/mcu/STM32F405RGTx.xml)'
    })
  })

  it('a RefName of two parts stands for them and takes the register map (with its interrupts) that covers them; the most specific SVD wins', () => {
    const built = make()
    const e = entities(built.catalog)
    const regs = { interrupts: ['svd:STMicro/STM32F407'], registers: ['svd:STMicro/STM32F407'] }
    const pinsOf = { electrical: ['stm32:STM32F407V(E-G)Tx'], pins: ['stm32:STM32F407V(E-G)Tx'] }
    expect(e['STM32F407V(E-G)Tx']).toEqual({
      name: 'STM32F407V(E-G)Tx',
      kind: 'refname',
      keys: ['STM32F407VEGTX'],
      targets: { ...pinsOf, ...regs },
      members: ['STM32F407VETx', 'STM32F407VGTx'],
      package: 'LQFP100',
      line: 'STM32F407/417',
      ...attrs,
      reason: 'RefName of pins/stm32/mcu/STM32F407V(E-G)Tx.xml: stands for STM32F407VGTx, STM32F407VETx'
    })
    expect(Object.keys(e['STM32F407V(E-G)Tx']!.targets)).toEqual(['electrical', 'interrupts', 'pins', 'registers'])
    expect(e['STM32F407VGTx']).toEqual({
      name: 'STM32F407VGTx',
      kind: 'selector-part',
      keys: ['STM32F407VGTX'],
      targets: { ...pinsOf, ...regs },
      package: 'LQFP100',
      line: 'STM32F407/417',
      flashKb: 1024,
      ramKb: 128,
      maxFrequencyMhz: 168,
      ...attrs,
      reason: 'selector part of RefName STM32F407V(E-G)Tx (pins/stm32/mcu/STM32F407V(E-G)Tx.xml); SVD device STM32F407 covers STM32F407VGTx (line STM32F407/417): the part name starts with the SVD device name'
    })
    expect(e['STM32F407VETx']).not.toHaveProperty('maxFrequencyMhz')
    expect(e['STM32F407']).toEqual({
      name: 'STM32F407',
      kind: 'device',
      keys: ['STM32F407'],
      targets: regs,
      members: ['STM32F407VETx', 'STM32F407VGTx'],
      core: 'CM4',
      vendor: 'STMicroelectronics',
      reason: 'SVD device STM32F407 (svd/STMicro/STM32F407.svd)'
    })
  })

  it('two equally specific SVDs both cover a part: the topic is ambiguous, and each reason names the other', () => {
    const built = make()
    const e = entities(built.catalog)
    expect(e['STM32F417VGTx']!.targets).toEqual({ electrical: ['stm32:STM32F417VGTx'], pins: ['stm32:STM32F417VGTx'], registers: ['svd:STMicro/STM32F41x', 'svd:STMicro/STM32F4x7'] })
    const x = 'each lowercase x in the SVD device name stands for one character of the part name'
    expect(e['STM32F417VGTx']!.reason).toBe(
      'selector part of RefName STM32F417VGTx (pins/stm32/mcu/STM32F417VGTx.xml); ' +
        `SVD device STM32F4x7 covers STM32F417VGTx (line STM32F417): ${x} (as do STM32F41x: the topic is ambiguous); ` +
        `SVD device STM32F41x covers STM32F417VGTx (line STM32F417): ${x} (as do STM32F4x7: the topic is ambiguous)`
    )
    expect(e['STM32F41x']!.members).toEqual(['STM32F417VGTx'])
    expect(e['STM32F4x7']!.members).toEqual(['STM32F417VGTx'])
  })
})

describe('catalog edges: SVD device names', () => {
  it('register files and file versions name their device without the suffix, and say so; a series name; the packages an SVD gives', () => {
    const { catalog } = buildCatalog(
      {
        targets: [
          svd('Nuvoton/M48x', 'M480_registers', { vendor: 'Nuvoton' }, ['registers']),
          svd('Acme/AC1234_v2', 'AC1234_v2', { vendor: 'Acme' }, ['registers']),
          svd('Acme/AC9', 'AC9x', { vendor: 'Acme', series: 'AC9x', packages: ['qfn', 'bga'] }, ['registers'])
        ],
        parts: []
      },
      EMPTY_CURATION,
      vendors
    )
    const e = entities(catalog)
    expect(e['M480']).toMatchObject({ kind: 'device', reason: 'SVD device M480_registers (svd/Nuvoton/M48x.svd): the file names its device M480_registers, the register file of M480' })
    expect(e['AC1234']).toEqual({ name: 'AC1234', kind: 'device', keys: ['AC1234'], targets: { registers: ['svd:Acme/AC1234_v2'] }, vendor: 'Acme', reason: 'SVD device AC1234_v2 (svd/Acme/AC1234_v2.svd): AC1234_v2 without its file version' })
    expect(e['AC9x']).toEqual({
      name: 'AC9x',
      kind: 'device',
      keys: ['AC9X'],
      targets: { registers: ['svd:Acme/AC9'] },
      vendor: 'Acme',
      reason: 'SVD device AC9x (svd/Acme/AC9.svd): named like its series, it is the register map the publisher gives for the series AC9x; the package codes it gives: qfn, bga'
    })
  })

  it("multi-core: the chip name groups its cores' devices and the parts they cover; a topic both give is ambiguous", () => {
    const { catalog } = buildCatalog(
      { targets: [svd('STMicro/STM32H745_CM7', 'STM32H745_CM7', ST), svd('STMicro/STM32H745_CM4', 'STM32H745_CM4', ST), pins('STM32H745ZITx')], parts: [part('STM32H745ZITx', 'STM32H745ZITx', 'STM32H745/755')] },
      EMPTY_CURATION,
      vendors
    )
    const e = entities(catalog)
    expect(e['STM32H745']).toEqual({
      name: 'STM32H745',
      kind: 'device',
      keys: ['STM32H745'],
      targets: {},
      members: ['STM32H745ZITx', 'STM32H745_CM4', 'STM32H745_CM7'],
      vendor: 'STMicroelectronics',
      reason:
        'STM32H745 has several cores with sources of their own; STM32H745_CM7 is the CM7 core of STM32H745: a topic that several cores give is ambiguous between them; ' +
        'STM32H745_CM4 is the CM4 core of STM32H745: a topic that several cores give is ambiguous between them'
    })
    // A part named for no core is covered by both cores' SVDs: ambiguous.
    expect(e['STM32H745ZITx']!.targets.registers).toEqual(['svd:STMicro/STM32H745_CM4', 'svd:STMicro/STM32H745_CM7'])
    expect(e['STM32H745_CM4']!.kind).toBe('device')
  })
})

describe('catalog edges: curation', () => {
  const nrf52 = svd('Nordic/nrf52', 'nrf52', { vendor: 'Nordic Semiconductor', series: 'nrf52' })
  const errata = target('nordic-errata:NRF52832', 'NRF52832', ['errata'], 'errata/nordic/nrf52_erratas.h', { identity: { vendor: 'Nordic Semiconductor', variants: ['NRF52832_XXAA'] } })
  const other = svd('Acme/OTHER1', 'OTHER1', { vendor: 'Acme' }, ['registers'])
  const curation: Curation = {
    aliases: [
      { name: 'nRF52832', device: 'nrf52', topics: ['registers'], reason: 'the nrf52 SVD is the nRF52832 register map' },
      { name: 'Ghost', device: 'NOPE', reason: 'no such device' },
      { name: 'Board1', device: 'OTHER1', reason: 'a board of OTHER1' }
    ],
    overrides: [
      { match: 'NRF52832*', topic: 'errata', device: null, reason: 'errata withdrawn' },
      { match: 'nRF52832', topic: 'registers', device: 'OTHER1', reason: 'OTHER1 it is' },
      { match: 'Z*', topic: 'registers', device: 'ACMEZ', reason: 'r' },
      { match: 'QQQ', topic: 'registers', device: 'OTHER1', reason: 'r' },
      // A trailing `*`: every name starting so (Board1), not only the name itself.
      { match: 'Boar*', topic: 'registers', device: null, reason: 'boards have none' }
    ],
    gaps: [{ match: 'nRF5*', topic: 'pins', reason: 'no pin data' }],
    acknowledged: [],
    crossCheck: [{ topic: 'interrupts', order: ['svd'], reason: 'one source' } as never]
  }
  const make = () => buildCatalog({ targets: [nrf52, errata, other], parts: [] }, curation, vendors)

  it('a series-named SVD a curation alias describes is no part name; each note says what an entry could not do', () => {
    const { catalog, notes } = make()
    const e = entities(catalog)
    expect(e['nrf52']).toBeUndefined()
    expect(notes).toEqual([
      'svd/Nordic/nrf52.svd: SVD device nrf52 is named like its series (nrf52); a curation alias says which part it describes, so the series name is no part name of its own',
      'curation alias Ghost: no target of device NOPE is in this release',
      'curation override Z* registers: no registers target of device ACMEZ is in this release',
      'curation override QQQ: matches no part in this release'
    ])
    expect(catalog.gaps).toEqual(curation.gaps)
    expect(catalog.crossCheck).toEqual(curation.crossCheck)
  })

  it('an alias of some topics gives those (registers with interrupts); overrides replace a topic by another device’s targets, or by none', () => {
    const { catalog } = make()
    const e = entities(catalog)
    expect(e['nRF52832']).toEqual({
      name: 'nRF52832',
      kind: 'device',
      keys: ['NRF52832', 'NRF52832XXAA'],
      // errata removed by the first override; registers replaced by OTHER1's, which gives no interrupts.
      targets: { registers: ['svd:Acme/OTHER1'] },
      vendor: 'Nordic Semiconductor',
      reason: 'errata device NRF52832 (errata/nordic/nrf52_erratas.h); curation: the nrf52 SVD is the nRF52832 register map; curation (errata): errata withdrawn; curation (registers): OTHER1 it is'
    })
    // An alias without topics: every topic of the device (here taken away again by the `Boar*` override).
    expect(e['Board1']).toEqual({ name: 'Board1', kind: 'device', keys: ['BOARD1'], targets: {}, reason: 'curation: a board of OTHER1; curation (registers): boards have none' })
    expect(e['Ghost']).toBeUndefined()
  })

  it('an alias of some topics leaves the others: without the override, the alias gives registers and interrupts, not the errata of an aliased errata device', () => {
    const c2: Curation = { ...EMPTY_CURATION, aliases: [{ name: 'Mine', device: 'nrf52', topics: ['registers'], reason: 'r' }] }
    const both = target('x:nrf52', 'nrf52', ['errata', 'memory'], 'x/nrf52', {})
    const { catalog: c } = buildCatalog({ targets: [nrf52, both], parts: [] }, c2, vendors)
    expect(entities(c)['Mine']!.targets).toEqual({ interrupts: ['svd:Nordic/nrf52'], registers: ['svd:Nordic/nrf52'] })
  })
})

describe('catalog edges: part numbers', () => {
  it('a part number naming its device takes that device’s register map (with interrupts) and errata, not its depth facts nor a failed source; its attributes; a chip stands for its packages', () => {
    const dev = svd('Acme/ABC123', 'ABC123', {})
    const depth = target('probe-rs:ABC123', 'ABC123', ['memory'], 'targets/probe-rs/ABC.yaml')
    const failed = target('stm32:ABC123', 'ABC123', ['pins'], 'pins/ABC123.xml', { failure: { file: 'pins/ABC123.xml', reason: 'bad' } })
    const { catalog } = buildCatalog(
      {
        targets: [dev, depth, failed],
        parts: [],
        partNumbers: [pn('ABC123X', { family: 'ABC', core: 'Arm Cortex-M0+', flashKb: 64, ramKb: 8, packages: ['QFN32'], device: 'ABC123' }), pn('ABC123XY'), pn('ABC123XZ')]
      },
      EMPTY_CURATION,
      vendors
    )
    const e = entities(catalog)
    expect(e['ABC123X']).toEqual({
      name: 'ABC123X',
      kind: 'selector-part',
      keys: ['ABC123X'],
      targets: { interrupts: ['svd:Acme/ABC123'], registers: ['svd:Acme/ABC123'] },
      members: ['ABC123XY', 'ABC123XZ'],
      package: 'QFN32',
      family: 'ABC',
      core: 'Arm Cortex-M0+',
      flashKb: 64,
      ramKb: 8,
      reason:
        "part number ABC123X of src/parts.yaml line 7 (the source names no vendor, and no vendor's part names match it: vendor unknown); " +
        'src/parts.yaml names it a part of device ABC123, whose registers/interrupts source svd/Acme/ABC123.svd and memory source targets/probe-rs/ABC.yaml and pins source pins/ABC123.xml describe it; ' +
        "src/parts.yaml names it with its packages' parts, which it stands for"
    })
    // Its register map came from its device, not by the SVD's name covering it: the SVD stands only for the part it covers.
    expect(e['ABC123']!.members).toEqual(['ABC123XY', 'ABC123XZ'])
    expect(e['ABC123XY']!.reason).toBe("part number ABC123XY of src/parts.yaml line 7 (the source names no vendor, and no vendor's part names match it: vendor unknown); SVD device ABC123 covers ABC123XY: the part name starts with the SVD device name")
    // The failed pin file names the entity first (a RefName, by its file name); the SVD's device joins it.
    expect(e['ABC123']).toMatchObject({ kind: 'refname', targets: { interrupts: ['svd:Acme/ABC123'], pins: ['stm32:ABC123'], registers: ['svd:Acme/ABC123'] } })
  })

  it('part numbers that would join a part by its other names but bring one source’s different targets each become parts of their own', () => {
    const errata = target('nordic-errata:NRF51822', 'NRF51822', ['errata'], 'errata/nordic/nrf51_erratas.h', { identity: { vendor: 'Nordic Semiconductor', variants: ['NRF51822_XXAA', 'NRF51822_XXAB'] } })
    const aa = target('probe-rs:nRF51822_xxAA', 'nRF51822_xxAA', ['memory'], 'targets/probe-rs/nRF51.yaml')
    const ab = target('probe-rs:nRF51822_xxAB', 'nRF51822_xxAB', ['memory'], 'targets/probe-rs/nRF51.yaml')
    const nordic = { vendor: 'Nordic Semiconductor', sourcePath: 'targets/probe-rs/nRF51.yaml' }
    const { catalog } = buildCatalog(
      { targets: [errata, aa, ab], parts: [], partNumbers: [pn('nRF51822_xxAA', { ...nordic, targets: [aa.key] }), pn('nRF51822_xxAB', { ...nordic, targets: [ab.key], line: 9 })] },
      EMPTY_CURATION,
      vendors
    )
    const e = entities(catalog)
    expect(e['nRF51822']!.members).toEqual(['nRF51822_xxAA', 'nRF51822_xxAB'])
    expect(e['nRF51822']!.targets).toEqual({ errata: ['nordic-errata:NRF51822'] })
    expect(e['nRF51822']!.reason).toContain('stands for nRF51822_xxAA (targets/probe-rs/nRF51.yaml), a part of its own')
    expect(e['nRF51822_xxAB']).toMatchObject({
      kind: 'selector-part',
      // Its own memory map, and for the other topics the part's sources.
      targets: { errata: ['nordic-errata:NRF51822'], memory: ['probe-rs:nRF51822_xxAB'] },
      vendor: 'Nordic Semiconductor'
    })
    expect(e['nRF51822_xxAB']!.reason).toContain("another name of nRF51822, whose other names bring other probe-rs facts, so a part of its own with its own and, for the other topics, nRF51822's sources")
  })

  it('one part number bringing a target joins the part by its other name: no part of its own', () => {
    const errata = target('nordic-errata:NRF51822', 'NRF51822', ['errata'], 'errata/nordic/nrf51_erratas.h', { identity: { vendor: 'Nordic Semiconductor', variants: ['NRF51822_XXAA'] } })
    const aa = target('probe-rs:nRF51822_xxAA', 'nRF51822_xxAA', ['memory'], 'targets/probe-rs/nRF51.yaml')
    const { catalog } = buildCatalog({ targets: [errata, aa], parts: [], partNumbers: [pn('nRF51822_xxAA', { vendor: 'Nordic Semiconductor', targets: [aa.key] })] }, EMPTY_CURATION, vendors)
    const e = entities(catalog)
    expect(e['nRF51822_xxAA']).toBeUndefined()
    expect(e['nRF51822']!.targets).toEqual({ errata: ['nordic-errata:NRF51822'], memory: ['probe-rs:nRF51822_xxAA'] })
    expect(e['nRF51822']!.keys).toEqual(['NRF51822', 'NRF51822XXAA'])
  })

  it('a build variant two errata devices share is a group of both', () => {
    const cores = ['application', 'network'].map((c) => target(`nordic-errata:NRF5340_${c}`, `NRF5340_${c.toUpperCase()}`, ['errata'], 'errata/nordic/nrf53_erratas.h', { identity: { vendor: 'Nordic Semiconductor', variants: ['NRF5340_XXAA'] } }))
    const { catalog } = buildCatalog({ targets: cores, parts: [] }, EMPTY_CURATION, vendors)
    const e = entities(catalog)
    expect(e['NRF5340_XXAA']).toEqual({
      name: 'NRF5340_XXAA',
      kind: 'device',
      keys: ['NRF5340XXAA'],
      targets: {},
      members: ['nRF5340_APPLICATION', 'nRF5340_NETWORK'],
      reason: 'NRF5340_XXAA names nRF5340_APPLICATION and nRF5340_NETWORK: a topic they both give is ambiguous between them'
    })
  })
})

describe('catalog edges: which entities get an ordering-code rule, and what the sources give it', () => {
  it('a part and a multi-core chip get their vendor’s rule, one core does not; packages and build variants are given sorted, once', () => {
    const mchp = { vendor: 'Microchip Technology Inc.' }
    const nordic = { vendor: 'Nordic Semiconductor' }
    const { catalog } = buildCatalog(
      {
        targets: [
          svd('Atmel/ATSAMD21G18A', 'ATSAMD21G18A', { ...mchp, packages: ['m', 'a'] }),
          svd('Nordic/nrf5340_application', 'nrf5340_application', nordic),
          svd('Nordic/nrf5340_network', 'nrf5340_network', nordic),
          // Build variants out of order, one twice, one not of the `_XX` form and one with more after it.
          target('nordic-errata:NRF52840', 'NRF52840', ['errata'], 'errata/nordic/nrf52_erratas.h', { identity: { ...nordic, variants: ['NRF52840_XXAB', 'NRF52840_XXAA', 'NRF52840_XXAA', 'NRF52840', 'NRF52840_XXAAQ'] } })
        ],
        parts: []
      },
      EMPTY_CURATION,
      vendors
    )
    const by = Object.fromEntries(catalog.entities.map((x) => [x.name, x]))
    expect(by['ATSAMD21G18A']!.ordering!.reason).toContain('(packages the sources give: a, m)')
    expect(by['nRF5340_APPLICATION']!.ordering).toBeUndefined()
    expect(by['nRF5340_NETWORK']!.ordering).toBeUndefined()
    expect(by['nRF5340']!.ordering).toBeDefined()
    expect(by['nRF52840']!.ordering!.reason).toContain('build variants the sources give: AA, AB)')
    // Its other names (the build variants), sorted after its own.
    expect(by['nRF52840']!.keys).toEqual(['NRF52840', 'NRF52840XXAA', 'NRF52840XXAAQ', 'NRF52840XXAB'])
  })
})

describe('catalog edges: what a part number’s reason says', () => {
  const nordic = { vendor: 'Nordic Semiconductor' }
  const make = () => buildCatalog(
    {
      targets: [
        target('nordic-errata:NRF52840', 'NRF52840', ['errata'], 'errata/nordic/nrf52_erratas.h', { identity: { ...nordic, variants: ['NRF52840_XXAA'] } }),
        svd('Atmel/ATSAMD21E15B', 'ATSAMD21E15B', { vendor: 'Microchip Technology Inc.' }, ['registers']),
        svd('Atmel/ATSAMD21E15BU', 'ATSAMD21E15BU', { vendor: 'Microchip Technology Inc.' }, ['registers'])
      ],
      parts: [],
      partNumbers: [pn('GD32F103C8'), pn('XYZ9000', { vendor: 'Acme' }), pn('nRF52840-QIAA-R', { vendor: 'Nordic Semiconductor' }), pn('ATSAMD21E15B-UUT', { vendor: 'Microchip Technology' })]
    },
    EMPTY_CURATION,
    vendors
  )

  it('where it comes from, and how its vendor was found: named by the source, by its part names, or unknown', () => {
    const { catalog } = make()
    const e = entities(catalog)
    expect(e['GD32F103C8']).toMatchObject({ vendor: 'GigaDevice', reason: 'part number GD32F103C8 of src/parts.yaml line 7 (the source names no vendor; GigaDevice by its part names, vendors.json)' })
    expect(e['XYZ9000']).toEqual({ name: 'XYZ9000', kind: 'selector-part', keys: ['XYZ9000'], targets: {}, vendor: 'Acme', reason: 'part number XYZ9000 of src/parts.yaml line 7' })
  })

  it('an ordering code of one part joins it and says by which rule; of two parts, it joins neither and the build says so', () => {
    const { catalog, notes } = make()
    const e = entities(catalog)
    expect(e['nRF52840-QIAA-R']).toBeUndefined()
    expect(e['nRF52840']!.keys).toContain('NRF52840QIAAR')
    expect(e['nRF52840']!.reason).toMatch(/; part number nRF52840-QIAA-R of src\/parts\.yaml line 7: an ordering code of nRF52840 by the [^:;]+ rule$/)
    expect(notes).toContain("part number ATSAMD21E15B-UUT of src/parts.yaml line 7: an ordering code of ATSAMD21E15B and ATSAMD21E15BU by their vendors' rules; it resolves to neither alone")
  })
})
