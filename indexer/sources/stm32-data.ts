/**
 * embassy's stm32-data chip files (`chips/stm32-data/STM32F407VG.json`): for now the part numbers
 * they name, each with the line it is written on. The chip (`STM32F407VG`: every package it comes
 * in, its flash size) and each package entry (`STM32F407VGTx`, one package). The rest of the file
 * (memory map, interrupts, DMA, RCC, pins) is read into the typed model (stm32-data/chip.ts) for
 * the facts a later issue emits.
 *
 * Stages: read (stm32-data/chip.ts, json-lines.ts) → emit (here).
 */
import type { PartNumber } from '../../src/model/fact.js'
import { ChipShapeError, readChip, type Chip } from './stm32-data/chip.js'
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
  const { chip, lines } = readChip(a.content.toString('utf8'))
  const line = (ptr: string) => lines.get(ptr) ?? 1
  const flashKb = flashSizeKb(chip)
  const base = { vendor: VENDOR, family: chip.family, ...(flashKb !== undefined ? { flashKb } : {}), sourceSha256: a.sha256, sourcePath: a.path }
  const packages = [...new Set(chip.packages.map((p) => p.package))]
  const parts: PartNumber[] = [{ name: chip.name, ...base, packages, line: line('/name') }]
  chip.packages.forEach((p, i) => parts.push({ name: p.name, ...base, device: chip.name, packages: [p.package], line: line(`/packages/${i}/name`) }))
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
