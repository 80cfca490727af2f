import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import Database from 'better-sqlite3'
import { beforeAll, describe, expect, it } from 'vitest'
import type { CatalogEntity, ReleaseCatalog } from '../../src/model/catalog.js'
import type { ReleaseManifest } from '../../src/store/types.js'
import { CatalogIndex } from '../../src/service/catalog-index.js'
import { readStoredFacts } from '../../src/store/sqlite/store.js'
import { subsetRelease } from '../compare/subset-release.js'
import { scratchDirs } from '../helpers/scratch.js'

/**
 * The depth targets in a release: a release of world-corpus files that give a few parts their
 * memory, interrupts, DMA and clocks from several sources, read back as the service reads it (its
 * catalog and facts). Which targets each part must have is worked out from the files' own names
 * (the chip file names its chip and packages, the SVD its device, probe-rs its variants).
 */
const WORLD = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '.cache', 'corpus-world')
const haveWorld = existsSync(join(WORLD, 'sources.json'))

const FILES = [
  'chips/stm32-data/STM32F407VG.json',
  'svd/STMicro/stm32f4/STM32F407.svd',
  'chips/stm32-data/STM32WL55JC.json',
  'svd/STMicro/stm32wl/STM32WL5x_CM4.svd',
  'svd/STMicro/stm32wl/STM32WL5x_CM0P.svd',
  'targets/probe-rs/nRF52_Series.yaml',
  'svd/Nordic/nrf52840.svd',
  'targets/probe-rs/SAMD21.yaml',
  'devices/modm/sam/samd21.xml',
  'svd/Atmel/ATSAMD21G18A.svd',
  'svd/RaspberryPi/RP2040.svd',
  // Variants that other names of one part give different memory maps of.
  'targets/probe-rs/nRF51_Series.yaml',
  'svd/Nordic/nrf51.svd',
  'errata/nordic/nrf51_erratas.h',
  'svd/Nordic/nrf52.svd',
  'devices/modm/nrf/nrf52832.xml',
  'targets/probe-rs/FM3_Series.yaml',
  'svd/Fujitsu/MB9BF10xN.svd',
  'targets/probe-rs/STM32H7_Series.yaml',
  'chips/stm32-data/STM32H7A3IG.json'
]

const tmp = scratchDirs()
let catalog: ReleaseCatalog
let manifest: ReleaseManifest
let ix: CatalogIndex
let counts: Map<string, number>

/** The one entity a name resolves to, exactly. */
function part(name: string): CatalogEntity {
  const { matches } = ix.match(name)
  expect(matches.map((m) => m.entity.name), name).toHaveLength(1)
  return matches[0]!.entity
}
const targetsOf = (name: string, topic: 'memory' | 'interrupts' | 'dma' | 'clocks' | 'registers') => ix.choices([part(name)], topic).choices.map((c) => c.target.key)

describe.skipIf(!haveWorld)('depth targets in a release of world-corpus files', () => {
  beforeAll(async () => {
    const dir = tmp('hwfacts-depth-')
    const id = await subsetRelease(WORLD, FILES, dir)
    const file = join(dir, 'releases', id, 'release.sqlite')
    const db = new Database(file, { readonly: true })
    const meta = (k: string) => JSON.parse(db.prepare<[string], { value: string }>('SELECT value FROM meta WHERE key = ?').get(k)!.value)
    catalog = meta('catalog') as ReleaseCatalog
    manifest = meta('manifest') as ReleaseManifest
    db.close()
    ix = new CatalogIndex(catalog)
    counts = new Map()
    for (const f of readStoredFacts(file)) counts.set(f.topic, (counts.get(f.topic) ?? 0) + 1)
  }, 300_000)

  it('every target is reached: the reach check reports nothing', () => {
    expect(manifest.problems.filter((p) => p.reason.startsWith('no part name resolves'))).toEqual([])
    for (const t of ['memory', 'interrupts', 'dma', 'clocks']) expect(counts.get(t), t).toBeGreaterThan(0)
  })

  it('STM32F407VG and its package part: interrupts from the chip file and the SVD, the other depth topics from the chip file', () => {
    const svd = 'svd:STMicro/stm32f4/STM32F407'
    expect(readFileSync(join(WORLD, 'svd/STMicro/stm32f4/STM32F407.svd'), 'utf8')).toMatch(/<name>STM32F407<\/name>/)
    for (const name of ['STM32F407VG', 'STM32F407VGTx']) {
      expect(targetsOf(name, 'interrupts'), name).toEqual(['stm32-data:STM32F407VG', svd])
      expect(targetsOf(name, 'registers'), name).toEqual([svd])
      for (const topic of ['memory', 'dma', 'clocks'] as const) expect(targetsOf(name, topic), `${name} ${topic}`).toEqual(['stm32-data:STM32F407VG'])
    }
  })

  it('STM32WL55JC: the chip has both cores\' facts; each core by its own name has its own, with its core\'s SVD', () => {
    expect(targetsOf('STM32WL55JC', 'interrupts')).toEqual(['stm32-data:STM32WL55JC@cm0p', 'stm32-data:STM32WL55JC@cm4', 'svd:STMicro/stm32wl/STM32WL5x_CM0P', 'svd:STMicro/stm32wl/STM32WL5x_CM4'])
    expect(targetsOf('STM32WL55JC', 'memory')).toEqual(['stm32-data:STM32WL55JC'])
    expect(targetsOf('STM32WL55JC_CM4', 'interrupts')).toEqual(['stm32-data:STM32WL55JC@cm4', 'svd:STMicro/stm32wl/STM32WL5x_CM4'])
    expect(targetsOf('STM32WL55JC_CM0P', 'dma')).toEqual(['stm32-data:STM32WL55JC@cm0p'])
    expect(targetsOf('STM32WL55JC_CM0P', 'memory')).toEqual(['stm32-data:STM32WL55JC'])
  })

  it('ATSAMD21G18A: memory from probe-rs and modm, interrupts from its SVD', () => {
    const memory = targetsOf('ATSAMD21G18A', 'memory')
    expect(memory.filter((k) => k.startsWith('probe-rs:'))).toEqual(['probe-rs:ATSAMD21G18A'])
    expect(memory.filter((k) => k.startsWith('modm:samd21:'))).toHaveLength(1)
    expect(targetsOf('ATSAMD21G18A', 'interrupts')).toEqual(['svd:Atmel/ATSAMD21G18A'])
  })

  it('variants of one part with memory maps of their own are parts of their own, with the part\'s other sources', () => {
    // nRF51822_xxAA/AB/AC: the MDK's build variants of nRF51822, three probe-rs memory maps.
    for (const v of ['AA', 'AB', 'AC']) {
      const name = `nRF51822_xx${v}`
      expect(part(name).name).toBe(name)
      expect(targetsOf(name, 'memory')).toEqual([`probe-rs:${name}`])
      expect(targetsOf(name, 'registers')).toEqual(targetsOf('nRF51822', 'registers'))
      expect(targetsOf(name, 'registers')).toEqual(['svd:Nordic/nrf51'])
      expect(part(name).targets.errata).toEqual(part('nRF51822').targets.errata)
    }
    // The part stands for them: its memory is ambiguous between them, not one of them picked.
    expect(targetsOf('nRF51822', 'memory')).toEqual(['probe-rs:nRF51822_xxAA', 'probe-rs:nRF51822_xxAB', 'probe-rs:nRF51822_xxAC'])
    // probe-rs and modm name nRF52832's variants alike: one part each, with both sources' maps.
    expect(targetsOf('nRF52832_xxAB', 'memory')).toEqual(['modm:nrf52832:nrf52832-xxab', 'probe-rs:nRF52832_xxAB'])
    // A Fujitsu variant of an SVD device written with an x: its own map, the device's registers.
    expect(targetsOf('MB9BF102N', 'memory')).toEqual(['probe-rs:MB9BF102N'])
    expect(targetsOf('MB9BF102N', 'registers')).toEqual(['svd:Fujitsu/MB9BF10xN'])
  })

  it('a package part takes another source\'s facts by its own name, not those of its chip\'s name (STM32H7A3IGKxQ)', () => {
    expect(targetsOf('STM32H7A3IGKxQ', 'memory')).toEqual(['probe-rs:STM32H7A3IGKxQ', 'stm32-data:STM32H7A3IG'])
    expect(targetsOf('STM32H7A3IG', 'memory')).toEqual(['probe-rs:STM32H7A3IG', 'stm32-data:STM32H7A3IG'])
  })

  it('nRF52840 (probe-rs variant nRF52840_xxAA): memory from probe-rs; RP2040: interrupts from its SVD', () => {
    expect(targetsOf('nRF52840_xxAA', 'memory')).toEqual(['probe-rs:nRF52840_xxAA'])
    expect(targetsOf('RP2040', 'interrupts')).toEqual(['svd:RaspberryPi/RP2040'])
  })
})
