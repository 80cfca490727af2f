import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { HardwareFacts } from '../../src/service/facts.js'
import { DataDir } from '../../src/store/layout.js'
import { SqliteRepository } from '../../src/store/sqlite/store.js'
import { subsetRelease } from '../compare/subset-release.js'
import { probeRsMap } from '../helpers/probe-rs-map.js'
import { scratchDirs } from '../helpers/scratch.js'

/**
 * Depth topics cross-checked between sources, on a release of world-corpus files: what the service
 * answers is compared with what the raw files say, read here without the readers (JSON.parse, the
 * YAML tree, the SVD's `<interrupt>` elements).
 */
const WORLD = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '.cache', 'corpus-world')
const haveWorld = existsSync(join(WORLD, 'sources.json'))
const CHIP = 'chips/stm32-data/STM32F407VG.json'
const SVD = 'svd/STMicro/stm32f4/STM32F407.svd'
const PROBE_STM32 = 'targets/probe-rs/STM32F4_Series.yaml'
const PROBE_NRF = 'targets/probe-rs/nRF52_Series.yaml'
const MODM_NRF = 'devices/modm/nrf/nrf52840.xml'
const F334 = 'chips/stm32-data/STM32F334C4.json'
const F334_SVD = 'svd/STMicro/stm32f3/STM32F3x4.svd'
const ST_F407 = 'pins/stm32/mcu/STM32F407V(E-G)Tx.xml'
const ST_F407_GPIO = 'pins/stm32/mcu/IP/GPIO-STM32F417_gpio_v1_0_Modes.xml'
const G441 = 'chips/stm32-data/STM32G441CB.json'
const ST_G441 = 'pins/stm32/mcu/STM32G441CBTx.xml'
const ST_G441_GPIO = 'pins/stm32/mcu/IP/GPIO-STM32G43x_gpio_v1_0_Modes.xml'
const MODM_F4 = 'devices/modm/stm32/stm32f4-05_07_15_17.xml'
const FILES = [CHIP, SVD, PROBE_STM32, PROBE_NRF, MODM_NRF, 'svd/Nordic/nrf52840.svd', F334, F334_SVD, ST_F407, ST_F407_GPIO, G441, ST_G441, ST_G441_GPIO, MODM_F4]

type Obj = Record<string, any>
const raw = (path: string) => readFileSync(join(WORLD, path), 'utf8')
const tmp = scratchDirs()
let facts: HardwareFacts
let repo: SqliteRepository

async function page(part: string, topic: 'interrupts' | 'memory' | 'pins', extra: Obj = {}, version?: '2026-08-26'): Promise<Obj> {
  return JSON.parse((await facts.context({ part, topic, limit: 50, max_tokens: 16000, ...extra }, null, version)).body) as Obj
}

/**
 * The alternate functions of one package from ST's pin data, by GPIO name: each `<Pin>` of the MCU
 * file with the `GPIO_AFn_…` values its GPIO modes file gives the signals the pin lists (EVENTOUT
 * where its GPIO signal offers it). `AF signal` strings.
 */
function stAlternateFunctions(mcu: string, modes: string): Map<string, Set<string>> {
  const afs = new Map<string, Array<[string, number]>>()
  for (const m of raw(modes).matchAll(/<GPIO_Pin [^>]*Name="([^"]+)">([\s\S]*?)<\/GPIO_Pin>/g))
    afs.set(m[1]!, [...m[2]!.matchAll(/<PinSignal Name="([^"]+)">[\s\S]*?<PossibleValue>GPIO_AF(\d+)_/g)].map((x) => [x[1]!, Number(x[2])]))
  const out = new Map<string, Set<string>>()
  for (const m of raw(mcu).matchAll(/<Pin Name="(P[A-Z]\d+)[^"]*"[^>]*?(?:\/>|>([\s\S]*?)<\/Pin>)/g)) {
    const label = m[0].match(/Name="([^"]+)"/)![1]!
    const signals = [...(m[2] ?? '').matchAll(/<Signal (?:IOModes="([^"]*)" )?Name="([^"]+)"/g)]
    const listed = new Set(signals.map((x) => x[2]!))
    if (signals.some((x) => x[1]?.includes('EVENTOUT'))) listed.add('EVENTOUT')
    const set = out.get(m[1]!) ?? new Set<string>()
    for (const [sig, af] of afs.get(label) ?? []) if (listed.has(sig)) set.add(`${af} ${sig}`)
    out.set(m[1]!, set)
  }
  return out
}

/** The alternate functions of a chip file's pins (`cores[].peripherals[].pins` with an `af`), as `AF signal` strings spelled as ST does (SPIn's `I2S_CK` is ST's `I2Sn_CK`). */
function chipAlternateFunctions(path: string): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>()
  for (const core of (JSON.parse(raw(path)) as Obj).cores)
    for (const p of core.peripherals)
      for (const q of p.pins ?? []) {
        if (q.af === undefined) continue
        const spi = /^SPI(\d+)$/.exec(p.name)
        const signal = spi && q.signal.startsWith('I2S_') ? `I2S${spi[1]}_${q.signal.slice(4)}` : `${p.name}_${q.signal}`
        out.set(q.pin, (out.get(q.pin) ?? new Set()).add(`${q.af} ${signal}`))
      }
  return out
}

const attrsOf = (tag: string): Record<string, string> => Object.fromEntries([...tag.matchAll(/([\w-]+)="([^"]*)"/g)].map((m) => [m[1]!, m[2]!]))

/**
 * The alternate functions a modm device file gives the GPIO pins of one package for one
 * identifier's attributes (`{name: '07', pin: 'v', …}`), as `AF SIGNAL` strings (`7 USART1_TX`):
 * the `<gpio>` and `<signal af>` elements whose `device-*` filters all admit it.
 */
function modmAlternateFunctions(path: string, id: Record<string, string>, pkg: string): Map<string, Set<string>> {
  const admits = (a: Record<string, string>) => Object.entries(a).every(([k, v]) => !k.startsWith('device-') || v.split('|').includes(id[k.slice(7)]!))
  const text = raw(path)
  const body = [...text.matchAll(/<package ([^>]*)>([\s\S]*?)<\/package>/g)].find((m) => attrsOf(m[1]!).name === pkg)!
  expect(admits(attrsOf(body[1]!))).toBe(true)
  const out = new Map<string, Set<string>>()
  for (const m of body[2]!.matchAll(/<pin [^>]*name="(P[A-Z]\d+)(?![\d_])[^"]*"/g)) out.set(m[1]!, new Set())
  // A <gpio> without signals is written `<gpio port="b" pin="2"/>`.
  for (const g of text.matchAll(/<gpio ([^>]*?)(?:\/>|>([\s\S]*?)<\/gpio>)/g)) {
    const a = attrsOf(g[1]!)
    const name = `P${a.port!.toUpperCase()}${a.pin}`
    if (!out.has(name) || !admits(a)) continue
    for (const t of (g[2] ?? '').matchAll(/<signal [^>]*\/>/g)) {
      const sig = attrsOf(t[0])
      if (sig.af !== undefined && admits(sig)) out.get(name)!.add(`${sig.af} ${sig.driver!.toUpperCase()}${sig.instance ?? ''}_${stName(sig.name!)}`)
    }
  }
  return out
}
/** A modm signal name as ST's pin data writes it: upper case, the I2S extension's `ext_` apart (`I2S2_ext_SD`). */
const stName = (n: string) => n.toUpperCase().replace(/^EXT_/, 'ext_')
/** STM32F407VGT6 by modm's naming schema: {platform}{family}{name}{pin}{size}{package}{temperature}{variant}. */
const F407VGT6 = { platform: 'stm32', family: 'f4', name: '07', pin: 'v', size: 'g', package: 't', temperature: '6', variant: '' }

/** The source line an evidence locator names, and the few after it (an element's opening line, then its members). */
function located(e: Obj): string {
  const line = Number(/^line (\d+)/.exec(e.locator)![1])
  return raw(e.sourcePath).split('\n').slice(line - 1, line + 3).join('\n')
}

/** Address ranges a kind of memory covers, adjacent regions merged: `kind start-end` strings. */
function extents(regions: Array<{ kind: string; start: number; size: number }>): string[] {
  const out: Array<{ kind: string; start: number; end: number }> = []
  for (const r of [...regions].sort((a, b) => (a.kind < b.kind ? -1 : a.kind > b.kind ? 1 : a.start - b.start))) {
    const last = out[out.length - 1]
    if (last && last.kind === r.kind && r.start <= last.end) last.end = Math.max(last.end, r.start + r.size)
    else out.push({ kind: r.kind, start: r.start, end: r.start + r.size })
  }
  return out.map((e) => `${e.kind} ${e.start.toString(16)}-${e.end.toString(16)}`)
}

/** Per GPIO pin a package of the chip file and ST's pin data both give: whether every AF of the chip file is ST's. */
function verdicts(mcu: string, modes: string, chipPath: string, pkg: number): Map<string, boolean> {
  const sd = chipAlternateFunctions(chipPath)
  const names = ((JSON.parse(raw(chipPath)) as Obj).packages[pkg].pins as Obj[]).flatMap((p) => p.signals as string[]).filter((n) => /^P[A-Z]\d+$/.test(n))
  return within(stAlternateFunctions(mcu, modes), new Map(names.map((n) => [n, sd.get(n) ?? new Set<string>()])))
}
/** Per pin of `checked` ST's pin data also gives: whether every AF `checked` gives it is ST's. */
function within(st: Map<string, Set<string>>, checked: Map<string, Set<string>>): Map<string, boolean> {
  return new Map([...checked].filter(([n]) => st.has(n)).map(([n, afs]) => [n, [...afs].every((x) => st.get(n)!.has(x))]))
}
const disagreeing = (v: Map<string, boolean>) => [...v.values()].filter((x) => !x).length
/** Per GPIO pin of STM32F407VGT6's LQFP100 in modm and ST's pin data: whether every AF modm gives is ST's. */
const modmVerdicts = () => within(stAlternateFunctions(ST_F407, ST_F407_GPIO), modmAlternateFunctions(MODM_F4, F407VGT6, 'LQFP100'))

describe.skipIf(!haveWorld)('depth topics cross-checked between sources (world-corpus files)', () => {
  const chip = () => JSON.parse(raw(CHIP)) as Obj
  /** The SVD's interrupt lines: name → number, first declaration. */
  const svdInterrupts = (path = SVD) => {
    const out = new Map<string, number>()
    for (const m of raw(path).matchAll(/<interrupt>\s*<name>(\w+)<\/name>[\s\S]*?<value>(\d+)<\/value>/g)) if (!out.has(m[1]!)) out.set(m[1]!, Number(m[2]))
    return out
  }

  beforeAll(async () => {
    const data = tmp('hwfacts-depth-cross-')
    const id = await subsetRelease(WORLD, FILES, data)
    new DataDir(data).promote(id)
    repo = new SqliteRepository(data)
    facts = new HardwareFacts(repo, 'test-secret')
  }, 300_000)
  afterAll(async () => repo?.close())

  it('STM32F407VG interrupts: the chip file is served, the SVD checked by vector number; USART1 is 37 in both, with both evidences', async () => {
    const lines = chip().cores[0].interrupts as Array<{ name: string; number: number }>
    const svd = svdInterrupts()
    const b = await page('STM32F407VG', 'interrupts', { fact_names: 'USART1' })
    expect(b.target.key).toBe('stm32-data:STM32F407VG')
    expect(b.crossCheck.checked.map((c: Obj) => c.source.path)).toEqual([SVD])
    // Expected from the raw files: a chip line agrees when the SVD has it by name at the same number,
    // or (named otherwise) at its number; none has the same name at another number.
    const byNumber = new Map([...svd].map(([n, v]) => [v, n]))
    const agreeing = lines.filter((l) => (svd.has(l.name) ? svd.get(l.name) === l.number : byNumber.has(l.number)))
    expect(lines.filter((l) => svd.has(l.name) && svd.get(l.name) !== l.number)).toEqual([])
    expect({ agree: b.crossCheck.agree, disagree: b.crossCheck.disagree }).toEqual({ agree: agreeing.length, disagree: 0 })
    const matchedNumbers = new Set(agreeing.map((l) => l.number))
    expect(b.crossCheck.onlyChecked[b.crossCheck.checked[0].key]).toBe([...svd].filter(([n, v]) => !lines.some((l) => l.name === n) && !matchedNumbers.has(v)).length)

    const [usart] = b.facts as Obj[]
    expect(usart).toMatchObject({ name: 'USART1', value: { number: lines.find((l) => l.name === 'USART1')!.number }, agreement: 'agree' })
    expect(usart!.value.number).toBe(svd.get('USART1'))
    expect(usart!.value.number).toBe(37)
    expect(usart!.evidence.map((e: Obj) => e.sourcePath)).toEqual([CHIP, SVD])
    for (const e of usart!.evidence) expect(located(e)).toContain('USART1')
  })

  it('a line the SVD names otherwise agrees by number and keeps the SVD\'s name as an alias', async () => {
    const lines = chip().cores[0].interrupts as Array<{ name: string; number: number }>
    const svd = svdInterrupts()
    const byNumber = new Map([...svd].map(([n, v]) => [v, n]))
    const renamed = lines.filter((l) => !svd.has(l.name) && byNumber.has(l.number))
    expect(renamed.length).toBeGreaterThan(0)
    const b = await page('STM32F407VG', 'interrupts', { fact_names: renamed.map((l) => l.name).join(',') })
    expect(b.facts.map((f: Obj) => [f.name, f.aliases, f.agreement])).toEqual(renamed.map((l) => [l.name, [byNumber.get(l.number)], 'agree']))
  })

  it('STM32F407VG memory: the chip file served, probe-rs checked by the ranges each kind covers', async () => {
    const regions = (chip().memory as Obj[][]).flat().map((r) => ({ name: r.name as string, kind: r.kind as string, start: r.address as number, size: r.size as number }))
    const kinds: Obj = { '!Nvm': 'flash', '!Ram': 'ram', '!Generic': 'other' }
    const probe = probeRsMap(join(WORLD, PROBE_STM32), 'STM32F407VG').map((r) => ({ kind: kinds[r.tag], start: r.start, size: r.end - r.start }))
    const b = await page('STM32F407VG', 'memory')
    expect(b.target.key).toBe('stm32-data:STM32F407VG')
    expect(b.crossCheck.checked.map((c: Obj) => c.source.path)).toEqual([PROBE_STM32])
    const probeExtents = new Set(extents(probe))
    const extentOf = (r: { kind: string; start: number }) => extents(regions.filter((x) => x.kind === r.kind)).find((e) => {
      const [lo, hi] = e.split(' ')[1]!.split('-').map((h) => parseInt(h, 16))
      return r.start >= lo! && r.start < hi!
    })!
    for (const r of regions) {
      const f = (b.facts as Obj[]).find((x) => x.name === r.name)!
      expect(f.value, r.name).toMatchObject({ kind: r.kind, start: '0x' + r.start.toString(16).toUpperCase().padStart(8, '0'), size: r.size })
      const agrees = probeExtents.has(extentOf(r))
      expect(f.agreement, r.name).toBe(agrees ? 'agree' : undefined)
      // Agreeing, the evidence of every probe-rs region of that range follows the chip file's.
      const [lo, hi] = extentOf(r).split(' ')[1]!.split('-').map((h) => parseInt(h, 16))
      const probeRegions = probe.filter((x) => x.kind === r.kind && x.start >= lo! && x.start < hi!).length
      expect(f.evidence.map((e: Obj) => e.sourcePath), r.name).toEqual(agrees ? [CHIP, ...Array(probeRegions).fill(PROBE_STM32)] : [CHIP])
    }
    // The 1 MiB of flash: three sectors in the chip file, one bank in probe-rs, agreeing.
    expect(extentOf(regions.find((r) => r.name === 'BANK_1_REGION_1')!)).toBe('flash 8000000-8100000')
    expect(b.facts.find((f: Obj) => f.name === 'BANK_1_REGION_3').agreement).toBe('agree')
  })

  it('nRF52840 memory from probe-rs (flash 1 MiB at 0x0, RAM 256 KiB at 0x20000000), checked against modm-devices', async () => {
    const ranges = probeRsMap(join(WORLD, PROBE_NRF), 'nRF52840_xxAA').map((r) => [r.tag, r.start, r.end - r.start])
    expect(ranges).toContainEqual(['!Nvm', 0, 1024 * 1024])
    expect(ranges).toContainEqual(['!Ram', 0x20000000, 256 * 1024])
    const b = await page('nRF52840', 'memory')
    expect(b.target.source.path).toBe(PROBE_NRF)
    expect(b.crossCheck.checked.map((c: Obj) => c.source.path)).toEqual([MODM_NRF])
    const values = (b.facts as Obj[]).map((f) => f.value)
    expect(values).toContainEqual(expect.objectContaining({ kind: 'flash', start: '0x00000000', size: 1024 * 1024 }))
    expect(values).toContainEqual(expect.objectContaining({ kind: 'ram', start: '0x20000000', size: 256 * 1024 }))
    // modm gives flash at 0x0 of the same size: that region agrees, with modm's <memory> line as evidence.
    const modmFlash = /<memory name="flash"[^>]*start="(0x[0-9a-f]+)" size="(\d+)"/i.exec(raw(MODM_NRF))!
    expect(Number(modmFlash[1])).toBe(0)
    expect(Number(modmFlash[2])).toBe(1024 * 1024)
    const flash = (b.facts as Obj[]).find((f) => f.value.kind === 'flash' && f.value.start === '0x00000000')!
    expect(flash.agreement).toBe('agree')
    expect(located(flash.evidence[1])).toContain('<memory name="flash"')
  })

  it('/v1/discrepancies lists the checked topics and no disagreement where the sources agree; an unknown part is not_found with suggestions', async () => {
    const d = (await facts.discrepancies({ part: 'STM32F407VG' })) as Obj
    expect(d.checked.map((c: Obj) => c.topic).sort()).toEqual(['interrupts', 'memory', 'pins'])
    // Interrupts and memory agree; the pins that differ (stm32-data's and modm's) are the only disagreements.
    const pins = disagreeing(verdicts(ST_F407, ST_F407_GPIO, CHIP, 0)) + disagreeing(modmVerdicts())
    expect(d).toMatchObject({ status: 'resolved', count: pins })
    expect(d.discrepancies.every((x: Obj) => x.topic === 'pins')).toBe(true)
    const unknown = (await facts.discrepancies({ part: 'STM32F407ZZ' })) as Obj
    expect(unknown.status).toBe('not_found')
    expect(unknown.suggestions.length).toBeGreaterThan(0)
  })

  it('a real disagreement: STM32F334C4\'s HRTIM lines, numbered otherwise by ST\'s SVD, are each source\'s fact, scoped to it, never one picked', async () => {
    const lines = (JSON.parse(raw(F334)) as Obj).cores[0].interrupts as Array<{ name: string; number: number }>
    const svd = svdInterrupts(F334_SVD)
    const differing = lines.filter((l) => svd.has(l.name) && svd.get(l.name) !== l.number)
    expect(differing.map((l) => l.name)).toContain('HRTIM1_TIMA')
    const d = (await facts.discrepancies({ part: 'STM32F334C4', topic: 'interrupts', limit: 50 })) as Obj
    expect(d.count).toBe(differing.length)
    expect(d.discrepancies.map((x: Obj) => [x.name, x.facts.map((f: Obj) => [f.value.number, f.scope.source, f.agreement])])).toEqual(
      differing.map((l) => [l.name, [[l.number, F334, 'disagree'], [svd.get(l.name), F334_SVD, 'disagree']]])
    )
    // /v1/context serves both values of such a line, each with its own evidence.
    const b = await page('STM32F334C4', 'interrupts', { fact_names: 'HRTIM1_TIMA' })
    expect(b.crossCheck.disagree).toBe(differing.length)
    expect(b.facts.map((f: Obj) => [f.value.number, f.evidence.map((e: Obj) => e.sourcePath)])).toEqual([
      [lines.find((l) => l.name === 'HRTIM1_TIMA')!.number, [F334]],
      [svd.get('HRTIM1_TIMA'), [F334_SVD]]
    ])
    for (const f of b.facts) expect(located(f.evidence[0])).toContain('HRTIM1_TIMA')
  })

  it('the same request gives the same bytes', async () => {
    const a = (await facts.context({ part: 'STM32F407VG', topic: 'interrupts', limit: 50, max_tokens: 16000 })).body
    const fresh = new HardwareFacts(repo, 'test-secret', { contextCacheBytes: 0 })
    expect((await fresh.context({ part: 'STM32F407VG', topic: 'interrupts', limit: 50, max_tokens: 16000 })).body).toBe(a)
  })

  describe('pins: ST\'s pin data served, stm32-data and modm checked on the alternate functions', () => {
    it('STM32F407VG (LQFP100) PA9: AF7 USART1_TX in all three, one fact with every source\'s evidence; the package\'s counts', async () => {
      const usart = (chip().cores[0].peripherals as Obj[]).find((p) => p.name === 'USART1')!.pins.find((q: Obj) => q.pin === 'PA9' && q.signal === 'TX')
      expect(usart.af).toBe(7)
      expect(stAlternateFunctions(ST_F407, ST_F407_GPIO).get('PA9')).toContain('7 USART1_TX')
      expect(chip().packages[0]).toMatchObject({ name: 'STM32F407VGTx', package: 'LQFP100' })
      const b = await page('STM32F407VGTx', 'pins', { fact_names: 'PA9' })
      expect(b.target).toMatchObject({ key: 'stm32:STM32F407V(E-G)Tx', package: 'LQFP100' })
      expect(b.crossCheck.checked.map((c: Obj) => c.source.path)).toEqual([CHIP, MODM_F4])
      const m = modmAlternateFunctions(MODM_F4, F407VGT6, 'LQFP100')
      expect(m.get('PA9')).toContain('7 USART1_TX')
      // A pin agrees when every checked source that gives it agrees with ST's.
      const v = verdicts(ST_F407, ST_F407_GPIO, CHIP, 0)
      const mv = modmVerdicts()
      const pins = new Set([...v.keys(), ...mv.keys()])
      const bad = [...pins].filter((n) => v.get(n) === false || mv.get(n) === false).length
      expect(bad).toBeGreaterThan(0)
      expect({ agree: b.crossCheck.agree, disagree: b.crossCheck.disagree }).toEqual({ agree: pins.size - bad, disagree: bad })
      const [pa9] = b.facts as Obj[]
      expect(pa9).toMatchObject({ name: 'PA9', agreement: 'agree', scope: { package: 'LQFP100' } })
      expect(pa9!.value.alternateFunctions).toContainEqual({ af: 7, signal: 'USART1_TX' })
      expect([...new Set(pa9!.evidence.map((e: Obj) => e.sourcePath))]).toEqual([ST_F407, ST_F407_GPIO, CHIP, MODM_F4])
      const chipEvidence = pa9!.evidence.filter((e: Obj) => e.sourcePath === CHIP)
      expect(located(chipEvidence[0])).toContain('"PA9"')
      expect(chipEvidence.map((e: Obj) => located(e)).join('\n')).toMatch(/"pin": "PA9",\s*"signal": "TX",\s*"af": 7/)
      // modm's: the LQFP100 pin, the <gpio>, and each AF signal, by line.
      const modmLines = pa9!.evidence.filter((e: Obj) => e.sourcePath === MODM_F4).map((e: Obj) => located(e).split('\n')[0]!.trim())
      expect(modmLines[0]).toMatch(/^<pin position="\d+" name="PA9"\/>$/)
      expect(modmLines[1]).toBe('<gpio port="a" pin="9">')
      expect(modmLines).toContain('<signal af="7" driver="usart" instance="1" name="tx"/>')
    })

    it('modm\'s disagreements on STM32F407VGTx: the debug port named per signal (SYS_JTMS, SYS_SWDIO for ST\'s SYS_JTMS-SWDIO) and ETH_RCC_CRS_DV', async () => {
      const bad = [...modmVerdicts()].filter(([, ok]) => !ok).map(([n]) => n).sort()
      expect(bad).toEqual(['PA13', 'PA14', 'PA7', 'PB3'])
      const st = stAlternateFunctions(ST_F407, ST_F407_GPIO)
      expect(st.get('PA13')).toContain('0 SYS_JTMS-SWDIO')
      expect(st.get('PA7')).toContain('11 ETH_CRS_DV')
      const d = (await facts.discrepancies({ part: 'STM32F407VGTx', topic: 'pins', limit: 50 })) as Obj
      const modm = (d.discrepancies as Obj[]).filter((x) => x.facts[1].scope.source === MODM_F4)
      expect(modm.map((x) => x.name).sort()).toEqual(bad)
      const pa13 = modm.find((x) => x.name === 'PA13')!
      expect(pa13.facts[1].value.alternateFunctions).toEqual(expect.arrayContaining([{ af: 0, signal: 'SYS_JTMS' }, { af: 0, signal: 'SYS_SWDIO' }]))
      expect(pa13.facts[0].scope.source).toBe(ST_F407)
    })

    it('a real disagreement: stm32-data gives STM32G441CB PB7 UART4_CTS on AF14, ST\'s pin data no UART4 on the part; each source\'s fact, scoped to it', async () => {
      const v = verdicts(ST_G441, ST_G441_GPIO, G441, (JSON.parse(raw(G441)) as Obj).packages.findIndex((p: Obj) => p.name === 'STM32G441CBTx'))
      expect(v.get('PB7')).toBe(false)
      expect(chipAlternateFunctions(G441).get('PB7')).toContain('14 UART4_CTS')
      expect(raw(ST_G441)).not.toContain('UART4')
      const d = (await facts.discrepancies({ part: 'STM32G441CBTx', topic: 'pins', limit: 50 })) as Obj
      expect(d.count).toBe(disagreeing(v))
      const pb7 = (d.discrepancies as Obj[]).find((x) => x.name === 'PB7')!
      expect(pb7.facts.map((f: Obj) => [f.scope.source, f.agreement])).toEqual([[ST_G441, 'disagree'], [G441, 'disagree']])
      expect(pb7.facts[1].value.alternateFunctions).toContainEqual({ af: 14, signal: 'UART4_CTS' })
      expect(pb7.facts[0].value.alternateFunctions).not.toContainEqual(expect.objectContaining({ signal: 'UART4_CTS' }))
    })

    it('the seed contract (2026-08-26) is served ST\'s pins alone, as before: no crossCheck, no agreement, ST\'s evidence only', async () => {
      const b = await page('STM32F407VGTx', 'pins', { fact_names: 'PA9' }, '2026-08-26')
      expect(b.target.key).toBe('stm32:STM32F407V(E-G)Tx')
      expect(b.crossCheck).toBeUndefined()
      expect(b.facts[0].agreement).toBeUndefined()
      expect([...new Set(b.facts[0].evidence.map((e: Obj) => e.sourcePath))]).toEqual([ST_F407, ST_F407_GPIO])
      const seed = (await facts.coverage({ part: 'STM32F407VG' })) as Obj
      expect(seed.topics.pins).toMatchObject({ status: 'covered', target: { key: 'stm32:STM32F407V(E-G)Tx' } })
      expect(seed.topics.pins.crossCheck).toBeUndefined()
      const depth = (await facts.coverage({ part: 'STM32F407VG' }, null, '2026-12-01')) as Obj
      // modm's target is named by the file and the first identifier of its group (STM32F407VET6 sees the same LQFP100 signals).
      expect(depth.topics.pins.crossCheck.checked.map((c: Obj) => c.key)).toEqual(['stm32-data:STM32F407VGTx', 'modm:stm32f4-05_07_15_17:pins:stm32f407vet6'])
    })
  })
})
