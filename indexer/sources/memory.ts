/**
 * The `memory` fact value (src/schemas/facts.ts MemoryValue) as the three sources that map memory
 * (stm32-data, probe-rs, modm-devices) build it, so a region reads the same whichever gave it.
 */

export type MemoryKind = 'ram' | 'flash' | 'rom' | 'other'

export interface MemoryAccess {
  read?: boolean
  write?: boolean
  execute?: boolean
  boot?: boolean
}

export interface MemoryValue {
  kind: MemoryKind
  start: string
  size: number
  access?: MemoryAccess
  eraseSize?: number
  writeSize?: number
  cores?: string[]
  alias?: true
  layout?: string
}

/** An address as the facts write them: `0x08000000` (at least 8 hex digits, upper case like register addresses). */
export function address(n: number): string {
  return '0x' + n.toString(16).toUpperCase().padStart(8, '0')
}

/**
 * Fact names unique within one target: the first `NAME` as is, the next `NAME_2`, `NAME_3`, …
 * (a source that names two regions alike, or leaves them unnamed, still gives each its fact).
 */
export class UniqueNames {
  private readonly counts = new Map<string, number>()

  next(name: string): string {
    const n = (this.counts.get(name) ?? 0) + 1
    this.counts.set(name, n)
    if (n === 1) return name
    const spelled = `${name}_${n}`
    // `RAM_2` written by the source itself is taken: keep counting.
    return this.counts.has(spelled) ? this.next(name) : (this.counts.set(spelled, 1), spelled)
  }
}
