import { createHash } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Ajv2020 } from 'ajv/dist/2020.js'
import { describe, expect, it } from 'vitest'
import { probeRsMap as probeRsMapOf } from '../helpers/probe-rs-map.js'
import { modmAdapter } from '../../indexer/sources/modm.js'
import { probeRsAdapter } from '../../indexer/sources/probe-rs.js'
import { stm32DataAdapter } from '../../indexer/sources/stm32-data.js'
import { svdAdapter } from '../../indexer/sources/svd.js'
import type { AdapterResult, LoadedArtifact, SourceAdapter } from '../../indexer/sources/types.js'
import type { FactDraft } from '../../src/model/fact.js'
import { inline } from '../../src/schemas/components.js'
import { Fact } from '../../src/schemas/facts.js'

/*
 * The depth facts (memory, interrupts, dma, clocks) each source gives, on real files of the world
 * corpus. Expected values are read from the raw files here: JSON.parse for stm32-data, the yaml
 * package's document tree for probe-rs, regular expressions over the XML for modm and SVD; every
 * evidence locator is checked against the line it names.
 */

const WORLD = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '.cache', 'corpus-world')
const haveWorld = existsSync(join(WORLD, 'sources.json'))
if (!haveWorld) console.log(`depth-sources: skipped: ${WORLD} is not there`)

const raw = (path: string) => readFileSync(join(WORLD, path), 'utf8')
function artifact(path: string, kind: string): LoadedArtifact {
  const content = readFileSync(join(WORLD, path))
  return { path, sha256: createHash('sha256').update(content).digest('hex'), bytes: content.length, kind, publisher: 'test', license: 'test', mediaType: 'text/plain', content }
}
const parse = (adapter: SourceAdapter, kind: string, ...paths: string[]) => adapter.parse(paths.map((p) => artifact(p, kind)))
const fact = (r: AdapterResult, target: string, topic: string, name: string) => {
  const f = r.facts.find((x) => x.target === target && x.topic === topic && x.name === name)
  if (!f) throw new Error(`no ${topic} fact ${name} on ${target}`)
  return f
}
/** The 1-based line a locator names, and the text from there on (`count` lines). */
const located = (f: FactDraft, i = 0, count = 6) => {
  const { locator, sourcePath } = f.evidence[i]!
  const line = Number(/^line (\d+): /.exec(locator)![1])
  return { line, text: raw(sourcePath).split('\n').slice(line - 1, line - 1 + count).join('\n') }
}
const validate = new Ajv2020({ strict: false }).compile(inline(Fact))
/** Every fact as /v1/context would send it matches the Fact schema, closed objects included. */
function expectSchema(r: AdapterResult): void {
  const bad = r.facts.filter((f) => !validate({ id: 'x', topic: f.topic, name: f.name, value: f.value, scope: f.scope, evidence: f.evidence }))
  expect(bad.slice(0, 2).map((f) => [f.topic, f.name, JSON.stringify(f.value)])).toEqual([])
}

interface Chip {
  name: string
  packages: { name: string; package: string }[]
  memory: { name: string; kind: string; address: number; size: number }[][]
  cores: {
    name: string
    interrupts: { name: string; number: number }[]
    dma_channels: { name: string; dma: string; channel: number }[]
    peripherals: { name: string; rcc?: { enable: { register: string; field: string } }; interrupts?: { interrupt: string }[]; dma_channels?: { signal: string; channel?: string; request?: number }[] }[]
  }[]
}

describe.skipIf(!haveWorld)('stm32-data: STM32F407VG', () => {
  const path = 'chips/stm32-data/STM32F407VG.json'
  const chip = JSON.parse(raw(path)) as Chip
  const r = parse(stm32DataAdapter, 'stm32-data-chip', path)
  const key = 'stm32-data:STM32F407VG'
  const core = chip.cores[0]!
  const usart1 = core.peripherals.find((p) => p.name === 'USART1')!

  it('one target with the four topics, a pins target per package; the chip and its packages link to the first, each package to its pins', () => {
    expect(r.problems).toEqual([])
    const packages = chip.packages
    expect(r.targets.map((t) => [t.key, t.topics, t.packages])).toEqual([[key, ['clocks', 'dma', 'interrupts', 'memory'], undefined], ...packages.map((p) => [`stm32-data:${p.name}`, ['pins'], [p.package]])])
    expect(r.partNumbers!.map((p) => p.name)).toEqual([chip.name, ...packages.map((p) => p.name)])
    expect(r.partNumbers!.map((p) => p.targets)).toEqual([[key], ...packages.map((p) => [key, `stm32-data:${p.name}`])])
    expectSchema(r)
  })

  it('interrupts: USART1 is line 37, raised by USART1; a fact per line of the table, on its line', () => {
    const k = core.interrupts.findIndex((i) => i.name === 'USART1')
    expect(core.interrupts[k]!.number).toBe(37)
    const raisedBy = core.peripherals.filter((p) => p.interrupts?.some((i) => i.interrupt === 'USART1')).map((p) => p.name)
    const f = fact(r, key, 'interrupts', 'USART1')
    expect(f.value).toEqual({ number: 37, peripherals: raisedBy })
    expect(f.peripherals).toEqual(raisedBy)
    expect(f.evidence[0]!.locator).toMatch(new RegExp(`^line \\d+: /cores/0/interrupts/${k}$`))
    expect(located(f).text).toMatch(/^\s*\{\s*\n\s*"name": "USART1",\s*\n\s*"number": 37\s*\n/)
    expect(r.facts.filter((x) => x.topic === 'interrupts').map((x) => [x.name, x.value.number])).toEqual(core.interrupts.map((i) => [i.name, i.number]))
  })

  it('dma: USART1.TX on DMA2 channel 7 request 4, the channel resolved through the core table', () => {
    const tx = usart1.dma_channels!.filter((d) => d.signal === 'TX')
    const options = tx.map((d) => {
      const ch = core.dma_channels.find((c) => c.name === d.channel)!
      return { controller: ch.dma, channel: ch.channel, request: d.request ?? null }
    })
    expect(options).toContainEqual({ controller: 'DMA2', channel: 7, request: 4 })
    const f = fact(r, key, 'dma', 'USART1.TX')
    expect(f.value).toEqual({ options })
    // The peripheral's entry, then the core's channel it names.
    expect(located(f, 0).text).toContain('"channel": "DMA2_CH7"')
    expect(located(f, 0).text).toContain('"signal": "TX"')
    expect(f.evidence[1]!.locator).toMatch(/: \/cores\/0\/dma_channels\/\d+$/)
    expect(located(f, 1, 2).text).toMatch(/"name": "DMA2_CH7"/)
  })

  it('clocks: USART1 enabled by RCC.APB2ENR.USART1EN, evidenced by its rcc member', () => {
    const enable = `RCC.${usart1.rcc!.enable.register}.${usart1.rcc!.enable.field}`
    expect(enable).toBe('RCC.APB2ENR.USART1EN')
    const f = fact(r, key, 'clocks', 'USART1')
    expect(f.value).toMatchObject({ enable, reset: 'RCC.APB2RSTR.USART1RST', busClock: 'PCLK2' })
    expect(located(f, 0, 1).text.trim()).toBe('"rcc": {')
    expect(r.facts.filter((x) => x.topic === 'clocks').map((x) => x.name)).toEqual(core.peripherals.filter((p) => p.rcc).map((p) => p.name))
  })

  it('memory: every region of its one layout, hex start and byte size', () => {
    expect(chip.memory).toHaveLength(1)
    const mem = r.facts.filter((x) => x.topic === 'memory')
    expect(mem.map((x) => [x.name, x.value.start, x.value.size])).toEqual(chip.memory[0]!.map((m) => [m.name, '0x' + m.address.toString(16).toUpperCase().padStart(8, '0'), m.size]))
    const sram = fact(r, key, 'memory', 'SRAM')
    expect(sram.value).toMatchObject({ kind: 'ram', start: '0x20000000' })
    expect(located(sram, 0, 2).text).toContain('"name": "SRAM"')
  })
})

describe.skipIf(!haveWorld)('stm32-data: a multi-core chip (STM32WL55JC: cm4 and cm0p)', () => {
  const path = 'chips/stm32-data/STM32WL55JC.json'
  const chip = JSON.parse(raw(path)) as Chip
  const r = parse(stm32DataAdapter, 'stm32-data-chip', path)
  const [cm4, cm0p] = chip.cores

  it('the chip has the memory map; each core its own interrupts, dma and clocks', () => {
    expect(chip.cores.map((c) => c.name)).toEqual(['cm4', 'cm0p'])
    expect(r.problems).toEqual([])
    expect(r.targets.map((t) => [t.key, t.topics, t.identity?.core])).toEqual([
      ['stm32-data:STM32WL55JC', ['memory'], undefined],
      ['stm32-data:STM32WL55JC@cm4', ['clocks', 'dma', 'interrupts'], 'cm4'],
      ['stm32-data:STM32WL55JC@cm0p', ['clocks', 'dma', 'interrupts'], 'cm0p'],
      // Pins are the package's, whichever core drives them.
      ...chip.packages.map((p) => [`stm32-data:${p.name}`, ['pins'], undefined])
    ])
    expectSchema(r)
  })

  it('a line the cores number apart keeps each core\'s number, on its own target', () => {
    const both = cm4!.interrupts.filter((i) => cm0p!.interrupts.some((j) => j.name === i.name && j.number !== i.number))
    expect(both.length).toBeGreaterThan(0)
    for (const i of both) {
      const other = cm0p!.interrupts.find((j) => j.name === i.name)!
      expect(fact(r, 'stm32-data:STM32WL55JC@cm4', 'interrupts', i.name).value.number).toBe(i.number)
      const f = fact(r, 'stm32-data:STM32WL55JC@cm0p', 'interrupts', i.name)
      expect(f.value.number).toBe(other.number)
      expect(f.evidence[0]!.locator).toMatch(/: \/cores\/1\/interrupts\/\d+$/)
      expect(located(f, 0, 3).text).toContain(`"name": "${i.name}"`)
    }
  })

  it('part numbers: the chip and its packages link every target; each core by its own name, its facts and the chip memory', () => {
    const chipTargets = ['stm32-data:STM32WL55JC', 'stm32-data:STM32WL55JC@cm4', 'stm32-data:STM32WL55JC@cm0p']
    expect(r.partNumbers!.find((p) => p.name === 'STM32WL55JC')!.targets).toEqual(chipTargets)
    expect(r.partNumbers!.find((p) => p.name === 'STM32WL55JC_CM4')).toMatchObject({ core: 'cm4', targets: ['stm32-data:STM32WL55JC', 'stm32-data:STM32WL55JC@cm4'] })
    expect(r.partNumbers!.find((p) => p.name === 'STM32WL55JC_CM0P')).toMatchObject({ core: 'cm0p', targets: ['stm32-data:STM32WL55JC', 'stm32-data:STM32WL55JC@cm0p'] })
  })
})

describe.skipIf(!haveWorld)('stm32-data: a chip of two flash layouts (STM32F427AG)', () => {
  it('a region both layouts give alike once; the others per layout, a BANK_2 layout being dual-bank', () => {
    const path = 'chips/stm32-data/STM32F427AG.json'
    const chip = JSON.parse(raw(path)) as Chip
    const r = parse(stm32DataAdapter, 'stm32-data-chip', path)
    const [one, two] = chip.memory
    expect(two!.some((m) => m.name.startsWith('BANK_2'))).toBe(true)
    expect(one!.some((m) => m.name.startsWith('BANK_2'))).toBe(false)
    const same = one!.filter((m) => two!.some((n) => JSON.stringify(n) === JSON.stringify(m))).map((m) => m.name)
    const expected = [
      ...one!.map((m) => (same.includes(m.name) ? m.name : `single-bank.${m.name}`)),
      ...two!.filter((m) => !same.includes(m.name)).map((m) => `dual-bank.${m.name}`)
    ]
    expect(r.facts.filter((f) => f.topic === 'memory').map((f) => f.name)).toEqual(expected)
    const b3 = two!.find((m) => m.name === 'BANK_1_REGION_3')!
    expect(fact(r, 'stm32-data:STM32F427AG', 'memory', 'dual-bank.BANK_1_REGION_3').value).toMatchObject({ size: b3.size, layout: 'dual-bank' })
  })
})

const probeRsMap = (path: string, variant: string) => probeRsMapOf(join(WORLD, path), variant)

describe.skipIf(!haveWorld)('probe-rs: memory per variant', () => {
  const path = 'targets/probe-rs/nRF52_Series.yaml'
  const r = parse(probeRsAdapter, 'probe-rs-target', path)

  it('nRF52840_xxAA: flash 1 MiB at 0x0, RAM 256 KiB at 0x20000000, each region a fact on its own line', () => {
    const map = probeRsMap(path, 'nRF52840_xxAA')
    const flash = map.find((m) => m.tag === '!Nvm' && m.start === 0)!
    expect(flash.end - flash.start).toBe(1024 * 1024)
    const ram = map.find((m) => m.tag === '!Ram' && m.start === 0x20000000)!
    expect(ram.end - ram.start).toBe(256 * 1024)
    const key = 'probe-rs:nRF52840_xxAA'
    expect(r.targets.find((t) => t.key === key)?.topics).toEqual(['memory'])
    expect(r.partNumbers!.find((p) => p.name === 'nRF52840_xxAA')!.targets).toEqual([key])
    const mine = r.facts.filter((f) => f.target === key)
    // Unnamed regions are named by their tag, numbered from the second of a tag.
    const counts = new Map<string, number>()
    const names = map.map((m) => {
      const base = m.name ?? m.tag.slice(1).toUpperCase()
      const n = (counts.get(base) ?? 0) + 1
      counts.set(base, n)
      return n === 1 ? base : `${base}_${n}`
    })
    expect(mine.map((f) => f.name)).toEqual(names)
    const kind = (tag: string) => ({ '!Ram': 'ram', '!Nvm': 'flash' })[tag] ?? 'other'
    expect(mine.map((f) => [f.value.kind, f.value.start, f.value.size, f.value.alias ?? false])).toEqual(
      map.map((m) => [kind(m.tag), '0x' + m.start.toString(16).toUpperCase().padStart(8, '0'), m.end - m.start, m.alias])
    )
    expect(mine.find((f) => f.value.start === '0x00000000')!.value).toMatchObject({ kind: 'flash', size: 1048576 })
    expect(mine.find((f) => f.value.start === '0x20000000')!.value).toMatchObject({ kind: 'ram', size: 262144, alias: true })
    for (const [i, f] of mine.entries()) {
      const { text } = located(f, 0, 4)
      expect(text.split('\n')[0]!.trim()).toBe(`- ${map[i]!.tag}`)
      expect(text).toContain(`start: 0x${map[i]!.start.toString(16)}`)
    }
    expectSchema(r)
  })

  it('ATSAMD21G18A: flash and RAM of its variant', () => {
    const samd = parse(probeRsAdapter, 'probe-rs-target', 'targets/probe-rs/SAMD21.yaml')
    const map = probeRsMap('targets/probe-rs/SAMD21.yaml', 'ATSAMD21G18A')
    const mine = samd.facts.filter((f) => f.target === 'probe-rs:ATSAMD21G18A')
    expect(mine.map((f) => [f.value.start, f.value.size])).toEqual(map.map((m) => ['0x' + m.start.toString(16).toUpperCase().padStart(8, '0'), m.end - m.start]))
    expect(mine.find((f) => f.value.kind === 'flash' && f.value.start === '0x00000000')?.value.size).toBe(256 * 1024)
    expect(mine.find((f) => f.value.kind === 'ram')?.value).toMatchObject({ start: '0x20000000', size: 32 * 1024 })
  })

  it('variant names are unique across the probe-rs files: the key needs no file', () => {
    const inv = JSON.parse(raw('sources.json')) as { sources: { path: string; kind: string }[] }
    const all = probeRsAdapter.parse(inv.sources.filter((s) => s.kind === 'probe-rs-target').map((s) => artifact(s.path, s.kind)))
    const keys = all.targets.map((t) => t.key)
    expect(new Set(keys).size).toBe(keys.length)
    expect(keys.length).toBeGreaterThan(3000)
    expectSchema(all)
  }, 120_000)
})

describe.skipIf(!haveWorld)('modm: memory per set of identifiers', () => {
  it('samd21g18a-au: its flash and RAM elements, each on its line', () => {
    const path = 'devices/modm/sam/samd21.xml'
    const text = raw(path)
    const r = parse(modmAdapter, 'modm-device', path)
    const pn = r.partNumbers!.find((p) => p.name === 'samd21g18a-au')!
    const target = pn.targets![0]!
    expect(target).toMatch(/^modm:samd21:/)
    // samd21 g 18 a: the <memory> elements whose device-flash admits 18 and device-variant a.
    const lines = text.split('\n')
    const expected = lines.flatMap((l, i) => {
      const m = /<memory ([^>]*)\/>/.exec(l)
      if (!m) return []
      const a = Object.fromEntries([...m[1]!.matchAll(/([\w-]+)="([^"]*)"/g)].map((x) => [x[1]!, x[2]!]))
      const ok = (k: string, v: string) => a[k] === undefined || a[k]!.split('|').includes(v)
      return ok('device-flash', '18') && ok('device-variant', 'a') && ok('device-pin', 'g') ? [{ name: a.name!, start: Number(a.start), size: Number(a.size), line: i + 1 }] : []
    })
    expect(expected.map((m) => m.name)).toEqual(['flash', 'ram'])
    const mine = r.facts.filter((f) => f.target === target)
    expect(mine.map((f) => [f.name, f.value.kind, f.value.start, f.value.size, f.evidence[0]!.locator.split(':')[0]])).toEqual(
      expected.map((m) => [m.name, m.name, '0x' + m.start.toString(16).toUpperCase().padStart(8, '0'), m.size, `line ${m.line}`])
    )
    expect(mine[0]!.value).toMatchObject({ start: '0x00000000', size: 256 * 1024 })
    expectSchema(r)
  })
})

/** `<interrupt>` elements of an SVD text: name, value and the line each starts on, in document order. */
function svdInterrupts(text: string): { name: string; value: number; line: number; peripheral: string }[] {
  const out: { name: string; value: number; line: number; peripheral: string }[] = []
  let peripheral = ''
  const lines = text.split('\n')
  for (let i = 0; i < lines.length; i++) {
    const p = /^\s*<peripheral\b/.test(lines[i]!) ? /<name>([^<]+)<\/name>/.exec(lines.slice(i, i + 3).join('')) : undefined
    if (p) peripheral = p[1]!
    if (!/^\s*<interrupt>/.test(lines[i]!)) continue
    const block = lines.slice(i, lines.findIndex((l, j) => j > i && l.includes('</interrupt>')) + 1).join('\n')
    out.push({ name: /<name>\s*([^<\s]+)\s*<\/name>/.exec(block)![1]!, value: Number(/<value>\s*([^<\s]+)\s*<\/value>/.exec(block)![1]), line: i + 1, peripheral })
  }
  return out
}

describe.skipIf(!haveWorld)('SVD: interrupts on the register map\'s target', () => {
  it('STM32F407.svd: USART1 is 37, declared by USART1, on the line of its <interrupt>', () => {
    const path = 'svd/STMicro/stm32f4/STM32F407.svd'
    const r = parse(svdAdapter, 'cmsis-svd', path)
    expect(r.problems).toEqual([])
    const [target] = r.targets
    expect(target!.topics).toEqual(['interrupts', 'registers'])
    const declared = svdInterrupts(raw(path)).filter((i) => i.name === 'USART1')
    expect(declared.map((i) => i.value)).toContain(37)
    const f = fact(r, target!.key, 'interrupts', 'USART1')
    expect(f.value).toEqual({ number: 37, peripherals: [...new Set(declared.map((i) => i.peripheral))].sort() })
    expect(located(f).line).toBe(declared[0]!.line)
    expect(located(f, 0, 2).text).toContain('<name>USART1</name>')
    // Registers facts are what they were: the USART1 peripheral still lists its interrupt.
    expect(fact(r, target!.key, 'registers', 'USART1').value.interrupts).toEqual([expect.objectContaining({ name: 'USART1', value: 37 })])
    expectSchema(r)
  })

  it('RP2040.svd: every interrupt name once, its number and declaring peripherals', () => {
    const path = 'svd/RaspberryPi/RP2040.svd'
    const r = parse(svdAdapter, 'cmsis-svd', path)
    const declared = svdInterrupts(raw(path))
    expect(declared.length).toBeGreaterThan(20)
    const expected = new Map<string, { number: number; peripherals: Set<string>; line: number }>()
    for (const d of declared) {
      const e = expected.get(d.name) ?? { number: d.value, peripherals: new Set<string>(), line: d.line }
      e.peripherals.add(d.peripheral)
      expected.set(d.name, e)
    }
    const mine = r.facts.filter((f) => f.topic === 'interrupts')
    expect(mine.map((f) => [f.name, f.value, located(f).line])).toEqual([...expected].map(([name, e]) => [name, { number: e.number, peripherals: [...e.peripherals].sort() }, e.line]))
    expect(mine.find((f) => f.name === 'TIMER_IRQ_0')?.value).toEqual({ number: 0, peripherals: ['TIMER'] })
  })

  it('an SVD without a usable interrupt has no interrupts topic, and its registers facts are unchanged', () => {
    const text = raw('svd/RaspberryPi/RP2040.svd')
    const without = text.replace(/<interrupt>[\s\S]*?<\/interrupt>/g, (m) => m.replace(/<value>[^<]*<\/value>/, '<value>none</value>'))
    const a = { ...artifact('svd/RaspberryPi/RP2040.svd', 'cmsis-svd'), content: Buffer.from(without) }
    const r = svdAdapter.parse([a])
    const before = parse(svdAdapter, 'cmsis-svd', 'svd/RaspberryPi/RP2040.svd')
    expect(r.targets.map((t) => [t.key, t.topics])).toEqual([[before.targets[0]!.key, ['registers']]])
    expect(r.facts.some((f) => f.topic === 'interrupts')).toBe(false)
    expect(r.problems.length).toBe(svdInterrupts(text).length)
    const registers = (x: AdapterResult) => x.facts.filter((f) => f.topic === 'registers' && !('interrupts' in f.value)).map((f) => [f.name, JSON.stringify(f.value)])
    expect(registers(r)).toEqual(registers(before))
  })
})
