/**
 * Read stage of an stm32-data chip file (embassy-rs/stm32-data-generated `data/chips/*.json`):
 * the JSON as a typed model, with the line of each member the emit stage quotes. The identity
 * (name, family, line, packages) and the memory map are checked here; cores (interrupts,
 * peripherals with their RCC, DMA and pins) are typed as the generator writes them and are
 * checked member by member where facts are read from them (stm32-data/facts.ts).
 */
import { jsonPointerLines } from './json-lines.js'

export interface ChipPin {
  position: string
  signals: string[]
}

export interface ChipPackage {
  /** Selector part, e.g. `STM32F407VGTx`. */
  name: string
  /** Package name, e.g. `LQFP100`. */
  package: string
  pins: ChipPin[]
}

export interface MemoryRegion {
  name: string
  /** `flash`, `ram` or `eeprom`. */
  kind: string
  address: number
  size: number
  settings?: { erase_size: number; write_size: number; erase_value: number }
  access?: { read: boolean; write: boolean; execute: boolean }
}

export interface PeripheralPin {
  pin: string
  signal: string
  af?: number
}

/** An RCC register field, e.g. `{register: "APB2ENR", field: "USART1EN"}`. */
export interface RccField {
  register: string
  field: string
}

export interface ChipRcc {
  bus_clock: string
  /** A clock name, or the mux register field that selects it. */
  kernel_clock: string | RccField
  enable: RccField
  reset?: RccField
  stop_mode?: string
}

/**
 * One way a peripheral signal reaches DMA: a channel of the core's `dma_channels` (`DMA2_CH7`), or
 * a controller or request multiplexer with no fixed channel (`dma: "GPDMA1"`, `dmamux: "DMAMUX1"`).
 */
export interface ChipDmaEntry {
  signal: string
  channel?: string
  dma?: string
  dmamux?: string
  request?: number
  remap?: { register: string; field: string; value: number }[]
}

export interface ChipPeripheral {
  name: string
  address: number
  registers?: { kind: string; version: string; block: string }
  rcc?: ChipRcc
  pins?: PeripheralPin[]
  interrupts?: { signal: string; interrupt: string }[]
  dma_channels?: ChipDmaEntry[]
}

export interface ChipCore {
  name: string
  peripherals: ChipPeripheral[]
  nvic_priority_bits?: number
  interrupts: { name: string; number: number }[]
  dma_channels: { name: string; dma: string; channel: number; dmamux?: string; dmamux_channel?: number }[]
}

export interface Chip {
  /** e.g. `STM32F407VG`. */
  name: string
  family: string
  line: string
  die: string
  device_id: number
  packages: ChipPackage[]
  /** Memory maps: one per bank layout the chip can be set to (dual/single bank), each a list of regions. */
  memory: MemoryRegion[][]
  docs: { type: string; title: string; name: string; url: string }[]
  cores: ChipCore[]
}

export class ChipShapeError extends Error {
  constructor(
    readonly line: number | undefined,
    message: string
  ) {
    super(message)
  }
}

/** Pointer depth the emit stage quotes lines of: `/packages/0/name`, `/cores/0/peripherals/12/dma_channels/2`. */
const LINE_DEPTH = 6

export interface ReadChip {
  chip: Chip
  /** 1-based line of a JSON pointer of at most LINE_DEPTH segments. */
  lines: Map<string, number>
}

export function readChip(text: string): ReadChip {
  let raw: unknown
  try {
    raw = JSON.parse(text)
  } catch (err) {
    throw new ChipShapeError(syntaxErrorLine(text, err as Error), `not JSON: ${(err as Error).message}`)
  }
  const lines = jsonPointerLines(text, LINE_DEPTH)
  const at = (ptr: string) => lines.get(ptr) ?? lines.get(ptr.replace(/\/[^/]*$/, ''))
  const bad = (ptr: string, what: string): never => {
    throw new ChipShapeError(at(ptr), `${ptr || 'the document'}: ${what}`)
  }
  const obj = (v: unknown, ptr: string) => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : bad(ptr, 'not an object'))
  const arr = (v: unknown, ptr: string) => (Array.isArray(v) ? (v as unknown[]) : bad(ptr, 'not an array'))
  const str = (o: Record<string, unknown>, k: string, ptr: string) => (typeof o[k] === 'string' && o[k] !== '' ? (o[k] as string) : bad(`${ptr}/${k}`, 'not a non-empty string'))
  const num = (o: Record<string, unknown>, k: string, ptr: string) => (typeof o[k] === 'number' && Number.isFinite(o[k]) ? (o[k] as number) : bad(`${ptr}/${k}`, 'not a number'))

  const root = obj(raw, '')
  for (const k of ['name', 'family', 'line']) str(root, k, '')
  arr(root.packages, '/packages').forEach((p, i) => {
    const o = obj(p, `/packages/${i}`)
    str(o, 'name', `/packages/${i}`)
    str(o, 'package', `/packages/${i}`)
  })
  arr(root.memory, '/memory').forEach((layout, i) =>
    arr(layout, `/memory/${i}`).forEach((r, j) => {
      const ptr = `/memory/${i}/${j}`
      const o = obj(r, ptr)
      str(o, 'name', ptr)
      str(o, 'kind', ptr)
      num(o, 'address', ptr)
      num(o, 'size', ptr)
    })
  )
  arr(root.cores, '/cores').forEach((c, i) => str(obj(c, `/cores/${i}`), 'name', `/cores/${i}`))
  return { chip: root as unknown as Chip, lines }
}

/** The line of a JSON.parse error, from the position V8 puts in its message. */
function syntaxErrorLine(text: string, err: Error): number | undefined {
  const m = /at position (\d+)/.exec(err.message)
  if (!m) return undefined
  const pos = Number(m[1])
  let line = 1
  for (let i = text.indexOf('\n'); i !== -1 && i < pos; i = text.indexOf('\n', i + 1)) line++
  return line
}
