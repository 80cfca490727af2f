/**
 * embassy's stm32-data chip files (`chips/stm32-data/STM32F407VG.json`): the part numbers they
 * name, each with the line it is written on, and the chip's `interrupts`, `dma`, `clocks` and
 * `memory` facts (stm32-data/facts.ts) and each package's `pins` (stm32-data/pins.ts). The part
 * numbers: the chip (`STM32F407VG`: every package it comes in, its flash size) and each package
 * entry (`STM32F407VGTx`, one package), each linked to the chip's targets, a package entry also to
 * its pins; a multi-core chip's cores also by a name of their own
 * (`STM32H745ZI_CM7`, as the SVDs name theirs), the one way to ask for one core's facts.
 *
 * Stages: read (stm32-data/chip.ts, json-lines.ts) → resolve and emit (stm32-data/facts.ts, here).
 */
import type { PartNumber } from '../../src/model/fact.js'
import { ChipShapeError, readChip, type Chip } from './stm32-data/chip.js'
import { chipFacts } from './stm32-data/facts.js'
import { emptyResult, type AdapterResult, type LoadedArtifact, type SourceAdapter } from './types.js'

export const STM32_DATA_KIND = 'stm32-data-chip'
const VENDOR = 'STMicroelectronics'
/**
 * Chip files per parse unit. Against one file a unit (world corpus, 1,550 files, 2 workers): the
 * same parse time, a quarter less CPU, and a re-index from the parse cache reads 49 entries, not
 * 1,550 (~0.1 s against ~0.5 s).
 */
const UNIT_FILES = 32

const byPath = (a: LoadedArtifact, b: LoadedArtifact) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)

export const stm32DataAdapter: SourceAdapter = {
  name: 'stm32-data',
  // 2: interrupts, dma, clocks and memory facts; part numbers linked to their targets. 4: pins.
  version: '4',
  kinds: [STM32_DATA_KIND],
  parse(artifacts) {
    const out = emptyResult()
    out.partNumbers = []
    for (const a of [...artifacts].sort(byPath)) {
      try {
        emitChip(a, out)
      } catch (err) {
        // Never throw: anything wrong with one file is that file's problem.
        const line = err instanceof ChipShapeError ? err.line : undefined
        out.problems.push({ file: a.path, ...(line !== undefined ? { line } : {}), reason: err instanceof ChipShapeError ? err.message : `unexpected error: ${(err as Error).message}` })
      }
    }
    return out
  },
  // Files never refer to each other: runs in path order, so a worker's unit is a few MB.
  units(artifacts) {
    const sorted = [...artifacts].sort(byPath)
    const groups: LoadedArtifact[][] = []
    for (let i = 0; i < sorted.length; i += UNIT_FILES) groups.push(sorted.slice(i, i + UNIT_FILES))
    return groups
  }
}

function emitChip(a: LoadedArtifact, out: AdapterResult): void {
  const text = a.content.toString('utf8')
  const { chip, lines } = readChip(text)
  const line = (ptr: string) => lines.get(ptr) ?? 1
  const facts = chipFacts(a, chip, lines, text, out.problems)
  for (const t of facts.targets) out.targets.push(t)
  for (const f of facts.facts) out.facts.push(f)
  const pinTargets = new Set(facts.pinTargets.values())
  const all = facts.targets.map((t) => t.key).filter((k) => !pinTargets.has(k))
  const flashKb = flashSizeKb(chip)
  const base = { vendor: VENDOR, family: chip.family, ...(flashKb !== undefined ? { flashKb } : {}), ...(all.length > 0 ? { targets: all } : {}), sourceSha256: a.sha256, sourcePath: a.path }
  const packages = [...new Set(chip.packages.map((p) => p.package))]
  const parts: PartNumber[] = [{ name: chip.name, ...base, packages, line: line('/name') }]
  chip.packages.forEach((p, i) => {
    const pins = facts.pinTargets.get(p.name)
    const targets = pins ? [...all, pins] : all
    parts.push({ name: p.name, ...base, ...(targets.length ? { targets } : {}), device: chip.name, packages: [p.package], line: line(`/packages/${i}/name`) })
  })
  // A core of a multi-core chip: its own facts and the chip's memory map.
  for (const { core, key } of facts.coreTargets) {
    const i = chip.cores.findIndex((c) => c.name === core)
    const targets = facts.chipTarget ? [facts.chipTarget, key] : [key]
    parts.push({ name: `${chip.name}_${core.toUpperCase()}`, ...base, core, targets, line: line(`/cores/${i}/name`) })
  }
  out.partNumbers!.push(...parts)
}

/**
 * Flash: the sum of the `flash` regions named `BANK_*` (`BANK_1`, `BANK_1_REGION_1`, …: the main
 * flash, without OTP or system memory) of a memory layout, when every layout the chip can be set
 * to (single or dual bank) gives the same whole number of KiB above zero; else not said. (Against
 * ST's own figures in its pin data it agrees for every part both name: 2,323 of 2,323.)
 * RAM is not given: the `ram` regions include aliases of the same memory (`CCMRAM_ICODE`), the
 * windows of external memory (`FMC_BANK_1`, `SDRAM_BANK_1`), backup SRAM and TCMs, and no single
 * rule over them gives ST's figure (the closest, 1,645 of 2,323 parts): a sum would be our choice.
 */
function flashSizeKb(chip: Chip): number | undefined {
  const sums = new Set(chip.memory.map((layout) => layout.filter((r) => r.kind === 'flash' && r.name.startsWith('BANK_')).reduce((n, r) => n + r.size, 0)))
  const [bytes] = sums
  return sums.size === 1 && bytes !== undefined && bytes > 0 && bytes % 1024 === 0 ? bytes / 1024 : undefined
}
