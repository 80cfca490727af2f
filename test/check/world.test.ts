import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { subsetRelease } from '../compare/subset-release.js'
import { testApp, type TestApp } from '../helpers/app.js'
import { scratchDirs } from '../helpers/scratch.js'
import { nxpErrata } from './raw.js'

/**
 * /v1/check on a release of the world corpus's files that describe a few parts: an NXP device's
 * errata flags (its SDK feature header), a part without pin data, and the STM32H743's DMA from its
 * stm32-data chip file. Expected findings are read from the raw files.
 */
const WORLD = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '.cache', 'corpus-world')
const haveWorld = existsSync(join(WORLD, 'sources.json'))
if (!haveWorld) process.stdout.write(`[check world] ${WORLD} is not unpacked: not tested\n`)
const raw = (p: string) => readFileSync(join(WORLD, p), 'utf8')
const NXP = 'features/nxp/MKL25Z4_features.h'
const H743 = 'chips/stm32-data/STM32H743VI.json'
const H743_PINS = 'pins/stm32/mcu/STM32H743VITx.xml'
/** The GPIO modes file a pin-data file names, which gives its AF numbers (a release without it is partial). */
const modesOf = (mcu: string) => `pins/stm32/mcu/IP/GPIO-${/<IP [^>]*Name="GPIO" Version="([^"]+)"/.exec(raw(mcu))![1]}_Modes.xml`

type Obj = Record<string, any>
const tmp = scratchDirs()
let t: TestApp
let release: string
const check = async (q: Record<string, string>): Promise<Obj> => {
  const res = await t.app.inject({ url: `/v1/check?${new URLSearchParams({ ...q, corpus_release: release, max_tokens: '16000' })}`, headers: { ...t.auth, 'service-version': '2026-12-01' } })
  expect(res.statusCode, res.body).toBe(200)
  return res.json()
}
const only = (j: Obj, code: string) => j.findings.filter((f: Obj) => f.code === code)

describe.skipIf(!haveWorld)('checks on a release of world-corpus files', () => {
  beforeAll(async () => {
    const dir = tmp('hwfacts-check-world-')
    release = await subsetRelease(WORLD, [NXP, 'svd/Freescale/MKL25Z4.svd', H743, H743_PINS, modesOf(H743_PINS)], dir)
    t = await testApp(dir)
  }, 300_000)
  afterAll(async () => t?.close())

  it('an NXP device: the errata its feature header flags for the modules in use, with the header\'s title and line', async () => {
    const flags = nxpErrata(raw(NXP))
    expect(flags.length).toBeGreaterThan(0)
    const module = flags[0]!.module
    const j = await check({ part: 'MKL25Z128VLK4', assign: `${module}0_SCL:PTE24`, silicon_revision: '1' })
    const applies = only(j, 'ERRATUM_APPLIES')
    expect(applies.map((f: Obj) => f.erratum)).toEqual(
      flags.filter((f) => f.module === module).map((f) => ({ id: `errata.${f.id}`, title: f.title, module: f.module, workaround: null, revisions: null }))
    )
    for (const f of applies) {
      expect(f.evidence[0]).toMatchObject({ sourcePath: NXP })
      expect(f.evidence[0].locator).toMatch(new RegExp(`^line ${flags.find((x) => `errata.${x.id}` === f.erratum.id)!.line}\\b`))
    }
    // The header flags errata per device: the revision changes nothing, and a note says so.
    expect(j.notes.join(' ')).toMatch(/not narrowed by silicon revision/)
  })

  it('one revision rule: /v1/context with silicon_revision lists the same flagged errata as without (the header does not narrow by revision), as the check does', async () => {
    const ids = nxpErrata(raw(NXP)).map((f) => `errata.${f.id}`).sort()
    const names = async (extra: Record<string, string>) => {
      const res = await t.app.inject({ url: `/v1/context?${new URLSearchParams({ part: 'MKL25Z128VLK4', topic: 'errata', limit: '50', max_tokens: '16000', corpus_release: release, ...extra })}`, headers: t.auth })
      expect(res.statusCode, res.body).toBe(200)
      return (res.json().facts as Obj[]).map((f) => f.name).sort()
    }
    expect(await names({})).toEqual(ids)
    expect(await names({ silicon_revision: '1' })).toEqual(ids)
  })

  it('a module the header flags no erratum for gets none', async () => {
    const flagged = new Set(nxpErrata(raw(NXP)).map((f) => f.module))
    expect(flagged.has('UART')).toBe(false)
    const j = await check({ part: 'MKL25Z128VLK4', assign: 'UART0_TX:PTA2' })
    expect(only(j, 'ERRATUM_APPLIES')).toEqual([])
  })

  it('a part with no pin data: NOT_COVERED for its assignments, a warning, valid null', async () => {
    const j = await check({ part: 'MKL25Z128VLK4', assign: 'UART0_TX:PTA2,UART0_RX:PTA1' })
    expect(j.status).toBe('checked')
    expect(only(j, 'NOT_COVERED').find((f: Obj) => f.topic === 'pins')).toMatchObject({ severity: 'warning', inputs: ['UART0_TX:PTA2', 'UART0_RX:PTA1'] })
    expect(j.valid).toBeNull()
  })

  it('STM32H743: a DMA request the chip file lists is DMA_OK, with the chip file as evidence ', async () => {
    const chip = JSON.parse(raw(H743)) as { cores: Array<{ peripherals: Array<{ name: string; dma_channels?: Array<{ signal: string; request?: number; dmamux?: string }> }> }> }
    const usart1 = chip.cores[0]!.peripherals.find((p) => p.name === 'USART1')!
    const tx = usart1.dma_channels!.find((d) => d.signal === 'TX')!
    // The request goes through a multiplexer: any channel the core's list puts behind it takes it.
    const behind = (chip.cores[0] as unknown as { dma_channels: Array<{ name: string; dmamux?: string }> }).dma_channels.filter((c) => c.dmamux === tx.dmamux)
    expect(behind.length).toBeGreaterThan(0)
    const probe = await check({ part: 'STM32H743VIT6', dma: `USART1_TX:${behind[0]!.name}` })
    const [f] = only(probe, 'DMA_OK')
    expect(f.dma.map((o: Obj) => [o.controller, o.request])).toContainEqual([tx.dmamux, tx.request])
    expect(f.evidence[0].sourcePath).toBe(H743)
    // A channel no multiplexer of this request reaches is not available.
    const other = (chip.cores[0] as unknown as { dma_channels: Array<{ name: string; dmamux?: string }> }).dma_channels.find((c) => c.dmamux !== tx.dmamux)
    if (other) expect(only(await check({ part: 'STM32H743VIT6', dma: `USART1_TX:${other.name}` }), 'DMA_NOT_AVAILABLE')).toHaveLength(1)
  })
})
