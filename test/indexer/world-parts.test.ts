import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { subsetRelease } from '../compare/subset-release.js'
import { testApp, type TestApp } from '../helpers/app.js'
import { scratchDirs } from '../helpers/scratch.js'

/**
 * Part numbers people type, of vendors other than ST and Nordic, resolved on a release of the
 * world corpus's files that describe them (issue 26's examples). What each must resolve to is read
 * from the raw files here: the SVD's own `<name>`, the feature header's `CPU_` macro.
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
  'targets/probe-rs/GD32F10x_Series.yaml'
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
})
