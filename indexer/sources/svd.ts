import type { DocumentTarget, Evidence, FactDraft, FactScope, ParseProblem } from '../../src/model/fact.js'
import { parseXml, XmlParseError, type XmlElement } from '../xml.js'
import { SourceLines } from './evidence.js'
import { emptyResult, type AdapterResult, type LoadedArtifact, type SourceAdapter } from './types.js'

/**
 * CMSIS-SVD → `registers` facts. The XML tree is read once into small per-element nodes;
 * `derivedFrom` is resolved by reference (a derived node points at its base and children are
 * shared), so a derived peripheral costs a walk, not a copy.
 */

type Num = number | bigint

interface Props {
  size?: number
  access?: string
  resetValue?: Num
  resetMask?: Num
  protection?: string
}

interface Dim {
  count: number
  increment: number
  indices: readonly string[]
  /**
   * Set for an array too long to list element by element (a 16 Mi-entry byte buffer): it is one
   * element (count 1, named as written, `DATA[%s]`) whose fact says how many there are.
   */
  whole?: number
}

interface NodeBase {
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

interface PeriphNode extends NodeBase {
  kind: 'peripheral'
  base?: PeriphNode
  baseAddress?: number
  /** The `<baseAddress>` element used (the first, when a file gives two). */
  baseAddressEl?: XmlElement
  groupName?: string
  props?: Props
  chainProps?: Props
  registersEl?: XmlElement
  interruptEls?: XmlElement[]
  interrupts?: Interrupt[]
  items?: ItemNode[]
}

interface ItemNode extends NodeBase {
  kind: 'register' | 'cluster'
  base?: ItemNode
  parent: PeriphNode | ItemNode
  addressOffset?: number
  props?: Props
  chainProps?: Props
  /** Cluster: its register/cluster children, parsed on first use. */
  items?: ItemNode[]
  fieldsEl?: XmlElement
  fields?: FieldNode[]
}

interface FieldNode extends NodeBase {
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

type Container = PeriphNode | ItemNode

interface Interrupt {
  name: string
  value: number | null
  description: string | null
}

interface EnumEntry {
  name: string
  value: number | string | null
  description: string | null
  usage?: string
  isDefault?: true
}

const EMPTY_PROPS: Props = {}
const EMPTY: never[] = []

// ---------------------------------------------------------------- small text helpers

/** Collapses whitespace runs (and lone tabs/newlines) to one space; parseXml already trimmed. */
function collapse(s: string): string {
  return s.replace(/\s{2,}|[^\S ]/g, ' ')
}

const SCALE: Record<string, number> = { k: 1024, K: 1024, m: 1048576, M: 1048576, g: 1073741824, G: 1073741824, t: 2 ** 40, T: 2 ** 40 }

/** SVD scaledNonNegativeInteger: decimal, 0x/0X hex, #/0b binary, optional k/M/G/T scale. */
function parseNum(text: string | undefined): Num | undefined {
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

function parseSmall(text: string | undefined): number | undefined {
  const n = parseNum(text)
  return typeof n === 'number' ? n : undefined
}

function fit(n: Num | undefined, size: number | undefined): Num | undefined {
  if (n === undefined || size === undefined || size >= 64) return n
  if (typeof n === 'bigint') return n & ((1n << BigInt(size)) - 1n)
  return size >= 53 ? n : n % 2 ** size
}

function hex(n: Num, pad: number): string {
  return '0x' + n.toString(16).toUpperCase().padStart(pad, '0')
}

/** Enumerated value text: a number when it is plain binary/decimal/hex, else the text as given (`#1x0`). */
function enumValue(text: string | undefined): number | string | null {
  if (text === undefined) return null
  const n = parseNum(text)
  if (typeof n === 'number') return n
  return text
}

const defaultIndices: string[][] = []
function numericIndices(count: number): string[] {
  let a = defaultIndices[count]
  if (!a) {
    a = []
    for (let i = 0; i < count; i++) a.push(String(i))
    if (count < 4096) defaultIndices[count] = a
  }
  return a
}

function parseDimIndex(text: string, count: number): string[] {
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

const MAX_DIM = 1 << 16
/** Per file; the largest corpus file yields ~34k. Guards nested dims multiplying beyond memory. */
const MAX_FACTS = 2_000_000

function makeDim(dim: string, inc: string | undefined, index: string | undefined): Dim | string {
  const count = parseSmall(dim)
  if (count === undefined) return `unusable <dim>${dim}</dim>`
  const increment = parseSmall(inc)
  if (increment === undefined && count > 1) return 'dim without a usable <dimIncrement>'
  // Listing a runaway dim would multiply facts without bound: such an array is stated once.
  if (count > MAX_DIM) return { count: 1, increment: increment ?? 0, indices: WHOLE_INDEX, whole: count }
  return { count, increment: increment ?? 0, indices: index ? parseDimIndex(index, count) : numericIndices(count) }
}

/** `NAME[%s]` → `NAME3`; `NAME_%s` → `NAME_3`; a dim'd name without `%s` gets the index appended. */
function expandName(name: string, index: string): string {
  const b = name.indexOf('[%s]')
  if (b !== -1) return name.slice(0, b) + index + name.slice(b + 4)
  const p = name.indexOf('%s')
  if (p !== -1) return name.slice(0, p) + index + name.slice(p + 2)
  return name + index
}

function expandText(text: string | undefined, index: string): string | undefined {
  return text !== undefined && text.indexOf('%s') !== -1 ? text.split('%s').join(index) : text
}

const WHOLE_INDEX = ['%s']

function expandedNames(n: NodeBase): string[] {
  if (!n.dim) return [n.name]
  if (n.dim.whole !== undefined) return [n.name]
  if (!n.expanded) n.expanded = n.dim.indices.map((i) => expandName(n.name, i))
  return n.expanded
}

// ---------------------------------------------------------------- per-file parser

class SvdFile {
  readonly problems: ParseProblem[] = []
  readonly facts: FactDraft[] = []
  readonly names = new Set<string>()
  duplicates = 0
  private readonly lines: SourceLines
  private readonly periphs: PeriphNode[] = []
  private readonly periphByName = new Map<string, PeriphNode>()
  private enumIndex?: Map<string, XmlElement>
  private readonly enumCache = new Map<XmlElement, EnumEntry[]>()
  private readonly reported = new Set<string>()
  private scope!: FactScope
  target!: DocumentTarget

  constructor(
    private readonly art: LoadedArtifact,
    text: string
  ) {
    this.lines = new SourceLines(text)
  }

  /** Once per element and reason, though an element may be walked once per derived/dim instance. */
  private problem(line: number, reason: string): void {
    const key = line + reason
    if (this.reported.has(key)) return
    this.reported.add(key)
    this.problems.push({ file: this.art.path, line, reason })
  }

  run(root: XmlElement): void {
    if (root.name !== 'device') {
      this.problem(root.line, `root element is <${root.name}>, expected <device>`)
      return
    }
    let name: string | undefined
    let description: string | undefined
    let series: string | undefined
    let vendor: string | undefined
    let cpu: string | undefined
    let peripheralsEl: XmlElement | undefined
    let props: Props | undefined
    for (const c of root.children) {
      switch (c.name) {
        case 'name':
          name = c.text
          break
        case 'description':
          description = c.text
          break
        case 'series':
          series = c.text
          break
        case 'vendor':
          vendor = c.text
          break
        case 'cpu':
          for (const x of c.children) if (x.name === 'name' && x.text) cpu = x.text
          break
        case 'peripherals':
          peripheralsEl = c
          break
        default:
          props = readProp(props, c)
      }
    }
    if (!name) {
      this.problem(root.line, 'device has no <name>')
      return
    }
    const key = 'svd:' + this.art.path.replace(/^svd\//, '').replace(/\.svd$/i, '')
    const desc = description || series
    this.target = {
      key,
      topics: ['registers'],
      device: name,
      sourceSha256: this.art.sha256,
      sourcePath: this.art.path,
      ...(desc ? { description: collapse(desc) } : {})
    }
    // Without a <vendor> (Silicon Labs' SVDs have none), the inventory's publisher says whose device it is.
    const maker = vendor ? collapse(vendor) : this.art.publisher
    this.target.identity = { ...(maker ? { vendor: maker } : {}), ...(series ? { series } : {}), ...(cpu ? { cpu } : {}) }
    this.scope = { device: name }
    if (!peripheralsEl) return

    // All peripherals first: a base may be declared after the peripheral deriving from it.
    for (const el of peripheralsEl.children) {
      if (el.name !== 'peripheral') continue
      const p = this.readPeripheral(el)
      if (!p) continue
      this.periphs.push(p)
      for (const n of expandedNames(p)) if (!this.periphByName.has(n)) this.periphByName.set(n, p)
      if (!this.periphByName.has(p.name)) this.periphByName.set(p.name, p)
    }
    for (const p of this.periphs) this.emitPeripheral(p, props ?? EMPTY_PROPS)
  }

  // ---------------------------------------------------------------- reading elements

  /** An unusable dim makes the element yield nothing (count 0) rather than a single wrong instance. */
  private dimOf(line: number, dim: string, inc: string | undefined, idx: string | undefined): Dim {
    const d = makeDim(dim, inc, idx)
    if (typeof d !== 'string') return d
    this.problem(line, d)
    return { count: 0, increment: 0, indices: EMPTY }
  }

  private readPeripheral(el: XmlElement): PeriphNode | undefined {
    // Every member initialised up front: one stable object shape, no property backing stores.
    const p: PeriphNode = {
      kind: 'peripheral',
      name: '',
      path: '',
      derivedFrom: undefined,
      dim: undefined,
      description: undefined,
      state: 0,
      ev: undefined,
      evs: undefined,
      evsAnchor: undefined,
      expanded: undefined,
      base: undefined,
      el,
      baseAddress: undefined,
      baseAddressEl: undefined,
      groupName: undefined,
      props: undefined,
      chainProps: undefined,
      registersEl: undefined,
      interruptEls: undefined,
      interrupts: undefined,
      items: undefined
    }
    let dim: string | undefined, inc: string | undefined, idx: string | undefined
    for (const c of el.children) {
      switch (c.name) {
        case 'name':
          p.name = c.text
          break
        case 'description':
          if (c.text) p.description = collapse(c.text)
          break
        case 'groupName':
          if (c.text) p.groupName = c.text
          break
        case 'baseAddress':
          // A second one is a defect of the file: the first stays, and both lines are named.
          if (p.baseAddressEl) this.problem(c.line, `<baseAddress> given twice in one peripheral (lines ${p.baseAddressEl.line} and ${c.line}); the one on line ${p.baseAddressEl.line} is used`)
          else {
            p.baseAddress = parseSmall(c.text)
            p.baseAddressEl = c
          }
          break
        case 'registers':
          p.registersEl = c
          break
        case 'interrupt':
          ;(p.interruptEls ??= []).push(c)
          break
        case 'dim':
          dim = c.text
          break
        case 'dimIncrement':
          inc = c.text
          break
        case 'dimIndex':
          idx = c.text
          break
        default:
          p.props = readProp(p.props, c)
      }
    }
    if (!p.name) {
      this.problem(el.line, 'peripheral without <name>')
      return undefined
    }
    const d = el.attrs.derivedFrom
    if (d) p.derivedFrom = d.trim()
    if (dim !== undefined) p.dim = this.dimOf(el.line, dim, inc, idx)
    p.path = '/device/peripherals/peripheral[name=' + p.name + ']'
    return p
  }

  private readItem(el: XmlElement, parent: Container): ItemNode | undefined {
    const cluster = el.name === 'cluster'
    const n: ItemNode = {
      kind: cluster ? 'cluster' : 'register',
      name: '',
      path: '',
      derivedFrom: undefined,
      dim: undefined,
      description: undefined,
      state: 0,
      ev: undefined,
      evs: undefined,
      evsAnchor: undefined,
      expanded: undefined,
      base: undefined,
      el,
      parent,
      addressOffset: undefined,
      props: undefined,
      chainProps: undefined,
      items: undefined,
      fieldsEl: undefined,
      fields: undefined
    }
    let dim: string | undefined, inc: string | undefined, idx: string | undefined
    for (const c of el.children) {
      switch (c.name) {
        case 'name':
          n.name = c.text
          break
        case 'description':
          if (c.text) n.description = collapse(c.text)
          break
        case 'addressOffset':
          n.addressOffset = parseSmall(c.text)
          break
        case 'fields':
          n.fieldsEl = c
          break
        case 'dim':
          dim = c.text
          break
        case 'dimIncrement':
          inc = c.text
          break
        case 'dimIndex':
          idx = c.text
          break
        case 'register':
        case 'cluster':
          break
        default:
          n.props = readProp(n.props, c)
      }
    }
    if (!n.name) {
      this.problem(el.line, `${n.kind} without <name>`)
      return undefined
    }
    const d = el.attrs.derivedFrom
    if (d) n.derivedFrom = d.trim()
    if (dim !== undefined) n.dim = this.dimOf(el.line, dim, inc, idx)
    n.path =
      (parent.kind === 'peripheral' ? parent.path + '/registers/' : parent.path + '/') + n.kind + '[name=' + n.name + ']'
    return n
  }

  private readField(el: XmlElement, parent: ItemNode): FieldNode | undefined {
    const f: FieldNode = {
      kind: 'field',
      name: '',
      path: '',
      derivedFrom: undefined,
      dim: undefined,
      description: undefined,
      state: 0,
      ev: undefined,
      evs: undefined,
      evsAnchor: undefined,
      expanded: undefined,
      base: undefined,
      el,
      parent,
      bitOffset: undefined,
      bitWidth: undefined,
      access: undefined,
      enumEls: undefined,
      enums: undefined,
      resolved: 0
    }
    let dim: string | undefined, inc: string | undefined, idx: string | undefined
    let lsb: number | undefined, msb: number | undefined
    for (const c of el.children) {
      switch (c.name) {
        case 'name':
          f.name = c.text
          break
        case 'description':
          if (c.text) f.description = collapse(c.text)
          break
        case 'bitOffset':
          f.bitOffset = parseSmall(c.text)
          break
        case 'bitWidth':
          f.bitWidth = parseSmall(c.text)
          break
        case 'lsb':
          lsb = parseSmall(c.text)
          break
        case 'msb':
          msb = parseSmall(c.text)
          break
        case 'bitRange': {
          // [msb:lsb]
          const t = c.text
          const colon = t.indexOf(':')
          const m = parseSmall(t.slice(t.indexOf('[') + 1, colon).trim())
          const l = parseSmall(t.slice(colon + 1, t.lastIndexOf(']')).trim())
          if (colon !== -1 && m !== undefined && l !== undefined) {
            lsb = l
            msb = m
          }
          break
        }
        case 'access':
          if (c.text) f.access = c.text
          break
        case 'enumeratedValues':
          ;(f.enumEls ??= []).push(c)
          break
        case 'dim':
          dim = c.text
          break
        case 'dimIncrement':
          inc = c.text
          break
        case 'dimIndex':
          idx = c.text
          break
      }
    }
    if (!f.name) {
      this.problem(el.line, 'field without <name>')
      return undefined
    }
    if (lsb !== undefined && msb !== undefined && f.bitOffset === undefined) {
      f.bitOffset = Math.min(lsb, msb)
      f.bitWidth = Math.abs(msb - lsb) + 1
    }
    const d = el.attrs.derivedFrom
    if (d) f.derivedFrom = d.trim()
    if (dim !== undefined) f.dim = this.dimOf(el.line, dim, inc, idx)
    f.path = parent.path + '/fields/field[name=' + f.name + ']'
    return f
  }

  /** The container's own register/cluster children (not its base's). */
  private ownItems(c: Container): ItemNode[] {
    if (c.items) return c.items
    const out: ItemNode[] = []
    const els = c.kind === 'peripheral' ? (c.registersEl?.children ?? EMPTY) : c.kind === 'cluster' ? c.el.children : EMPTY
    for (const el of els) {
      if (el.name !== 'register' && el.name !== 'cluster') continue
      const n = this.readItem(el, c)
      if (n) out.push(n)
    }
    c.items = out
    return out
  }

  private ownFields(r: ItemNode): FieldNode[] {
    if (r.fields) return r.fields
    const out: FieldNode[] = []
    if (r.fieldsEl)
      for (const el of r.fieldsEl.children) {
        if (el.name !== 'field') continue
        const f = this.readField(el, r)
        if (f) out.push(f)
      }
    r.fields = out
    return out
  }

  /** Children as seen through derivation: own when any, else the nearest base's. */
  private effectiveItems(c: Container): { items: ItemNode[]; from: Container } {
    for (let n: Container | undefined = c, depth = 0; n && depth < 64; n = this.baseOf(n), depth++) {
      const own = this.ownItems(n)
      if (own.length > 0) return { items: own, from: n }
    }
    return { items: EMPTY, from: c }
  }

  private effectiveFields(r: ItemNode): FieldNode[] {
    for (let n: ItemNode | undefined = r, depth = 0; n && depth < 64; n = this.baseOf(n) as ItemNode | undefined, depth++) {
      const own = this.ownFields(n)
      if (own.length > 0) return own
    }
    return EMPTY
  }

  // ---------------------------------------------------------------- derivedFrom

  private baseOf(n: PeriphNode): PeriphNode | undefined
  private baseOf(n: ItemNode): ItemNode | undefined
  private baseOf(n: Container): Container | undefined
  private baseOf(n: FieldNode): FieldNode | undefined
  private baseOf(n: PeriphNode | ItemNode | FieldNode): PeriphNode | ItemNode | FieldNode | undefined {
    if (n.state === 2) return n.base
    if (n.state === 1) {
      this.problem(n.el.line, `${n.kind} ${n.name}: derivedFrom cycle`)
      n.state = 2
      n.base = undefined
      return undefined
    }
    if (!n.derivedFrom) {
      n.state = 2
      return undefined
    }
    n.state = 1
    let b: PeriphNode | ItemNode | FieldNode | undefined
    if (n.kind === 'peripheral') b = this.periphByName.get(n.derivedFrom) ?? this.lookupPath(n.derivedFrom)
    else if (n.kind === 'field') b = this.findField(n)
    else b = this.findItem(n)
    if (b && (b.kind !== n.kind || b === n)) b = undefined
    if (!b) {
      this.problem(n.el.line, `${n.kind} ${n.name}: derivedFrom ${n.derivedFrom} not found`)
    } else {
      if (b.state !== 2) this.baseOf(b as PeriphNode) // resolve the whole chain now so cycles are caught
      if ((n.state as number) === 2) return n.base // n is on a cycle, already reported
      if (b.derivedFrom && !b.base) {
        this.problem(n.el.line, `${n.kind} ${n.name}: derivedFrom ${n.derivedFrom}, which is itself unresolved`)
        b = undefined
      }
    }
    n.state = 2
    n.base = b as never
    return b
  }

  /**
   * A register/cluster base: a sibling, then in enclosing scopes (a dotted `CLUSTER.REG` there too),
   * then a qualified `PERIPH.REG` / `PERIPH.CLUSTER.REG` path.
   */
  private findItem(n: ItemNode): ItemNode | undefined {
    const ref = n.derivedFrom as string
    const segs = ref.indexOf('.') === -1 ? undefined : ref.split('.')
    for (let c: Container | undefined = n.parent; c; c = c.kind === 'peripheral' ? undefined : c.parent) {
      const hit = segs ? this.walkPath(this.ownItems(c), segs, 0) : findByName(this.ownItems(c), ref, n)
      if (hit && hit.kind !== 'field') return hit
    }
    const p = this.lookupPath(ref)
    return p && p.kind !== 'peripheral' && p.kind !== 'field' ? p : undefined
  }

  private findField(f: FieldNode): FieldNode | undefined {
    const ref = f.derivedFrom as string
    const hit = findByName(this.effectiveFields(f.parent), ref, f)
    if (hit) return hit
    const p = this.lookupPath(ref)
    return p && p.kind === 'field' ? p : undefined
  }

  /** `PERIPH[.CLUSTER…].REG[.FIELD]`, names as written or expanded. */
  private lookupPath(ref: string): PeriphNode | ItemNode | FieldNode | undefined {
    const segs = ref.split('.')
    const p = this.periphByName.get(segs[0] as string)
    if (!p || segs.length === 1) return p
    return this.walkPath(this.effectiveItems(p).items, segs, 1)
  }

  private walkPath(items: ItemNode[], segs: string[], from: number): ItemNode | FieldNode | undefined {
    let cur: ItemNode | FieldNode | undefined = findByName(items, segs[from] as string)
    for (let i = from + 1; cur && i < segs.length; i++) {
      const seg = segs[i] as string
      if (cur.kind === 'field') return undefined
      cur = cur.kind === 'register' ? findByName(this.effectiveFields(cur), seg) : findByName(this.effectiveItems(cur).items, seg)
    }
    return cur
  }

  // ---------------------------------------------------------------- enumerated values

  private enumsOf(f: FieldNode): EnumEntry[] {
    if (f.enums) return f.enums
    let src: FieldNode | undefined = f
    for (let depth = 0; src && !src.enumEls && depth < 64; depth++) src = this.baseOf(src)
    const els = src?.enumEls
    if (!els) return (f.enums = EMPTY)
    if (els.length === 1) return (f.enums = this.enumEntries(els[0] as XmlElement, f, 0))
    const out: EnumEntry[] = []
    for (const el of els) for (const e of this.enumEntries(el, f, 0)) out.push(e)
    return (f.enums = out)
  }

  private enumEntries(el: XmlElement, f: FieldNode, depth: number): EnumEntry[] {
    const cached = this.enumCache.get(el)
    if (cached) return cached
    let usage: string | undefined
    const values: XmlElement[] = []
    for (const c of el.children) {
      if (c.name === 'enumeratedValue') values.push(c)
      else if (c.name === 'usage' && c.text) usage = c.text
    }
    let out: EnumEntry[]
    const ref = el.attrs.derivedFrom?.trim()
    if (values.length === 0 && ref) {
      const base = depth < 16 ? this.findEnum(ref, f) : undefined
      if (!base || base === el) {
        this.problem(el.line, `enumeratedValues derivedFrom ${ref} not found`)
        out = EMPTY
      } else {
        out = this.enumEntries(base, f, depth + 1)
        if (usage !== undefined && out.some((e) => e.usage !== usage)) out = out.map((e) => ({ ...e, usage: usage as string }))
      }
    } else {
      out = []
      for (const v of values) {
        let name = ''
        let description: string | null = null
        let value: string | undefined
        let isDefault = false
        for (const c of v.children) {
          if (c.name === 'name') name = c.text
          else if (c.name === 'description') description = c.text ? collapse(c.text) : null
          else if (c.name === 'value') value = c.text
          else if (c.name === 'isDefault') isDefault = c.text === 'true' || c.text === '1'
        }
        const e: EnumEntry = { name, value: enumValue(value), description }
        if (usage !== undefined) e.usage = usage
        if (isDefault) e.isDefault = true
        out.push(e)
      }
    }
    this.enumCache.set(el, out)
    return out
  }

  /** Nearest first: the same register's fields, then a qualified path, then the first of that name in the file. */
  private findEnum(ref: string, f: FieldNode): XmlElement | undefined {
    for (const sib of this.effectiveFields(f.parent))
      for (const el of sib.enumEls ?? EMPTY) if (enumName(el) === ref) return el
    const index = this.buildEnumIndex()
    const hit = index.get(ref)
    if (hit) return hit
    const dot = ref.lastIndexOf('.')
    return dot === -1 ? undefined : index.get(ref.slice(dot + 1))
  }

  /** Built only when some enumeratedValues derives by a name not found nearby. */
  private buildEnumIndex(): Map<string, XmlElement> {
    if (this.enumIndex) return this.enumIndex
    const index = new Map<string, XmlElement>()
    const walkItems = (c: Container, prefix: string): void => {
      for (const it of this.ownItems(c)) {
        const q = prefix + '.' + it.name
        if (it.kind === 'cluster') walkItems(it, q)
        else
          for (const f of this.ownFields(it))
            for (const el of f.enumEls ?? EMPTY) {
              const n = enumName(el)
              if (!n) continue
              if (!index.has(n)) index.set(n, el)
              index.set(q + '.' + f.name + '.' + n, el)
            }
      }
    }
    for (const p of this.periphs) walkItems(p, p.name)
    this.enumIndex = index
    return index
  }

  // ---------------------------------------------------------------- facts

  private evidence(n: NodeBase): Evidence {
    return (n.ev ??= {
      sourceSha256: this.art.sha256,
      sourcePath: this.art.path,
      locator: 'line ' + n.el.line + ': ' + n.path,
      excerpt: this.lines.excerpt(n.el.line)
    })
  }

  /** [where this instance is declared, what it copies from when that is another element]. */
  private evidenceFor(n: PeriphNode | ItemNode | FieldNode, anchor: NodeBase | undefined): Evidence[] {
    if (n.evs && n.evsAnchor === anchor) return n.evs
    const first = anchor ?? n
    const out = [this.evidence(first)]
    if (first !== n) out.push(this.evidence(n))
    const b = n.base
    if (b && b !== first) out.push(this.evidence(b))
    n.evs = out
    n.evsAnchor = anchor
    return out
  }

  private push(name: string, value: Record<string, unknown>, evidence: Evidence[], peripherals: string[]): void {
    if (this.names.has(name)) {
      this.duplicates++
      return
    }
    if (this.facts.length >= MAX_FACTS) throw new Error(`more than ${MAX_FACTS} facts; nested arrays out of proportion`)
    this.names.add(name)
    this.facts.push({ target: this.target.key, topic: 'registers', name, value, scope: this.scope, evidence, peripherals })
  }

  private emitPeripheral(p: PeriphNode, deviceProps: Props): void {
    const base = this.baseOf(p)
    if (p.derivedFrom && !base) return // reported by baseOf
    let baseAddress = p.baseAddress
    let baseFrom: PeriphNode = p
    let description = p.description
    let groupName = p.groupName
    for (let b = base, d = 0; b && d < 64; b = b.base, d++) {
      if (baseAddress === undefined && b.baseAddress !== undefined) baseFrom = b
      baseAddress ??= b.baseAddress
      description ??= b.description
      groupName ??= b.groupName
      if (!p.dim && b.dim && p.name.indexOf('%s') !== -1) p.dim = b.dim
    }
    if (baseAddress === undefined) {
      this.problem(p.el.line, `peripheral ${p.name} has no baseAddress`)
      return
    }
    const props = mergeProps(this.chainProps(p), deviceProps)
    const interrupts = this.interruptsOf(p)
    const { items, from } = this.effectiveItems(p)
    // Registers copied from a base are evidenced by the derived peripheral first.
    const anchor = from !== p ? p : undefined
    const dim = p.dim
    const count = dim ? dim.count : 1
    const names = expandedNames(p)
    // A register's address is base + offsets: its evidence includes the <baseAddress> element.
    const at = baseFrom.baseAddressEl!.line
    const baseEv: Evidence[] = [{ sourceSha256: this.art.sha256, sourcePath: this.art.path, locator: 'line ' + at + ': ' + baseFrom.path + '/baseAddress', excerpt: this.lines.excerpt(at, 1) }]
    for (let i = 0; i < count; i++) {
      const pname = names[i] as string
      const addr = baseAddress + (dim ? i * dim.increment : 0)
      const value: Record<string, unknown> = {
        baseAddress: hex(addr, 8),
        description: (dim ? expandText(description, dim.indices[i] as string) : description) ?? null
      }
      if (groupName !== undefined) value.groupName = groupName
      if (p.derivedFrom !== undefined) value.derivedFrom = p.derivedFrom
      value.interrupts = interrupts
      const peripherals = [pname]
      this.push(pname, value, this.evidenceFor(p, undefined), peripherals)
      this.walk(items, pname, addr, 0, props, anchor, peripherals, baseEv)
    }
  }

  private interruptsOf(p: PeriphNode): Interrupt[] {
    if (p.interrupts) return p.interrupts
    // Not inherited through derivedFrom: an IRQ belongs to one instance.
    const out: Interrupt[] = []
    for (const el of p.interruptEls ?? EMPTY) {
      let name = ''
      let value: number | null = null
      let description: string | null = null
      for (const c of el.children) {
        if (c.name === 'name') name = c.text
        else if (c.name === 'value') value = parseSmall(c.text) ?? null
        else if (c.name === 'description') description = c.text ? collapse(c.text) : null
      }
      out.push({ name, value, description })
    }
    return (p.interrupts = out)
  }

  private chainProps(n: PeriphNode | ItemNode): Props {
    if (n.chainProps) return n.chainProps
    const b = this.baseOf(n as Container)
    const own = n.props ?? EMPTY_PROPS
    n.chainProps = b ? mergeProps(own, this.chainProps(b)) : own
    return n.chainProps
  }

  private walk(
    items: ItemNode[],
    prefix: string,
    periphBase: number,
    offset: number,
    props: Props,
    anchor: NodeBase | undefined,
    peripherals: string[],
    /** Evidence of what the address adds up from: the <baseAddress>, then each enclosing cluster. */
    addressEv: Evidence[]
  ): void {
    for (const it of items) {
      const base = this.baseOf(it)
      if (it.derivedFrom && !base) continue // reported by baseOf
      let addressOffset = it.addressOffset
      let description = it.description
      let dim = it.dim
      for (let b = base, d = 0; b && d < 64; b = b.base, d++) {
        addressOffset ??= b.addressOffset
        description ??= b.description
        // An undimensioned derived element with %s in its name takes the base's dim.
        if (!dim && b.dim && it.name.indexOf('%s') !== -1) dim = b.dim
      }
      if (addressOffset === undefined) {
        this.problem(it.el.line, `${it.kind} ${it.name} has no addressOffset`)
        continue
      }
      if (dim && !it.dim) it.dim = dim
      const own = this.chainProps(it)
      const count = dim ? dim.count : 1
      const names = expandedNames(it)
      if (it.kind === 'cluster') {
        const p = mergeProps(own, props)
        const eff = this.effectiveItems(it)
        const inner = anchor ?? (eff.from !== it ? it : undefined)
        const clusterEv = addressEv.concat(this.evidence(it))
        for (let i = 0; i < count; i++) {
          const off = offset + addressOffset + (dim ? i * dim.increment : 0)
          this.walk(eff.items, prefix + '.' + names[i], periphBase, off, p, inner, peripherals, clusterEv)
        }
        continue
      }
      const fields = this.effectiveFields(it)
      const fieldAnchor = anchor ?? (fields.length > 0 && fields[0]?.parent !== it ? it : undefined)
      const ownEv = this.evidenceFor(it, anchor)
      const regEv = ownEv.concat(addressEv.filter((e) => !ownEv.includes(e)))
      // Register properties resolved without allocating a merged object per register.
      const size = own.size ?? props.size
      const pad = size !== undefined ? Math.ceil(size / 4) : 1
      // An inherited default (device resetMask 0xFFFFFFFF on an 8-bit register) only covers the register's bits.
      const rv = own.resetValue ?? fit(props.resetValue, size)
      const rm = own.resetMask ?? fit(props.resetMask, size)
      const resetValue = rv !== undefined ? hex(rv, pad) : null
      const resetMask = rm !== undefined ? hex(rm, pad) : null
      const access = own.access ?? props.access ?? null
      const protection = own.protection ?? props.protection
      for (let i = 0; i < count; i++) {
        const off = offset + addressOffset + (dim ? i * dim.increment : 0)
        const rname = prefix + '.' + names[i]
        const value: Record<string, unknown> = {
          address: hex(periphBase + off, 8),
          offset: hex(off, 0),
          size: size ?? null,
          resetValue,
          resetMask,
          access,
          description: (dim ? expandText(description, dim.indices[i] as string) : description) ?? null
        }
        if (protection !== undefined) value.protection = protection
        // One fact for an array too long to list: `address` is element 0's.
        if (dim?.whole !== undefined) value.array = { count: dim.whole, increment: hex(dim.increment, 0) }
        this.push(rname, value, regEv, peripherals)
        for (const f of fields) this.emitField(f, rname, access, fieldAnchor, peripherals)
      }
    }
  }

  /** Fills in a field's inherited values once, however often it is emitted; false when unusable. */
  private resolveField(f: FieldNode): boolean {
    if (f.resolved !== 0) return f.resolved === 1
    const base = this.baseOf(f)
    if (f.derivedFrom && !base) {
      f.resolved = 2 // reported by baseOf
      return false
    }
    for (let b = base, d = 0; b && d < 64; b = b.base, d++) {
      f.bitOffset ??= b.bitOffset
      f.bitWidth ??= b.bitWidth
      f.description ??= b.description
      f.access ??= b.access
      if (!f.dim && b.dim && f.name.indexOf('%s') !== -1) f.dim = b.dim
    }
    if (f.bitOffset === undefined || f.bitWidth === undefined) {
      this.problem(f.el.line, `field ${f.name} has no bit position`)
      f.resolved = 2
      return false
    }
    this.enumsOf(f)
    f.resolved = 1
    return true
  }

  private emitField(f: FieldNode, reg: string, regAccess: string | null, anchor: NodeBase | undefined, peripherals: string[]): void {
    if (!this.resolveField(f)) return
    const ev = this.evidenceFor(f, anchor)
    const access = f.access ?? regAccess
    const bitOffset = f.bitOffset as number
    const description = f.description ?? null
    const dim = f.dim
    if (!dim) {
      this.push(reg + '.' + f.name, { bitOffset, bitWidth: f.bitWidth, access, description, enumeratedValues: f.enums }, ev, peripherals)
      return
    }
    const names = expandedNames(f)
    for (let i = 0; i < dim.count; i++) {
      const value = {
        bitOffset: bitOffset + i * dim.increment,
        bitWidth: f.bitWidth,
        access,
        description: description !== null ? (expandText(description, dim.indices[i] as string) as string) : null,
        enumeratedValues: f.enums
      }
      this.push(reg + '.' + names[i], value, ev, peripherals)
    }
  }
}

function enumName(el: XmlElement): string | undefined {
  for (const c of el.children) if (c.name === 'name') return c.text
  return undefined
}

/** By name as written, then by expanded array name; never the asking node itself. */
function findByName<T extends NodeBase>(nodes: readonly T[], ref: string, self?: NodeBase): T | undefined {
  for (const n of nodes) if (n !== self && n.name === ref) return n
  for (const n of nodes) if (n !== self && n.dim && expandedNames(n).includes(ref)) return n
  return undefined
}

/** Adds `c` to `props` when it is a register property; allocates only then. */
function readProp(props: Props | undefined, c: XmlElement): Props | undefined {
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

function mergeProps(own: Props, parent: Props): Props {
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

// ---------------------------------------------------------------- entry points

export interface SvdStats {
  /** Facts dropped because an earlier fact in the same target had the same name. */
  duplicateNames: number
}

/** Parses one SVD artifact; never throws. A file that cannot be read yields one problem and no facts. */
export function parseSvd(artifact: LoadedArtifact, stats?: SvdStats): AdapterResult {
  const result = emptyResult()
  let text = artifact.content.toString('utf8')
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1)
  let root: XmlElement
  try {
    root = parseXml(text)
  } catch (err) {
    const line = err instanceof XmlParseError ? err.line : undefined
    result.problems.push({ file: artifact.path, ...(line !== undefined ? { line } : {}), reason: `malformed XML: ${(err as Error).message}` })
    return result
  }
  const file = new SvdFile(artifact, text)
  try {
    file.run(root)
  } catch (err) {
    // A bug or an input shape we did not foresee: report the file, keep the release going.
    result.problems.push({ file: artifact.path, reason: `SVD could not be read: ${(err as Error).message}` })
    return result
  }
  result.problems = file.problems
  if (file.target) {
    result.targets.push(file.target)
    result.facts = file.facts
  }
  if (stats) stats.duplicateNames += file.duplicates
  return result
}

export const svdAdapter: SourceAdapter = {
  name: 'cmsis-svd',
  // 2: target identity; SVD address evidence and array dims; PINREMAP signals; nrf54h headers.
  version: '2',
  kinds: ['cmsis-svd'],
  // Each file is a device of its own.
  units: (artifacts) => artifacts.map((a) => [a]),
  parse(artifacts) {
    const out = emptyResult()
    for (const a of artifacts) {
      const r = parseSvd(a)
      // Loops, not push(...spread): a file can yield more facts than the argument limit.
      for (const t of r.targets) out.targets.push(t)
      for (const f of r.facts) out.facts.push(f)
      for (const p of r.problems) out.problems.push(p)
    }
    return out
  }
}
