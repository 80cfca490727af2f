import type { XmlElement } from '../../xml.js'
import { collapse, EMPTY, EMPTY_PROPS, enumName, enumValue, findByName, mergeProps, type Container, type EnumEntry, type FieldNode, type ItemNode, type PeriphNode, type Props } from './model.js'
import { SvdReader } from './read.js'

/**
 * Resolve stage: `derivedFrom` by reference (a derived node points at its base; children are
 * shared), inherited register properties, fields' inherited values and enumerated values.
 */
export class SvdResolver extends SvdReader {
  private enumIndex?: Map<string, XmlElement>
  private readonly enumCache = new Map<XmlElement, EnumEntry[]>()

  /** Children as seen through derivation: own when any, else the nearest base's. */
  protected effectiveItems(c: Container): { items: ItemNode[]; from: Container } {
    for (let n: Container | undefined = c, depth = 0; n && depth < 64; n = this.baseOf(n), depth++) {
      const own = this.ownItems(n)
      if (own.length > 0) return { items: own, from: n }
    }
    return { items: EMPTY, from: c }
  }

  protected effectiveFields(r: ItemNode): FieldNode[] {
    for (let n: ItemNode | undefined = r, depth = 0; n && depth < 64; n = this.baseOf(n) as ItemNode | undefined, depth++) {
      const own = this.ownFields(n)
      if (own.length > 0) return own
    }
    return EMPTY
  }

  // ---------------------------------------------------------------- derivedFrom

  protected baseOf(n: PeriphNode): PeriphNode | undefined
  protected baseOf(n: ItemNode): ItemNode | undefined
  protected baseOf(n: Container): Container | undefined
  protected baseOf(n: FieldNode): FieldNode | undefined
  protected baseOf(n: PeriphNode | ItemNode | FieldNode): PeriphNode | ItemNode | FieldNode | undefined {
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
  protected findItem(n: ItemNode): ItemNode | undefined {
    const ref = n.derivedFrom as string
    const segs = ref.indexOf('.') === -1 ? undefined : ref.split('.')
    for (let c: Container | undefined = n.parent; c; c = c.kind === 'peripheral' ? undefined : c.parent) {
      const hit = segs ? this.walkPath(this.ownItems(c), segs, 0) : findByName(this.ownItems(c), ref, n)
      if (hit && hit.kind !== 'field') return hit
    }
    const p = this.lookupPath(ref)
    return p && p.kind !== 'peripheral' && p.kind !== 'field' ? p : undefined
  }

  protected findField(f: FieldNode): FieldNode | undefined {
    const ref = f.derivedFrom as string
    const hit = findByName(this.effectiveFields(f.parent), ref, f)
    if (hit) return hit
    const p = this.lookupPath(ref)
    return p && p.kind === 'field' ? p : undefined
  }

  /** `PERIPH[.CLUSTER…].REG[.FIELD]`, names as written or expanded. */
  protected lookupPath(ref: string): PeriphNode | ItemNode | FieldNode | undefined {
    const segs = ref.split('.')
    const p = this.periphByName.get(segs[0] as string)
    if (!p || segs.length === 1) return p
    return this.walkPath(this.effectiveItems(p).items, segs, 1)
  }

  protected walkPath(items: ItemNode[], segs: string[], from: number): ItemNode | FieldNode | undefined {
    let cur: ItemNode | FieldNode | undefined = findByName(items, segs[from] as string)
    for (let i = from + 1; cur && i < segs.length; i++) {
      const seg = segs[i] as string
      if (cur.kind === 'field') return undefined
      cur = cur.kind === 'register' ? findByName(this.effectiveFields(cur), seg) : findByName(this.effectiveItems(cur).items, seg)
    }
    return cur
  }

  // ---------------------------------------------------------------- enumerated values

  protected enumsOf(f: FieldNode): EnumEntry[] {
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

  protected enumEntries(el: XmlElement, f: FieldNode, depth: number): EnumEntry[] {
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
  protected findEnum(ref: string, f: FieldNode): XmlElement | undefined {
    for (const sib of this.effectiveFields(f.parent))
      for (const el of sib.enumEls ?? EMPTY) if (enumName(el) === ref) return el
    const index = this.buildEnumIndex()
    const hit = index.get(ref)
    if (hit) return hit
    const dot = ref.lastIndexOf('.')
    return dot === -1 ? undefined : index.get(ref.slice(dot + 1))
  }

  /** Built only when some enumeratedValues derives by a name not found nearby. */
  protected buildEnumIndex(): Map<string, XmlElement> {
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

  protected chainProps(n: PeriphNode | ItemNode): Props {
    if (n.chainProps) return n.chainProps
    const b = this.baseOf(n as Container)
    const own = n.props ?? EMPTY_PROPS
    n.chainProps = b ? mergeProps(own, this.chainProps(b)) : own
    return n.chainProps
  }

  /** Fills in a field's inherited values once, however often it is emitted; false when unusable. */
  protected resolveField(f: FieldNode): boolean {
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
}
