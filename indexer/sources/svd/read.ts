import type { ParseProblem } from '../../../src/model/fact.js'
import type { XmlElement } from '../../xml.js'
import { SourceLines } from '../evidence.js'
import type { LoadedArtifact } from '../types.js'
import { collapse, EMPTY, makeDim, parseSmall, readProp, type Container, type Dim, type FieldNode, type ItemNode, type PeriphNode } from './model.js'

/**
 * Read stage: SVD elements into nodes, each child list read on first use. Nothing is inherited
 * or resolved here; a problem is reported once per element and reason.
 */
export class SvdReader {
  readonly problems: ParseProblem[] = []
  protected readonly lines: SourceLines
  protected readonly periphs: PeriphNode[] = []
  protected readonly periphByName = new Map<string, PeriphNode>()
  private readonly reported = new Set<string>()

  constructor(
    protected readonly art: LoadedArtifact,
    text: string
  ) {
    this.lines = new SourceLines(text)
  }

  /** An element given twice where the schema allows one: a defect of the file, reported with both lines; the first is used. */
  protected twice(parent: XmlElement, again: XmlElement, what: string): void {
    const first = parent.children.find((x) => x.name === again.name)!.line
    this.problem(again.line, `<${again.name}> given twice in one ${what} (lines ${first} and ${again.line}); the one on line ${first} is used`)
  }

  /** Once per element and reason, though an element may be walked once per derived/dim instance. */
  protected problem(line: number, reason: string): void {
    const key = line + reason
    if (this.reported.has(key)) return
    this.reported.add(key)
    this.problems.push({ file: this.art.path, line, reason })
  }

  // ---------------------------------------------------------------- reading elements

  /** An unusable dim makes the element yield nothing (count 0) rather than a single wrong instance. */
  protected dimOf(line: number, dim: string, inc: string | undefined, idx: string | undefined): Dim {
    const d = makeDim(dim, inc, idx)
    if (typeof d !== 'string') return d
    this.problem(line, d)
    return { count: 0, increment: 0, indices: EMPTY }
  }

  protected readPeripheral(el: XmlElement): PeriphNode | undefined {
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
      registersEls: undefined,
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
          if (p.baseAddressEl) this.twice(el, c, 'peripheral')
          else {
            p.baseAddress = parseSmall(c.text)
            p.baseAddressEl = c
          }
          break
        case 'registers':
          ;(p.registersEls ??= []).push(c)
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

  protected readItem(el: XmlElement, parent: Container): ItemNode | undefined {
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
      fieldsEls: undefined,
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
          if (n.addressOffset !== undefined) this.twice(el, c, n.kind)
          else n.addressOffset = parseSmall(c.text)
          break
        case 'fields':
          ;(n.fieldsEls ??= []).push(c)
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

  protected readField(el: XmlElement, parent: ItemNode): FieldNode | undefined {
    const f = newField(el, parent)
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
          if (f.bitOffset !== undefined) this.twice(el, c, 'field')
          else f.bitOffset = parseSmall(c.text)
          break
        case 'bitWidth':
          if (f.bitWidth !== undefined) this.twice(el, c, 'field')
          else f.bitWidth = parseSmall(c.text)
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
    if (lsb !== undefined && msb !== undefined) setBitsFromRange(f, lsb, msb)
    const d = el.attrs.derivedFrom
    if (d) f.derivedFrom = d.trim()
    if (dim !== undefined) f.dim = this.dimOf(el.line, dim, inc, idx)
    f.path = parent.path + '/fields/field[name=' + f.name + ']'
    return f
  }

  /** The container's own register/cluster children (not its base's). */
  protected ownItems(c: Container): ItemNode[] {
    if (c.items) return c.items
    const out: ItemNode[] = []
    // Several <registers> blocks are one list in document order; a name repeated across them is a duplicate like any other.
    const blocks = c.kind === 'peripheral' ? (c.registersEls ?? EMPTY) : c.kind === 'cluster' ? [c.el] : EMPTY
    for (const block of blocks)
      for (const el of block.children) {
        if (el.name !== 'register' && el.name !== 'cluster') continue
        const n = this.readItem(el, c)
        if (n) out.push(n)
      }
    c.items = out
    return out
  }

  protected ownFields(r: ItemNode): FieldNode[] {
    if (r.fields) return r.fields
    const out: FieldNode[] = []
    for (const block of r.fieldsEls ?? EMPTY)
      for (const el of block.children) {
        if (el.name !== 'field') continue
        const f = this.readField(el, r)
        if (f) out.push(f)
      }
    r.fields = out
    return out
  }
}

/** A field node before its children are read: every member initialised up front, one stable object shape. */
function newField(el: XmlElement, parent: ItemNode): FieldNode {
  return {
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
}

/** `<lsb>`/`<msb>` or `<bitRange>` give the bits where `<bitOffset>` does not. */
function setBitsFromRange(f: FieldNode, lsb: number, msb: number): void {
  if (f.bitOffset !== undefined) return
  f.bitOffset = Math.min(lsb, msb)
  f.bitWidth = Math.abs(msb - lsb) + 1
}
