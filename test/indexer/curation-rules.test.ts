import { describe, expect, it } from 'vitest'
import { coreOf, displayName, fileAlias, namesItsSeries, SVD_COVERS_REASON, svdCovers } from '../../indexer/curation/rules.js'
import type { DocumentTarget } from '../../src/model/fact.js'

/**
 * The naming rules (indexer/curation/rules.ts) one by one, on names written here. Expected values
 * from each rule's documented definition: the core suffixes of multi-core SVDs, an SVD device name
 * covering the parts it is a prefix of with a lowercase x for any one character (a name as short as
 * a series name, `nrf52`, names a series and covers no part by prefix), Nordic's spelling, the file
 * versions and `_registers` that are no part of a name, a file name naming a generator-named device,
 * and a device named like its series.
 */

describe('coreOf: the core suffix of an SVD that describes one core of a multi-core device', () => {
  it('every documented suffix, after _ or -, in any case', () => {
    const cases: Array<[string, string, string]> = [
      ['STM32H745_CM4', 'STM32H745', 'CM4'],
      ['STM32H745_CM7', 'STM32H745', 'CM7'],
      ['STM32H755-cm7', 'STM32H755', 'cm7'],
      ['nrf5340_application', 'nrf5340', 'application'],
      ['nrf5340_network', 'nrf5340', 'network'],
      ['nrf54l15_flpr', 'nrf54l15', 'flpr'],
      ['nrf54h20_ppr', 'nrf54h20', 'ppr'],
      ['RP2350_cm0p', 'RP2350', 'cm0p'],
      ['LPC55S69_cm33', 'LPC55S69', 'cm33'],
      ['LPC55S69_cm33_core0', 'LPC55S69', 'cm33_core0'],
      ['LPC55S69_cm33_core1', 'LPC55S69', 'cm33_core1'],
      ['ESP32-C6-LP', 'ESP32-C6', 'LP'],
      ['ESP32-S3_ulp', 'ESP32-S3', 'ulp']
    ]
    for (const [device, chip, core] of cases) expect(coreOf(device), device).toEqual({ chip, core })
  })
  it('no suffix, a suffix that goes on, a suffix alone, no separator: none', () => {
    for (const device of ['ESP32-C3', 'STM32F0x2', 'STM32H745_CM4X', 'STM32H745_CM', '_cm4', 'CM4', 'nrf5340network', 'LPC55S69_cm33_core', 'LPC55S69_cm33_coreA'])
      expect(coreOf(device), device).toBeUndefined()
  })
})

describe('svdCovers: an SVD device name covers the parts it is a prefix of', () => {
  it('a prefix covers, without wildcards 0; the same name covers itself', () => {
    expect(svdCovers('STM32F407', 'STM32F407VG')).toBe(0)
    expect(svdCovers('STM32F407', 'STM32F407')).toBe(0)
    // Any case: the SVD writes names as its vendor does.
    expect(svdCovers('stm32f407', 'STM32F407VG')).toBe(0)
    expect(svdCovers('STM32F407', 'STM32F417VG')).toBe(-1)
    expect(svdCovers('STM32F407', 'XSTM32F407')).toBe(-1)
  })
  it('a lowercase x on either side stands for one character, counted; an upper-case X is a letter', () => {
    expect(svdCovers('STM32L4x6', 'STM32L476RGTx')).toBe(1)
    expect(svdCovers('STM32F0xx', 'STM32F072RB')).toBe(2)
    expect(svdCovers('STM32GBK1CBT6', 'STM32GBK1CBTx')).toBe(1)
    expect(svdCovers('STM32F0x2', 'STM32F0x2')).toBe(1)
    // The part's x beyond the device name's end is not a position the name uses.
    expect(svdCovers('STM32F407', 'STM32F407VGTx')).toBe(0)
    expect(svdCovers('STM32F40X', 'STM32F407VG')).toBe(-1)
    expect(svdCovers('STM32L4x6', 'STM32L475RG')).toBe(-1)
  })
  it('a device name longer than the part covers nothing', () => {
    expect(svdCovers('STM32F407VGT6', 'STM32F407VG')).toBe(-1)
    expect(svdCovers('STM32F407V', 'STM32F407')).toBe(-1)
  })
  it('a name as short as a series name (under 6 characters) covers no part by prefix; 6 do', () => {
    // nrf52.svd names its series (<series>nrf52</series>), not the nRF52832 or nRF52840.
    expect(svdCovers('nrf52', 'nrf52840')).toBe(-1)
    expect(svdCovers('nrf52', 'nrf52')).toBe(-1)
    expect(svdCovers('esp32', 'ESP32-S3')).toBe(-1)
    expect(svdCovers('K64F', 'K64F12')).toBe(-1)
    expect(svdCovers('rp2040', 'RP2040')).toBe(0)
    expect(svdCovers('nrf528', 'nRF52840')).toBe(0)
  })
  it('the chip of a multi-core SVD covers, its core suffix left out', () => {
    expect(svdCovers('STM32H745_CM4', 'STM32H745ZITx')).toBe(0)
    expect(svdCovers('nrf5340_application', 'NRF5340_XXAA')).toBe(0)
    // Without the suffix the chip name is too short: none.
    expect(svdCovers('nrf53_network', 'nrf5340')).toBe(-1)
  })
  it('the reason says which rule applied, the line when given, and the core suffix left out', () => {
    expect(SVD_COVERS_REASON('STM32L4x6', 'STM32L476RGTx', '12', 1)).toBe(
      'SVD device STM32L4x6 covers STM32L476RGTx (line 12): each lowercase x in the SVD device name stands for one character of the part name'
    )
    expect(SVD_COVERS_REASON('STM32F407', 'STM32F407VGTx', undefined, 0)).toBe('SVD device STM32F407 covers STM32F407VGTx: the part name starts with the SVD device name')
    expect(SVD_COVERS_REASON('STM32H745_CM4', 'STM32H745ZITx', undefined, 0)).toBe(
      'SVD device STM32H745_CM4 covers STM32H745ZITx: STM32H745_CM4 without its core suffix is STM32H745, the part name starts with the SVD device name'
    )
  })
})

describe('displayName', () => {
  it("Nordic's parts as Nordic writes them (nRF and the rest upper case), only Nordic's", () => {
    expect(displayName('nrf52840', 'nordic')).toBe('nRF52840')
    expect(displayName('NRF52840', 'nordic')).toBe('nRF52840')
    expect(displayName('nrf5340_application', 'nordic')).toBe('nRF5340_APPLICATION')
    expect(displayName('nrf52840', 'st')).toBe('nrf52840')
    expect(displayName('nrf52840', undefined)).toBe('nrf52840')
    expect(displayName('xnrf52', 'nordic')).toBe('xnrf52')
  })
  it('a register file names its family; a trailing file version is no part of the name', () => {
    expect(displayName('NUC1xx_registers', 'nuvoton')).toBe('NUC1xx')
    expect(displayName('NUC1xx_REGISTERS', undefined)).toBe('NUC1xx')
    expect(displayName('NUC1xx_registers_x', undefined)).toBe('NUC1xx_registers_x')
    expect(displayName('AT32F421xx_v2', 'artery')).toBe('AT32F421xx')
    expect(displayName('AT32F421xx_v12', 'artery')).toBe('AT32F421xx')
    expect(displayName('AT32F421xx_v', 'artery')).toBe('AT32F421xx_v')
    expect(displayName('AT32_v2_F421', 'artery')).toBe('AT32_v2_F421')
    expect(displayName('STM32F407', 'st')).toBe('STM32F407')
  })
})

describe('fileAlias: the file name of an SVD whose device name is a generator’s', () => {
  const alias = (sourcePath: string, device: string) => fileAlias({ sourcePath, device })
  it('the file name when the device name does not contain it and it has a digit', () => {
    expect(alias('svd/SiFive/fu740.svd', 'sifive_hifive_unmatched_a00')).toBe('fu740')
    expect(alias('svd/x/FE310.XML', 'sifive_freedom')).toBe('FE310')
    expect(alias('ab12.svd', 'board')).toBe('ab12')
  })
  it('none when the names agree, the file name has no digit or under 4 characters', () => {
    expect(alias('svd/ST/STM32F407.svd', 'STM32F407')).toBeUndefined()
    expect(alias('svd/ST/stm32f407.svd', 'STM32F407_device')).toBeUndefined()
    // The file name containing the device name (its _registers left out).
    expect(alias('svd/ST/STM32F407xx.svd', 'STM32F407')).toBeUndefined()
    expect(alias('svd/Nuvoton/NUC100.svd', 'NUC100_registers')).toBeUndefined()
    expect(alias('svd/Nuvoton/NUC100_series.svd', 'NUC100_registers')).toBeUndefined()
    expect(alias('svd/SiFive/sifive.svd', 'e31')).toBeUndefined()
    expect(alias('svd/x/a1b.svd', 'board')).toBeUndefined()
    expect(alias('svd/x/a-1-b.svd', 'board')).toBeUndefined()
  })
})

describe('namesItsSeries', () => {
  const t = (device: string, series?: string): DocumentTarget =>
    ({ key: `svd:${device}`, topics: ['registers'], device, sourceSha256: 'a'.repeat(64), sourcePath: `svd/${device}.svd`, ...(series !== undefined ? { identity: { series } } : {}) }) as DocumentTarget
  it('a device named like its series, in any spelling', () => {
    expect(namesItsSeries(t('nrf52', 'nrf52'))).toBe(true)
    expect(namesItsSeries(t('psoc63', 'PSoC 63'))).toBe(true)
    expect(namesItsSeries(t('nrf52840', 'nrf52'))).toBe(false)
    expect(namesItsSeries(t('nrf52'))).toBe(false)
  })
})
