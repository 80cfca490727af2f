import type { DocumentTarget, Evidence, FactDraft, FactScope } from '../../src/model/fact.js'
import { parseXml, XmlParseError, type XmlElement } from '../xml.js'
import { concatResults, emptyResult, type AdapterResult, type LoadedArtifact, type SourceAdapter } from './types.js'
import {
  collapse,
  EMPTY,
  EMPTY_PROPS,
  expandedNames,
  expandText,
  hex,
  fit,
  MAX_FACTS,
  mergeProps,
  parseSmall,
  readProp,
  type FieldNode,
  type Interrupt,
  type ItemNode,
  type NodeBase,
  type PeriphNode,
  type Props
} from './svd/model.js'
import { SvdResolver } from './svd/resolve.js'
import { mergeSources } from './merge.js'
import { normalizeKey } from '../../src/model/text.js'

/**
 * CMSIS-SVD → `registers` facts, and `interrupts` facts from the peripherals' `<interrupt>`
 * elements. The XML tree is read once into small per-element nodes;
 * `derivedFrom` is resolved by reference (a derived node points at its base and children are
 * shared), so a derived peripheral costs a walk, not a copy.
 */

// ---------------------------------------------------------------- emit stage (read: svd/read.ts, resolve: svd/resolve.ts)

/**
 * A register PACKAGE whose field PACKAGE enumerates the device's package options (Nordic's FICR
 * INFO.PACKAGE; no other publisher's SVDs have one): each value's description writes the codes
 * as the ordering code does, followed by xx (`QIxx - 7x7 73-pin aQFN`, `CExx or CFxx - 236 ball WLCSP`).
 */
const PACKAGE_REGISTER = /(?:^|\.)PACKAGE$/
const PACKAGE_CODE = /\b([A-Z]{2})xx\b/g

class SvdFile extends SvdResolver {
  readonly facts: FactDraft[] = []
  /** `interrupts` facts, named apart from the registers' (a line is often named as its peripheral). */
  readonly interrupts: FactDraft[] = []
  readonly names = new Set<string>()
  /** Package codes the device's package field enumerates (see PACKAGE_REGISTER). */
  readonly packages = new Set<string>()
  duplicates = 0
  private scope!: FactScope
  target!: DocumentTarget

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
    // Every <peripherals> block, in document order, like repeated <registers> blocks.
    const peripheralsEls: XmlElement[] = []
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
          peripheralsEls.push(c)
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
    // All peripherals first: a base may be declared after the peripheral deriving from it.
    for (const block of peripheralsEls)
      for (const el of block.children) {
        if (el.name !== 'peripheral') continue
        const p = this.readPeripheral(el)
        if (!p) continue
        this.periphs.push(p)
        for (const n of expandedNames(p)) if (!this.periphByName.has(n)) this.periphByName.set(n, p)
        if (!this.periphByName.has(p.name)) this.periphByName.set(p.name, p)
      }
    for (const p of this.periphs) this.emitPeripheral(p, props ?? EMPTY_PROPS)
    this.emitInterrupts()
    if (this.interrupts.length > 0) this.target.topics = ['interrupts', 'registers']
  }

  /**
   * A fact per interrupt name: its number and the peripherals declaring it (every instance of a
   * peripheral array), evidenced by the first declaring element. A line without a usable number
   * states nothing; a name declared with two numbers keeps the first, and says so.
   */
  private emitInterrupts(): void {
    const byName = new Map<string, { number: number; peripherals: Set<string>; ev: Evidence }>()
    for (const p of this.periphs) {
      const els = p.interruptEls ?? EMPTY
      this.interruptsOf(p).forEach((irq, i) => {
        const el = els[i]!
        if (!irq.name || irq.value === null) {
          this.problem(el.line, `peripheral ${p.name}: <interrupt> without a name and a number; no interrupts fact`)
          return
        }
        const seen = byName.get(irq.name)
        if (seen && seen.number !== irq.value) this.problem(el.line, `interrupt ${irq.name} is ${irq.value} here and ${seen.number} at ${seen.ev.locator.split(':')[0]}; the first is kept`)
        if (seen) {
          for (const n of expandedNames(p)) seen.peripherals.add(n)
          return
        }
        const at = el.line
        const ev: Evidence = { sourceSha256: this.art.sha256, sourcePath: this.art.path, locator: `line ${at}: ${p.path}/interrupt[name=${irq.name}]`, excerpt: this.lines.excerpt(at) }
        byName.set(irq.name, { number: irq.value, peripherals: new Set(expandedNames(p)), ev })
      })
    }
    for (const [name, { number, peripherals, ev }] of byName) {
      const list = [...peripherals].sort()
      this.interrupts.push({ target: this.target.key, topic: 'interrupts', name, value: { number, peripherals: list }, scope: this.scope, evidence: [ev], peripherals: list })
    }
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

  private emitField(f: FieldNode, reg: string, regAccess: string | null, anchor: NodeBase | undefined, peripherals: string[]): void {
    if (!this.resolveField(f)) return
    const ev = this.evidenceFor(f, anchor)
    const access = f.access ?? regAccess
    const bitOffset = f.bitOffset as number
    const description = f.description ?? null
    const dim = f.dim
    if (f.name === 'PACKAGE' && PACKAGE_REGISTER.test(reg))
      for (const e of f.enums ?? EMPTY) for (const m of (e.description ?? '').matchAll(PACKAGE_CODE)) this.packages.add(m[1]!)
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
  if (file.target && file.packages.size > 0) file.target.identity = { ...file.target.identity, packages: [...file.packages].sort() }
  result.problems = file.problems
  if (file.target) {
    result.targets.push(file.target)
    result.facts = file.facts
    for (const f of file.interrupts) result.facts.push(f)
  }
  if (stats) stats.duplicateNames += file.duplicates
  return result
}

/**
 * The device an SVD names (its first `<name>`, the device's), read cheaply for grouping: files of
 * one device are one unit, so that unit can check them against each other.
 */
function deviceNameOf(a: LoadedArtifact): string {
  const head = a.content.subarray(0, 16384).toString('utf8')
  const m = /<device\b[^>]*>[\s\S]*?<name>\s*([^<]*?)\s*<\/name>/.exec(head)
  return m ? normalizeKey(m[1]!) : `\0${a.path}`
}

export const svdAdapter: SourceAdapter = {
  name: 'cmsis-svd',
  // 2: target identity; SVD address evidence and array dims; PINREMAP signals; nrf54h headers.
  // 3: every <registers>, <fields> and <peripherals> block, not only the last.
  // 4: files naming one device are one target with several sources (see merge.ts).
  // 5: interrupts facts.
  // 6: package codes in the target identity (Nordic's FICR INFO.PACKAGE).
  version: '6',
  kinds: ['cmsis-svd'],
  // Each device is a unit of its own: usually one file, several where several files name it.
  units(artifacts) {
    const byDevice = new Map<string, LoadedArtifact[]>()
    for (const a of artifacts) {
      const k = deviceNameOf(a)
      const list = byDevice.get(k)
      if (list) list.push(a)
      else byDevice.set(k, [a])
    }
    return [...byDevice.values()]
  },
  parse(artifacts) {
    const byDevice = new Map<string, AdapterResult[]>()
    for (const a of artifacts) {
      const r = parseSvd(a)
      const k = r.targets[0] ? normalizeKey(r.targets[0].device) : `\0${a.path}`
      const list = byDevice.get(k)
      if (list) list.push(r)
      else byDevice.set(k, [r])
    }
    return concatResults([...byDevice.values()].map((list) => mergeSources(list, 'svd:')))
  }
}
