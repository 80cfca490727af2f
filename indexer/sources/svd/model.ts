import type { Evidence } from '../../../src/model/fact.js'
import type { XmlElement } from '../../xml.js'

/**
 * The SVD adapter's model: the small per-element nodes the reader builds from the XML tree, and
 * the value helpers every stage uses (SVD numbers, dims, names, register properties).
 */

export type Num = number | bigint

export interface Props {
  size?: number
  access?: string
  resetValue?: Num
  resetMask?: Num
  protection?: string
}

export interface Dim {
  count: number
  increment: number
  indices: readonly string[]
  /**
   * Set for an array too long to list element by element (a 16 Mi-entry byte buffer): it is one
   * element (count 1, named as written, `DATA[%s]`) whose fact says how many there are.
   */
  whole?: number
}

export interface NodeBase {
  el: XmlElement
  /** Name as written, e.g. `CH[%s]`. */
  name: string
  path: string
  derivedFrom?: string
  dim?: Dim
  description?: string
  /** 0 = base not looked up yet, 1 = resolving (cycle guard), 2 = done. */
  state: 0 | 1 | 2
  ev?: Evidence
  /** Single-slot cache of the evidence list for the last anchor seen (dim instances repeat it). */
  evs?: Evidence[]
  evsAnchor?: NodeBase
  expanded?: string[]
}

export interface PeriphNode extends NodeBase {
  kind: 'peripheral'
  base?: PeriphNode
  baseAddress?: number
  /** The `<baseAddress>` element used (the first, when a file gives two). */
  baseAddressEl?: XmlElement
  groupName?: string
  props?: Props
  chainProps?: Props
  /** Every `<registers>` block, in document order: the schema allows one, real files (TI's MSP432) give several. */
  registersEls?: XmlElement[]
  interruptEls?: XmlElement[]
  interrupts?: Interrupt[]
  items?: ItemNode[]
}

export interface ItemNode extends NodeBase {
  kind: 'register' | 'cluster'
  base?: ItemNode
  parent: PeriphNode | ItemNode
  addressOffset?: number
  props?: Props
  chainProps?: Props
  /** Cluster: its register/cluster children, parsed on first use. */
  items?: ItemNode[]
  /** Every `<fields>` block, in document order (read like `<registers>` blocks: one list). */
  fieldsEls?: XmlElement[]
  fields?: FieldNode[]
}

export interface FieldNode extends NodeBase {
  kind: 'field'
  base?: FieldNode
  parent: ItemNode
  bitOffset?: number
  bitWidth?: number
  access?: string
  enumEls?: XmlElement[]
  enums?: EnumEntry[]
  /** 0 = not yet, 1 = inherited values filled in, 2 = unusable (problem reported). */
  resolved: 0 | 1 | 2
}

export type Container = PeriphNode | ItemNode

export interface Interrupt {
  name: string
  value: number | null
  description: string | null
}

export interface EnumEntry {
  name: string
  value: number | string | null
  description: string | null
  usage?: string
  isDefault?: true
}

export const EMPTY_PROPS: Props = {}
export const EMPTY: never[] = []

// ---------------------------------------------------------------- small text helpers

/** Collapses whitespace runs (and lone tabs/newlines) to one space; parseXml already trimmed. */
export function collapse(s: string): string {
  return s.replace(/\s{2,}|[^\S ]/g, ' ')
}

export const SCALE: Record<string, number> = { k: 1024, K: 1024, m: 1048576, M: 1048576, g: 1073741824, G: 1073741824, t: 2 ** 40, T: 2 ** 40 }

/** SVD scaledNonNegativeInteger: decimal, 0x/0X hex, #/0b binary, optional k/M/G/T scale. */
export function parseNum(text: string | undefined): Num | undefined {
  if (text === undefined || text === '') return undefined
  let s = text
  let scale = 1
  const last = s[s.length - 1] as string
  const sc = SCALE[last]
  if (sc !== undefined) {
    scale = sc
    s = s.slice(0, -1)
  }
  if (s.charCodeAt(0) === 43 /* + */) s = s.slice(1)
  if (s.charCodeAt(0) === 35 /* # */) s = '0b' + s.slice(1)
  const n = Number(s)
  if (!Number.isFinite(n) || n < 0 || s === '' || !Number.isInteger(n)) return undefined
  if (n <= Number.MAX_SAFE_INTEGER) return n * scale
  try {
    return BigInt(s) * BigInt(scale)
  } catch {
    return undefined
  }
}

export function parseSmall(text: string | undefined): number | undefined {
  const n = parseNum(text)
  return typeof n === 'number' ? n : undefined
}

export function fit(n: Num | undefined, size: number | undefined): Num | undefined {
  if (n === undefined || size === undefined || size >= 64) return n
  if (typeof n === 'bigint') return n & ((1n << BigInt(size)) - 1n)
  return size >= 53 ? n : n % 2 ** size
}

export function hex(n: Num, pad: number): string {
  return '0x' + n.toString(16).toUpperCase().padStart(pad, '0')
}

/** Enumerated value text: a number when it is plain binary/decimal/hex, else the text as given (`#1x0`). */
export function enumValue(text: string | undefined): number | string | null {
  if (text === undefined) return null
  const n = parseNum(text)
  if (typeof n === 'number') return n
  return text
}

export const defaultIndices: string[][] = []
export function numericIndices(count: number): string[] {
  let a = defaultIndices[count]
  if (!a) {
    a = []
    for (let i = 0; i < count; i++) a.push(String(i))
    if (count < 4096) defaultIndices[count] = a
  }
  return a
}

export function parseDimIndex(text: string, count: number): string[] {
  const r = /^(\d+)\s*-\s*(\d+)$/.exec(text)
  let out: string[]
  if (r) {
    out = []
    for (let i = Number(r[1]); i <= Number(r[2]); i++) out.push(String(i))
  } else if (/^[A-Za-z]\s*-\s*[A-Za-z]$/.test(text)) {
    out = []
    for (let c = text.charCodeAt(0), e = text.charCodeAt(text.length - 1); c <= e; c++) out.push(String.fromCharCode(c))
  } else {
    out = text.split(',').map((s) => s.trim())
  }
  // Fewer indices than dim: number the rest rather than drop elements.
  for (let i = out.length; i < count; i++) out.push(String(i))
  return out.length > count ? out.slice(0, count) : out
}

export const MAX_DIM = 1 << 16
/** Per file; the largest corpus file yields ~34k. Guards nested dims multiplying beyond memory. */
export const MAX_FACTS = 2_000_000

export function makeDim(dim: string, inc: string | undefined, index: string | undefined): Dim | string {
  const count = parseSmall(dim)
  if (count === undefined) return `unusable <dim>${dim}</dim>`
  const increment = parseSmall(inc)
  if (increment === undefined && count > 1) return 'dim without a usable <dimIncrement>'
  // Listing a runaway dim would multiply facts without bound: such an array is stated once.
  if (count > MAX_DIM) return { count: 1, increment: increment ?? 0, indices: WHOLE_INDEX, whole: count }
  return { count, increment: increment ?? 0, indices: index ? parseDimIndex(index, count) : numericIndices(count) }
}

/** `NAME[%s]` → `NAME3`; `NAME_%s` → `NAME_3`; a dim'd name without `%s` gets the index appended. */
export function expandName(name: string, index: string): string {
  const b = name.indexOf('[%s]')
  if (b !== -1) return name.slice(0, b) + index + name.slice(b + 4)
  const p = name.indexOf('%s')
  if (p !== -1) return name.slice(0, p) + index + name.slice(p + 2)
  return name + index
}

export function expandText(text: string | undefined, index: string): string | undefined {
  return text !== undefined && text.indexOf('%s') !== -1 ? text.split('%s').join(index) : text
}

export const WHOLE_INDEX = ['%s']

export function expandedNames(n: NodeBase): string[] {
  if (!n.dim) return [n.name]
  if (n.dim.whole !== undefined) return [n.name]
  if (!n.expanded) n.expanded = n.dim.indices.map((i) => expandName(n.name, i))
  return n.expanded
}

export function enumName(el: XmlElement): string | undefined {
  for (const c of el.children) if (c.name === 'name') return c.text
  return undefined
}

/** By name as written, then by expanded array name; never the asking node itself. */
export function findByName<T extends NodeBase>(nodes: readonly T[], ref: string, self?: NodeBase): T | undefined {
  for (const n of nodes) if (n !== self && n.name === ref) return n
  for (const n of nodes) if (n !== self && n.dim && expandedNames(n).includes(ref)) return n
  return undefined
}

/** Adds `c` to `props` when it is a register property; allocates only then. */
export function readProp(props: Props | undefined, c: XmlElement): Props | undefined {
  switch (c.name) {
    case 'size': {
      const v = parseSmall(c.text)
      if (v !== undefined) (props ??= {}).size = v
      return props
    }
    case 'access':
      if (c.text) (props ??= {}).access = c.text
      return props
    case 'resetValue': {
      const v = parseNum(c.text)
      if (v !== undefined) (props ??= {}).resetValue = v
      return props
    }
    case 'resetMask': {
      const v = parseNum(c.text)
      if (v !== undefined) (props ??= {}).resetMask = v
      return props
    }
    case 'protection':
      if (c.text) (props ??= {}).protection = c.text
      return props
  }
  return props
}

export function mergeProps(own: Props, parent: Props): Props {
  if (own === EMPTY_PROPS || own === parent) return parent
  if (parent === EMPTY_PROPS) return own
  return {
    size: own.size ?? parent.size,
    access: own.access ?? parent.access,
    resetValue: own.resetValue ?? parent.resetValue,
    resetMask: own.resetMask ?? parent.resetMask,
    protection: own.protection ?? parent.protection
  }
}
