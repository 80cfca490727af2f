import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { HardwareFacts } from '../../src/service/facts.js'
import { SqliteRepository } from '../../src/store/sqlite/store.js'
import { corpusDataDir } from '../helpers/corpus-release.js'
import { checkAgainstSources, type GoldenFact } from './reader.js'
import { describeChanges, fileName, indexLine, SELECTIONS, snapshot } from './snapshot.js'

// Every build of ../shared/corpus must serve exactly the committed facts. A deliberate change:
// `npm run golden:update`, then review `git diff test/golden` like any other change.
const HERE = dirname(fileURLToPath(import.meta.url))
const HINT = 'served facts differ from test/golden: if the change is intended, run `npm run golden:update` and review the diff'

let repo: SqliteRepository
let facts: HardwareFacts
beforeAll(async () => {
  repo = new SqliteRepository(await corpusDataDir())
  facts = new HardwareFacts(repo, 'golden')
})
afterAll(async () => {
  await repo?.close()
})

const nameOf = (line: string) => (JSON.parse(line) as { name: string }).name

describe('golden fact snapshots', () => {
  it('the committed files are exactly the selections, each resolved to the target it was taken from', async () => {
    expect(readdirSync(join(HERE, 'facts')).sort()).toEqual(SELECTIONS.map(fileName).sort())
    const index = readFileSync(join(HERE, 'index.jsonl'), 'utf8').trimEnd().split('\n')
    const now: string[] = []
    for (const s of SELECTIONS) {
      const { target, lines } = await snapshot(facts, s)
      now.push(indexLine(s, target, lines.length))
    }
    expect(now, HINT).toEqual(index)
  })

  for (const s of SELECTIONS) {
    it(`${fileName(s)}`, async () => {
      const golden = readFileSync(join(HERE, 'facts', fileName(s)), 'utf8').trimEnd().split('\n')
      const { lines } = await snapshot(facts, s)
      if (lines.join('\n') === golden.join('\n')) return
      // A short, readable account of the difference before the full comparison.
      const was = new Set(golden)
      const is = new Set(lines)
      const removed = golden.filter((l) => !is.has(l))
      const added = lines.filter((l) => !was.has(l))
      expect({ removed: removed.slice(0, 5).map(nameOf), added: added.slice(0, 5).map(nameOf), counts: [removed.length, added.length] }, HINT).toEqual({ removed: [], added: [], counts: [0, 0] })
      expect(lines, HINT).toEqual(golden)
    })
  }
})

describe('npm run golden:update: what it prints', () => {
  const fact = (name: string, value: Record<string, unknown>, pkg?: string, locator = 'line 1') =>
    JSON.stringify({ id: name, topic: 'registers', name, value, scope: pkg ? { device: 'D', package: pkg } : { device: 'D' }, evidence: [{ locator }] })

  it('names each added, removed and changed fact, with the old and new value of each member that differs', () => {
    const before = [fact('A.CR1', { offset: '0x00', size: 32 }), fact('A.SR', { offset: '0x04' }), fact('PA9', { position: '68' }, 'LQFP100'), fact('PA9', { position: '42' }, 'LQFP64')]
    const after = [
      fact('A.CR1', { offset: '0x00', size: 16, access: 'read-only' }),
      fact('A.DR', { offset: '0x08' }),
      fact('PA9', { position: '68' }, 'LQFP100', 'line 2'),
      fact('PA9', { position: '43' }, 'LQFP64')
    ]
    expect(describeChanges(before, after)).toEqual([
      '+ A.DR: {"offset":"0x08"}',
      '- A.SR',
      '~ A.CR1: access (absent) → "read-only"; size 32 → 16',
      '~ PA9 [LQFP100]: evidence changed',
      '~ PA9 [LQFP64]: position "42" → "43"'
    ])
    expect(describeChanges(before, before)).toEqual([])
  })
})

const goldenFacts = (file: string) => readFileSync(join(HERE, 'facts', file), 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l) as GoldenFact)

describe('golden values read back from the sources their evidence points at (test/golden/reader.ts)', () => {
  for (const s of SELECTIONS) {
    it(`${fileName(s)}: every fact's values as its source states them`, () => {
      const facts = goldenFacts(fileName(s))
      const r = checkAgainstSources(facts)
      expect(r.mismatches).toEqual([])
      expect(r.unchecked).toEqual([])
      // At least one value member of every fact was compared.
      expect(r.checked).toBeGreaterThanOrEqual(facts.length)
    })
  }

  it('finds a wrong value of each kind of fact: the reader is not vacuous', () => {
    const wrong: Array<[string, string, (v: Record<string, any>) => void]> = [
      ['STM32F407VGT6.registers.jsonl', 'GPIOH.AFRH', (v) => (v.address = '0x40021C28')],
      ['STM32F407VGT6.registers.jsonl', 'GPIOH.AFRH.AFRH10', (v) => (v.bitOffset = 12)],
      ['nRF52840.registers.jsonl', 'POWER.RAM1.POWER', (v) => (v.offset = '0x900')],
      ['esp32.registers.jsonl', 'RMT.INT_RAW.CH0_TX_END', (v) => (v.bitWidth = 2)],
      ['STM32F407VGT6.pins.jsonl', 'PA10', (v) => (v.position = '68')],
      ['STM32G071KBT6.pins.jsonl', 'PA10', (v) => v.alternateFunctions.pop()],
      ['STM32F407VGT6.electrical.jsonl', 'clock.cpu.max', (v) => (v.value = 180)],
      ['nRF52840.errata.jsonl', 'errata.103', (v) => (v.revisions[1].applies = true)],
      ['RP2040.interrupts.jsonl', 'CLOCKS_IRQ', (v) => (v.number = 18)],
      ['STM32F407VGT6.interrupts.jsonl', 'ADC', (v) => v.peripherals.pop()],
      ['nRF52840.interrupts.jsonl', 'CLOCK_POWER', (v) => v.peripherals.push('WDT')]
    ]
    for (const [file, name, spoil] of wrong) {
      const fact = goldenFacts(file).find((f) => f.name === name)
      expect(fact, `${file} ${name}`).toBeDefined()
      expect(checkAgainstSources([fact!]).mismatches, `${name} as served`).toEqual([])
      spoil(fact!.value)
      expect(checkAgainstSources([fact!]).mismatches.map((m) => m.fact), `${name} spoiled`).toEqual([name])
    }
  })
})
