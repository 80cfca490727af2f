import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { subsetRelease } from '../compare/subset-release.js'
import { testApp, type TestApp } from '../helpers/app.js'
import { scratchDirs } from '../helpers/scratch.js'

/**
 * Part numbers people type, resolved on a release of the world corpus's files that describe them
 * (issue 26's examples). What each must resolve to is read from the raw files here: the SVD's own
 * `<name>`, the feature header's `CPU_` macro, the package codes an SVD enumerates.
 */
const WORLD = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '.cache', 'corpus-world')
const haveWorld = existsSync(join(WORLD, 'sources.json'))
if (!haveWorld) process.stdout.write(`[world-parts] ${WORLD} is not unpacked (the test setup unpacks ../shared/corpus-world.tar.xz): not tested\n`)

const FILES = [
  'features/nxp/MKL25Z4_features.h',
  'svd/Freescale/MKL25Z4.svd',
  'svd/TexasInstruments/TM4C123GH6PM.svd',
  'svd/TexasInstruments/MSP432P401R.svd',
  'svd/Renesas/R7FA4M1AB.svd',
  'svd/Nuvoton/NUC100_Series.svd',
  'svd/Fujitsu/MB9AF10xN.svd',
  'svd/Spansion/MB9AF10xN.svd',
  'svd/Atmel/ATSAMD21G18A.svd',
  'devices/modm/sam/samd21.xml',
  'targets/probe-rs/GD32F10x_Series.yaml',
  'svd/Nordic/nrf9160.svd',
  'errata/nordic/nrf91_erratas.h',
  'targets/probe-rs/nRF91_Series.yaml',
  'svd/Nordic/nrf52840.svd',
  'errata/nordic/nrf52_erratas.h',
  'svd/NXP/K32L2B21A.xml',
  'features/nxp/K32L2B11A_features.h',
  'svd/SiliconLabs/Series0/EFM32GG/EFM32GG230F1024.svd',
  'svd/Toshiba/M367.svd'
]
const raw = (path: string) => readFileSync(join(WORLD, path), 'utf8')
const svdName = (path: string) => /<device\b[\s\S]*?<name>\s*([^<\s]+)\s*<\/name>/.exec(raw(path))![1]!

const tmp = scratchDirs()
let t: TestApp
let release: string
type Obj = Record<string, any>
const get = async (path: string, param: string, q: string): Promise<Obj> =>
  (await t.app.inject({ url: `${path}?${param}=${encodeURIComponent(q)}&corpus_release=${release}`, headers: t.auth })).json()
const resolvePart = (q: string) => get('/v1/parts/resolve', 'q', q)
/** The rule by which a part's ordering codes resolve, and why (the release catalog's entity). */
const orderingOf = async (name: string) => (await t.facts.store(release)).catalog.entities.find((e) => e.name === name)!.ordering!

describe.skipIf(!haveWorld)('part numbers of other vendors, on a release of world-corpus files', () => {
  beforeAll(async () => {
    const dir = tmp('hwfacts-world-')
    release = await subsetRelease(WORLD, FILES, dir)
    t = await testApp(dir)
  }, 300_000)
  afterAll(async () => t?.close())

  it('an NXP SDK part number resolves by its own spelling to the register map and errata of its header device', async () => {
    const header = raw('features/nxp/MKL25Z4_features.h')
    expect(header).toContain('defined(CPU_MKL25Z128VLK4)')
    const r = await resolvePart('MKL25Z128VLK4')
    expect(r).toMatchObject({ status: 'resolved', match: 'exact', part: { name: 'MKL25Z128VLK4' } })
    expect(r.topics.registers.target.device).toBe(svdName('svd/Freescale/MKL25Z4.svd'))
    expect(r.topics.errata.target.key).toBe('nxp-features:MKL25Z4')
    // Tape and reel, by NXP's rule.
    expect(await resolvePart('MKL25Z128VLK4R')).toMatchObject({ status: 'resolved', match: 'ordering-code', part: { name: 'MKL25Z128VLK4' } })
  })

  it('TI, Renesas, Nuvoton, Microchip and Fujitsu/Spansion ordering codes resolve to the device their SVD names', async () => {
    for (const [code, file] of [
      ['TM4C123GH6PMI', 'svd/TexasInstruments/TM4C123GH6PM.svd'],
      ['MSP432P401RIPZR', 'svd/TexasInstruments/MSP432P401R.svd'],
      ['R7FA4M1AB3CFM#AA0', 'svd/Renesas/R7FA4M1AB.svd'],
      ['NUC140VE3CN', 'svd/Nuvoton/NUC100_Series.svd'],
      ['ATSAMD21G18A-AU', 'svd/Atmel/ATSAMD21G18A.svd'],
      ['samd21g18a-mu', 'svd/Atmel/ATSAMD21G18A.svd'],
      ['MB9AF104NPMC', 'svd/Fujitsu/MB9AF10xN.svd']
    ] as const) {
      const r = await resolvePart(code)
      expect(r.status, code).toBe('resolved')
      expect(r.topics.registers.target.device, code).toBe(svdName(file))
      expect(r.part.reason, code).toBeTruthy()
    }
  })

  it('one device in two vendor folders is one register map with both sources', async () => {
    const r = await resolvePart('MB9AF10xN')
    expect(r.topics.registers.target.key).toBe('svd:Fujitsu/MB9AF10xN+Spansion/MB9AF10xN')
    const sources = await get('/v1/sources', 'part', 'MB9AF10xN')
    expect(sources.sources.map((s: Obj) => s.path).sort()).toEqual(['svd/Fujitsu/MB9AF10xN.svd', 'svd/Spansion/MB9AF10xN.svd'])
  })

  it('a probe-rs part without an SVD resolves, with registers not covered, said truthfully', async () => {
    expect(raw('targets/probe-rs/GD32F10x_Series.yaml')).toMatch(/^- name: GD32F103C8$/m)
    const r = await resolvePart('GD32F103C8T6')
    expect(r).toMatchObject({ status: 'resolved', match: 'ordering-code', part: { name: 'GD32F103C8' } })
    expect(r.topics.registers.status).toBe('not_covered')
    // Its vendor by the file's JEP106 manufacturer code, named as vendors.json names GigaDevice; its reason names the line.
    const entity = (await t.facts.store(release)).catalog.entities.find((e) => e.name === 'GD32F103C8')!
    expect(entity.vendor).toBe('GigaDevice')
    const line = raw('targets/probe-rs/GD32F10x_Series.yaml').split('\n').indexOf('- name: GD32F103C8') + 1
    expect(entity.reason).toContain(`part number GD32F103C8 of targets/probe-rs/GD32F10x_Series.yaml line ${line}`)
  })

  it("nRF9160-SICA-R7 resolves by Nordic's SiP rule: SICA is the variant the SVD's FICR and probe-rs's chip detection give", async () => {
    // The SVD's SIPINFO.VARIANT holds the four letters; probe-rs reads them as one little-endian word.
    expect(raw('svd/Nordic/nrf9160.svd')).toMatch(/SIP VARIANT, encoded in ASCII, for example SIAA, SIBA or SICA/)
    const detection = /part: 0x9160\s+variants:\s+(0x[0-9a-f]+): (\S+)/.exec(raw('targets/probe-rs/nRF91_Series.yaml'))!
    const word = Buffer.alloc(4)
    word.writeUInt32LE(Number(detection[1]))
    expect([word.toString('ascii'), detection[2]]).toEqual(['SICA', 'nRF9160_xxAA'])
    expect(raw('errata/nordic/nrf91_erratas.h')).toContain('NRF9160_XXAA')
    const r = await resolvePart('nRF9160-SICA-R7')
    expect(r).toMatchObject({ status: 'resolved', match: 'ordering-code', part: { name: 'nRF9160' } })
    expect(r.topics.registers.target.device).toBe(svdName('svd/Nordic/nrf9160.svd'))
    expect(r.topics.errata.target.key).toBe('nordic-errata:NRF9160')
    expect((await orderingOf('nRF9160')).reason).toContain('Nordic SiP ordering code')
    // probe-rs's variant is the same part.
    expect((await resolvePart('nRF9160_xxAA')).part.name).toBe('nRF9160')
  })

  it("nRF52840: the package codes its SVD's FICR.INFO.PACKAGE enumerates are accepted, another package is not_found", async () => {
    const ficr = raw('svd/Nordic/nrf52840.svd')
    const field = ficr.slice(ficr.indexOf('<name>PACKAGE</name>'), ficr.indexOf('</enumeratedValues>', ficr.indexOf('<name>PACKAGE</name>')))
    const codes = [...field.matchAll(/<description>([A-Z]{2})xx - [^<]*<\/description>/g)].map((m) => m[1]!)
    expect(codes).toContain('QI')
    expect(codes).not.toContain('QD')
    for (const code of codes) {
      const r = await resolvePart(`nRF52840-${code}AA-R7`)
      expect(r, code).toMatchObject({ status: 'resolved', match: 'ordering-code', part: { name: 'nRF52840' } })
      expect(r.topics.registers.target.device).toBe(svdName('svd/Nordic/nrf52840.svd'))
    }
    expect((await orderingOf('nRF52840')).reason).toContain(`packages the sources give: ${codes.sort().join(', ')}`)
    // QD (the nRF52833's and nRF52820's package) is none of them.
    const qd = await resolvePart('nRF52840-QDAA')
    expect(qd.status).toBe('not_found')
    expect(qd.suggestions.map((x: Obj) => x.name)).toContain('nRF52840')
  })

  it('K32L2B21VLH0A resolves to the SVD device K32L2B21A by the form the SDK writes its siblings in', async () => {
    const device = svdName('svd/NXP/K32L2B21A.xml')
    expect(device).toBe('K32L2B21A')
    // The sibling K32L2B11A's header: its parts are the device name with VLH0/VMP0 before the last letter.
    expect(raw('features/nxp/K32L2B11A_features.h')).toContain('defined(CPU_K32L2B11VLH0A) || defined(CPU_K32L2B11VMP0A)')
    const code = `${device.slice(0, -1)}VLH0${device.slice(-1)}`
    const r = await resolvePart(code)
    expect(r).toMatchObject({ status: 'resolved', match: 'ordering-code', part: { name: device } })
    expect(r.topics.registers.target.device).toBe(device)
    expect((await orderingOf(device)).reason).toContain('NXP K32 L ordering code')
    // The sibling's own parts stay parts of their own, by the header's spelling.
    expect(await resolvePart('K32L2B11VLH0A')).toMatchObject({ status: 'resolved', match: 'exact', part: { name: 'K32L2B11VLH0A' } })
  })

  it('EFM32GG230F1024-QFN64 and TMPM367FDFG resolve to the devices their SVDs name', async () => {
    for (const [code, file, rule] of [
      ['EFM32GG230F1024-QFN64', 'svd/SiliconLabs/Series0/EFM32GG/EFM32GG230F1024.svd', 'Silicon Labs ordering code'],
      ['TMPM367FDFG', 'svd/Toshiba/M367.svd', 'Toshiba TX ordering code']
    ] as const) {
      const r = await resolvePart(code)
      expect(r, code).toMatchObject({ status: 'resolved', match: 'ordering-code', part: { name: svdName(file) } })
      expect(r.topics.registers.target.device, code).toBe(svdName(file))
      expect((await orderingOf(svdName(file))).reason, code).toContain(rule)
    }
    // Toshiba's TMP is the vendor's prefix: the SVD names the group only.
    expect(svdName('svd/Toshiba/M367.svd')).toBe('M367')
  })
})
