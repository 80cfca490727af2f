import { TOPICS, type CatalogPart, type DocumentTarget, type PartNumber, type Topic } from '../../src/model/fact.js'
import type { CatalogEntity, ReleaseCatalog, TargetSummary } from '../../src/model/catalog.js'
import { normalizeKey } from '../../src/model/text.js'
import type { Curation } from './curation.js'
import { coreOf, displayName, fileAlias, namesItsSeries, SVD_COVERS_REASON, svdCovers } from './rules.js'
import { orderingOf, vendorNamed, vendorOfPart, vendorSpelling, type OrderingRule, type Vendor } from './vendors.js'

export interface CatalogInput {
  /** Every target of the release, in the store's order (see catalogTargets), including failed ones. */
  targets: TargetSummary[]
  parts: CatalogPart[]
  /** Part numbers the other sources name, in unit order. */
  partNumbers?: PartNumber[]
  /** Publisher of each source path (the inventory's), for targets whose source names no vendor. */
  publishers?: ReadonlyMap<string, string>
}

/** An entity while the catalog is derived: targets and members as sets, reasons collected per rule. */
interface Draft {
  name: string
  kind: CatalogEntity['kind']
  nameKey: string
  /** Other names of the same part (errata build variants); several parts may share one. */
  aliasKeys: Map<string, string>
  targets: Map<Topic, Set<string>>
  members: Set<string>
  reasons: string[]
  attrs: Partial<Pick<CatalogEntity, 'package' | 'family' | 'line' | 'core' | 'vendor' | 'flashKb' | 'ramKb' | 'maxFrequencyMhz'>>
  ordering?: OrderingRule
  /** Package codes the sources give for this part (modm identifiers, …), for its vendor's ordering rule. */
  packages: Set<string>
  vendorRule?: Vendor
}

/**
 * An SVD's interrupts come with its register map: wherever a rule (or curation entry) gives a part
 * an SVD's `registers`, it gives the SVD's `interrupts` too.
 */
const ALONG_WITH_REGISTERS: readonly Topic[] = ['registers', 'interrupts']
const alongWith = (topic: Topic): readonly Topic[] => (topic === 'registers' ? ALONG_WITH_REGISTERS : [topic])
/**
 * The topics a target of a device's name gives a part a source says is of that device: its register
 * map (with its interrupts) and errata, not another source's depth facts of a part of that name
 * (probe-rs's `STM32H7A3IG` variant is no fact of the package part `STM32H7A3IGKxQ`).
 */
const SEED: ReadonlySet<Topic> = new Set(TOPICS)
const describedBy = (t: Pick<DocumentTarget, 'topics'>): Topic[] => t.topics.filter((x) => SEED.has(x) || (t.topics.includes('registers') && ALONG_WITH_REGISTERS.includes(x)))
/** The source a target key is from (`probe-rs:nRF52840_xxAA` → `probe-rs`). */
const sourceOf = (key: string) => key.slice(0, key.indexOf(':'))

/** `STM32L4x6*`-style pattern (only a trailing `*`) over normalized keys. */
function matchesPattern(pattern: string, name: string): boolean {
  const key = normalizeKey(name)
  return pattern.endsWith('*') ? key.startsWith(normalizeKey(pattern.slice(0, -1))) : key === normalizeKey(pattern)
}

const addTarget = (d: Draft, topic: Topic, key: string) => {
  const set = d.targets.get(topic) ?? new Set<string>()
  set.add(key)
  d.targets.set(topic, set)
}

/** A part number's name as its vendor writes it, and the vendor (named by the source, else by the name). */
interface Spelling {
  /** The vendor whose part names match, where the source names none. */
  byName: Vendor | undefined
  vendor: Vendor | undefined
  spelled: { name: string; reason?: string }
  key: string
}

/** Where a part number comes from and how it was spelled and its vendor found, for the reasons. */
function saidOf(pn: PartNumber, { byName, spelled }: Spelling): string {
  return (
    `part number ${pn.name} of ${pn.sourcePath} line ${pn.line}` +
    (spelled.reason ? ` (${spelled.name}: ${spelled.reason})` : '') +
    (pn.vendor === undefined ? (byName ? ` (the source names no vendor; ${byName.name} by its part names, vendors.json)` : ' (the source names no vendor, and no vendor\'s part names match it: vendor unknown)') : '')
  )
}

/** The parts a part number could be another name of, as they stand before any part number joins. */
interface OrderingCodeOwners {
  /** A part's other names (not another part's own name) to the part. */
  aliasOf: Map<string, Draft>
  /** Each part's ordering rule. */
  rules: Map<Draft, OrderingRule>
  /** The parts whose ordering rule accepts a name key as an ordering code. */
  owners: (key: string) => Draft[]
}

/**
 * Derives the resolvable catalog from what the sources say they are, by rules that give their
 * reasons (see rules.ts), then applies the curation. Every name maps to targets the release has;
 * where a rule maps one part to several targets of a topic, all are kept and the topic is ambiguous.
 */
export function buildCatalog(input: CatalogInput, curation: Curation, vendors: readonly Vendor[]): { catalog: ReleaseCatalog; notes: string[] } {
  return new CatalogBuilder(input, curation, vendors).build()
}

/**
 * The catalog while it is derived: one draft per name, and the steps that make them, each a rule,
 * in the order they apply (a later rule sees what the earlier ones made).
 */
class CatalogBuilder {
  private readonly notes: string[] = []
  private readonly drafts = new Map<string, Draft>()
  /** Parts split off another part's names (see partsOfTheirOwn), with that part. */
  private readonly splits: Array<[Draft, Draft]> = []
  private readonly byKey: Map<string, TargetSummary>
  /** The targets of each device name (normalized). */
  private readonly devices = new Map<string, TargetSummary[]>()
  /** The register-map targets, and the entity of each that names one (see svdDevices). */
  private readonly svds: TargetSummary[]
  private readonly svdEntity = new Map<string, Draft>()

  constructor(
    private readonly input: CatalogInput,
    private readonly curation: Curation,
    private readonly vendors: readonly Vendor[]
  ) {
    this.byKey = new Map(input.targets.map((t) => [t.key, t] as const))
    for (const t of input.targets) {
      const k = normalizeKey(t.device)
      this.devices.set(k, [...(this.devices.get(k) ?? []), t])
    }
    this.svds = input.targets.filter((t) => t.topics.includes('registers'))
  }

  build(): { catalog: ReleaseCatalog; notes: string[] } {
    this.selectorParts()
    this.failedPinFiles()
    this.svdDevices()
    this.siblingRegisterMaps(this.coverSelectorParts())
    this.errataDevices()
    this.multiCoreChips()
    this.addPartNumbers(this.input.partNumbers ?? [])
    // Ordering codes, by the vendor's rule, for parts and devices (not one core of a part).
    for (const d of this.drafts.values()) d.ordering = this.orderingFor(d)
    // Curation: aliases first (they may create parts), then overrides.
    this.curationAliases()
    this.curationOverrides()
    this.splitsShareSources()
    const entities = this.entitiesOut(this.aliasGroups())
    const { curation } = this
    return { catalog: { entities, targets: this.input.targets, gaps: curation.gaps, ...(curation.crossCheck.length ? { crossCheck: curation.crossCheck } : {}) }, notes: this.notes }
  }

  private vendorOf(t: Pick<DocumentTarget, 'identity' | 'sourcePath'>): Vendor | undefined {
    return vendorNamed(this.vendors, t.identity?.vendor, this.input.publishers?.get(t.sourcePath))
  }

  /** The entity named `name`, created on first use: one entity per name, whichever source names it first. */
  private entity(name: string, kind: CatalogEntity['kind'], reason: string): Draft {
    const nameKey = normalizeKey(name)
    let d = this.drafts.get(nameKey)
    if (!d) {
      d = { name, kind, nameKey, aliasKeys: new Map(), targets: new Map(), members: new Set(), reasons: [], attrs: {}, packages: new Set() }
      this.drafts.set(nameKey, d)
    }
    if (!d.reasons.includes(reason)) d.reasons.push(reason)
    return d
  }

  /** An SVD's register map, with the other topics it gives along with it (see alongWith). */
  private addRegisterMap(d: Draft, key: string): void {
    const topics = this.byKey.get(key)?.topics
    for (const topic of ALONG_WITH_REGISTERS) if (topic === 'registers' || topics?.includes(topic)) addTarget(d, topic, key)
  }

  /** Build variants (`AA` of `NRF52840_XXAA`) of the errata targets a part has. */
  private variantsOf(d: Draft): string[] {
    return [...(d.targets.get('errata') ?? [])].flatMap((k) => this.byKey.get(k)?.identity?.variants ?? []).map((v) => /_XX([A-Z]{2})$/.exec(v)?.[1]).filter((x): x is string => x !== undefined)
  }

  private orderingFor(d: Draft): OrderingRule | undefined {
    return !d.vendorRule || (d.kind === 'device' && coreOf(d.name)) ? undefined : orderingOf(d.vendorRule, d.name, d.kind, { packages: [...d.packages].sort(), variants: [...new Set(this.variantsOf(d))].sort() })
  }

  /** Selector parts and RefNames: the STM32 pin data names them. */
  private selectorParts(): void {
    const byRef = new Map<string, CatalogPart[]>()
    for (const p of this.input.parts) {
      const d = this.entity(p.name, 'selector-part', `selector part of RefName ${p.refName} (${p.sourcePath})`)
      addTarget(d, 'pins', p.target)
      addTarget(d, 'electrical', p.target)
      d.attrs = { package: p.package, family: p.family, line: p.line, core: p.core, flashKb: p.flashKb, ramKb: p.ramKb, ...(p.maxFrequencyMhz !== undefined ? { maxFrequencyMhz: p.maxFrequencyMhz } : {}), vendor: 'STMicroelectronics' }
      d.vendorRule = vendorNamed(this.vendors, 'STMicroelectronics', this.input.publishers?.get(p.sourcePath))
      const list = byRef.get(p.refName) ?? []
      list.push(p)
      byRef.set(p.refName, list)
    }
    for (const [refName, parts] of byRef) {
      const first = parts[0]!
      // A RefName without alternatives is its own selector part: one entity, not two.
      if (parts.length === 1 && first.name === refName) continue
      const d = this.entity(refName, 'refname', `RefName of ${first.sourcePath}: stands for ${parts.map((p) => p.name).join(', ')}`)
      addTarget(d, 'pins', first.target)
      addTarget(d, 'electrical', first.target)
      for (const p of parts) d.members.add(p.name)
      d.attrs = { package: first.package, family: first.family, line: first.line, core: first.core, vendor: 'STMicroelectronics' }
    }
  }

  /**
   * A pin-data file that could not be read still names its RefName (the file name), so the
   * part learns that its source failed rather than that there is none.
   */
  private failedPinFiles(): void {
    for (const t of this.input.targets) {
      if (!t.failure || !t.topics.includes('pins')) continue
      const d = this.entity(t.device, 'refname', `pin-data file ${t.sourcePath}, which could not be read: named by its file name`)
      for (const topic of t.topics) addTarget(d, topic, t.key)
    }
  }

  /** SVD devices: each by its own <name> (selector parts it covers by the wildcard rule: coverSelectorParts). */
  private svdDevices(): void {
    const aliased = new Set(this.curation.aliases.map((a) => normalizeKey(a.device)))
    for (const t of this.svds) {
      const vendor = this.vendorOf(t)
      const series = namesItsSeries(t)
      if (series && aliased.has(normalizeKey(t.device))) {
        this.notes.push(`${t.sourcePath}: SVD device ${t.device} is named like its series (${t.identity!.series}); a curation alias says which part it describes, so the series name is no part name of its own`)
        continue
      }
      const name = displayName(t.device, vendor?.id)
      const d = this.entity(
        name,
        'device',
        `SVD device ${t.device} (${t.sourcePath})` +
          (name !== t.device && /_registers$/i.test(t.device) ? `: the file names its device ${t.device}, the register file of ${name}` : '') +
          (name !== t.device && /_v[0-9]+$/.test(t.device) ? `: ${t.device} without its file version` : '') +
          (series ? `: named like its series, it is the register map the publisher gives for the series ${t.identity!.series}` : '') +
          (t.identity?.packages ? `; the package codes it gives: ${t.identity.packages.join(', ')}` : '')
      )
      for (const p of t.identity?.packages ?? []) d.packages.add(p)
      this.addRegisterMap(d, t.key)
      d.attrs.vendor ??= vendor?.name ?? t.identity?.vendor
      d.vendorRule ??= vendor
      if (t.identity?.cpu) d.attrs.core ??= t.identity.cpu
      this.svdEntity.set(t.key, d)
      const file = fileAlias(t)
      if (file) d.aliasKeys.set(normalizeKey(file), file)
    }
  }

  /**
   * The most specific SVDs whose device name covers a part name (fewest wildcards); equally specific
   * ones are all kept. A part named for one core (`STM32WL55JC_CM4`) is not covered by another
   * core's SVD.
   */
  private coverBySvd(d: Draft, partName: string): DocumentTarget[] {
    let best = Infinity
    let chosen: DocumentTarget[] = []
    const core = coreOf(partName)?.core.toLowerCase()
    for (const t of this.svds) {
      if (!this.svdEntity.has(t.key)) continue
      const other = coreOf(t.device)?.core.toLowerCase()
      if (core && other && other !== core) continue
      const w = svdCovers(t.device, partName)
      if (w < 0 || w > best) continue
      if (w < best) chosen = []
      best = w
      chosen.push(t)
    }
    for (const t of chosen) {
      this.addRegisterMap(d, t.key)
      d.reasons.push(SVD_COVERS_REASON(t.device, partName, d.attrs.line, best) + (chosen.length > 1 ? ` (as do ${chosen.filter((c) => c !== t).map((c) => c.device).join(', ')}: the topic is ambiguous)` : ''))
      this.svdEntity.get(t.key)!.members.add(d.name)
    }
    return chosen
  }

  /** The selector parts (and their RefNames) SVD device names cover; returns the parts none covers. */
  private coverSelectorParts(): CatalogPart[] {
    const uncovered: CatalogPart[] = []
    for (const p of this.input.parts) {
      const d = this.drafts.get(normalizeKey(p.name))!
      const chosen = this.coverBySvd(d, p.name)
      if (chosen.length === 0) uncovered.push(p)
      const ref = this.drafts.get(normalizeKey(p.refName))
      if (ref && ref !== d) for (const t of chosen) this.addRegisterMap(ref, t.key)
    }
    return uncovered
  }

  /**
   * A part no SVD names takes the register map of its product line's other parts, when they all
   * have the same one (ST's STM32F107 SVD for the STM32F105/107 line), and says whose it is.
   */
  private siblingRegisterMaps(uncovered: readonly CatalogPart[]): void {
    const lineMaps = new Map<string, Set<string>>()
    for (const p of this.input.parts) {
      const ts = this.drafts.get(normalizeKey(p.name))!.targets.get('registers')
      if (!ts || !p.line) continue
      const set = lineMaps.get(p.line) ?? new Set<string>()
      for (const k of ts) set.add(k)
      lineMaps.set(p.line, set)
    }
    for (const p of uncovered) {
      const keys = lineMaps.get(p.line)
      if (keys?.size !== 1) continue
      const key = [...keys][0]!
      const t = this.byKey.get(key)!
      const d = this.drafts.get(normalizeKey(p.name))!
      this.addRegisterMap(d, key)
      d.reasons.push(`no SVD device name covers ${p.name}; SVD device ${t.device} (${t.sourcePath}) is the register map of every other part of its product line ${p.line} (ST's pin data), so it is this part's: a sibling's register map`)
      const ref = this.drafts.get(normalizeKey(p.refName))
      if (ref && ref !== d) this.addRegisterMap(ref, key)
    }
  }

  /** Errata: each model of the MDK headers by its name, its build variants as other names. */
  private errataDevices(): void {
    for (const t of this.input.targets) {
      if (!t.topics.includes('errata')) continue
      const vendor = this.vendorOf(t)
      const d = this.entity(displayName(t.device, vendor?.id), 'device', `errata device ${t.device} (${t.sourcePath})`)
      addTarget(d, 'errata', t.key)
      d.attrs.vendor ??= vendor?.name ?? t.identity?.vendor
      d.vendorRule ??= vendor
      for (const v of t.identity?.variants ?? []) d.aliasKeys.set(normalizeKey(v), v)
    }
  }

  /** Multi-core devices: the chip name (the device name without its core suffix) groups its cores. */
  private multiCoreChips(): void {
    for (const d of [...this.drafts.values()]) {
      if (d.kind !== 'device') continue
      const c = coreOf(d.name)
      if (!c) continue
      const chip = this.entity(c.chip, 'device', `${c.chip} has several cores with sources of their own`)
      chip.members.add(d.name)
      for (const m of d.members) chip.members.add(m)
      chip.attrs.vendor ??= d.attrs.vendor
      chip.vendorRule ??= d.vendorRule
      for (const p of d.packages) chip.packages.add(p)
      const own = chip.targets.size > 0 ? ` ${chip.name} names its main core's source itself;` : ''
      chip.reasons.push(`${d.name} is the ${c.core} core of ${chip.name}:${own} a topic that several cores give is ambiguous between them`)
    }
  }

  /**
   * Part numbers the other sources name: each joins the part it is (its own name, another name of
   * it, or an ordering code of it by the vendor's rule), or becomes a part of its own.
   */
  private addPartNumbers(list: readonly PartNumber[]): void {
    const index = this.orderingCodeOwners()
    const own = this.partsOfTheirOwn(list, index)
    const byFile = new Map<string, Draft[]>()
    for (const pn of list) {
      const d = this.addPartNumber(pn, index, own)
      if (d) byFile.set(pn.sourcePath, [...(byFile.get(pn.sourcePath) ?? []), d])
    }
    this.standForPackageParts(byFile)
  }

  private orderingCodeOwners(): OrderingCodeOwners {
    const aliasOf = new Map<string, Draft>()
    for (const d of this.drafts.values()) for (const k of d.aliasKeys.keys()) if (!this.drafts.has(k)) aliasOf.set(k, d)
    const stems = new Map<string, Array<{ d: Draft; suffix: RegExp }>>()
    // The rules as they stand before these part numbers add packages to them.
    const rules = new Map<Draft, OrderingRule>()
    for (const d of this.drafts.values()) {
      const o = this.orderingFor(d)
      if (!o) continue
      rules.set(d, o)
      stems.set(o.stem, [...(stems.get(o.stem) ?? []), { d, suffix: new RegExp(`^(?:${o.suffix})$`) }])
    }
    const stemLengths = [...new Set([...stems.keys()].map((k) => k.length))]
    const owners = (key: string) => {
      const out = new Set<Draft>()
      for (const len of stemLengths) if (len < key.length) for (const r of stems.get(key.slice(0, len)) ?? []) if (r.suffix.test(key.slice(len))) out.add(r.d)
      return [...out]
    }
    return { aliasOf, rules, owners }
  }

  private spell(pn: PartNumber): Spelling {
    const byName = pn.vendor === undefined ? vendorOfPart(this.vendors, pn.name) : undefined
    const vendor = vendorNamed(this.vendors, pn.vendor) ?? byName
    const spelled = vendorSpelling(vendor, pn.name)
    return { byName, vendor, spelled, key: normalizeKey(spelled.name) }
  }

  /** The one part a part number would join by another of its names (not its own), if any. */
  private joins(pn: PartNumber, { aliasOf, owners }: OrderingCodeOwners): { key: string; owner: Draft } | undefined {
    const { key } = this.spell(pn)
    if (this.drafts.has(key)) return undefined
    const by = aliasOf.has(key) ? [aliasOf.get(key)!] : owners(key)
    return by.length === 1 ? { key, owner: by[0]! } : undefined
  }

  /**
   * Part numbers that would join a part by another of its names (a build variant, an ordering
   * code), bringing targets of their own: where two of them bring one source's different targets
   * for a topic (nRF51822_xxAA, _xxAB and _xxAC: three probe-rs memory maps), that part cannot
   * stand for both. Each such name becomes a part of its own (a member of the part, with its
   * sources and its own); the others join as before. Returns those names' keys with their part.
   */
  private partsOfTheirOwn(list: readonly PartNumber[], index: OrderingCodeOwners): Map<string, Draft> {
    const byOwner = new Map<Draft, Array<{ key: string; targets: string[] }>>()
    for (const pn of list) {
      if (!pn.targets?.length) continue
      const j = this.joins(pn, index)
      if (j) byOwner.set(j.owner, [...(byOwner.get(j.owner) ?? []), { key: j.key, targets: pn.targets }])
    }
    const out = new Map<string, Draft>()
    for (const [owner, js] of byOwner) {
      const slots = new Map<string, Set<string>>()
      const slotsOf = (t: string) => (this.byKey.get(t)?.topics ?? []).map((topic) => `${topic} ${sourceOf(t)}`)
      for (const j of js) for (const t of j.targets) for (const s of slotsOf(t)) slots.set(s, (slots.get(s) ?? new Set()).add(t))
      for (const j of js) if (j.targets.some((t) => slotsOf(t).some((s) => slots.get(s)!.size > 1))) out.set(j.key, owner)
    }
    return out
  }

  /**
   * The part a part number is: the entity of that name or another name of it; else the one part
   * whose vendor rule accepts it as an ordering code (several: it stays ambiguous, and no part of
   * its own: undefined); else a new part, linked to the register map and errata of the device its
   * source names, or to the SVD whose device name covers it.
   */
  private addPartNumber(pn: PartNumber, index: OrderingCodeOwners, own: ReadonlyMap<string, Draft>): Draft | undefined {
    const sp = this.spell(pn)
    const said = saidOf(pn, sp)
    const variantOf = own.get(sp.key)
    const d = variantOf && !this.drafts.has(sp.key) ? this.splitOff(pn, sp, said, variantOf) : this.partNamed(pn, sp, said, index)
    if (d) this.joinPartNumber(d, pn, sp, variantOf)
    return d
  }

  /** A part number made a part of its own (see partsOfTheirOwn), a member of the part it would have joined. */
  private splitOff(pn: PartNumber, { spelled }: Spelling, said: string, variantOf: Draft): Draft {
    const d = this.entity(spelled.name, 'selector-part', `${said}: another name of ${variantOf.name}, whose other names bring other ${[...new Set((pn.targets ?? []).map(sourceOf))].join(', ')} facts, so a part of its own with its own and, for the other topics, ${variantOf.name}'s sources`)
    const { vendor: v, family, line, core } = variantOf.attrs
    d.attrs = { ...(v ? { vendor: v } : {}), ...(family ? { family } : {}), ...(line ? { line } : {}), ...(core ? { core } : {}) }
    variantOf.members.add(d.name)
    this.splits.push([d, variantOf])
    variantOf.reasons.push(`stands for ${spelled.name} (${pn.sourcePath}), a part of its own`)
    return d
  }

  /** The part of a part number's name or other name, else the one part it is an ordering code of, else a new part. */
  private partNamed(pn: PartNumber, { spelled, key }: Spelling, said: string, { aliasOf, rules, owners }: OrderingCodeOwners): Draft | undefined {
    const d = this.drafts.get(key) ?? aliasOf.get(key)
    if (d) {
      if (!d.reasons.includes(said)) d.reasons.push(said)
      return d
    }
    // A part of a device (as its source says) is no other name of that device, whatever its rule accepts.
    const by = owners(key).filter((o) => pn.device === undefined || o.nameKey !== normalizeKey(pn.device))
    if (by.length > 1) {
      this.notes.push(`${said}: an ordering code of ${by.map((x) => x.name).join(' and ')} by their vendors' rules; it resolves to neither alone`)
      return undefined
    }
    if (by.length === 0) return this.entity(spelled.name, 'selector-part', said)
    const owner = by[0]!
    owner.aliasKeys.set(key, pn.name)
    owner.reasons.push(`${said}: an ordering code of ${owner.name} by the ${rules.get(owner)!.reason.split(':')[0]} rule`)
    return owner
  }

  /** What a part number's source says of the part it joined: its spelling, packages, vendor, attributes and targets. */
  private joinPartNumber(d: Draft, pn: PartNumber, { vendor, spelled }: Spelling, variantOf: Draft | undefined): void {
    // Found by the source's own spelling too.
    if (spelled.name !== pn.name && !this.drafts.has(normalizeKey(pn.name))) d.aliasKeys.set(normalizeKey(pn.name), pn.name)
    for (const p of pn.packages ?? []) d.packages.add(p)
    // A part split off another's names keeps to its own name: ordering codes stay the other's.
    if (!variantOf) d.vendorRule ??= vendor
    if (vendor?.name ?? pn.vendor) d.attrs.vendor ??= vendor?.name ?? pn.vendor
    if (pn.family) d.attrs.family ??= pn.family
    if (pn.core) d.attrs.core ??= pn.core
    if (pn.flashKb !== undefined) d.attrs.flashKb ??= pn.flashKb
    if (pn.ramKb !== undefined) d.attrs.ramKb ??= pn.ramKb
    if (pn.packages?.length === 1 && d.kind === 'selector-part') d.attrs.package ??= pn.packages[0]
    for (const key of pn.targets ?? []) for (const topic of this.byKey.get(key)?.topics ?? []) addTarget(d, topic, key)
    if (pn.device) {
      const ts = this.devices.get(normalizeKey(pn.device)) ?? []
      for (const t of ts) for (const topic of describedBy(t)) if (!t.failure) addTarget(d, topic, t.key)
      if (ts.length > 0) d.reasons.push(`${pn.sourcePath} names it a part of device ${pn.device}, whose ${ts.map((t) => `${t.topics.join('/')} source ${t.sourcePath}`).join(' and ')} describe${ts.length === 1 ? 's' : ''} it`)
    }
    if (!d.targets.has('registers')) this.coverBySvd(d, spelled.name)
  }

  /** Within one source, a part whose name starts another's stands for it (a chip for its packages). */
  private standForPackageParts(byFile: ReadonlyMap<string, Draft[]>): void {
    for (const [file, ds] of byFile) {
      const uniq = [...new Set(ds)]
      for (const g of uniq)
        for (const m of uniq)
          if (m !== g && m.nameKey.length > g.nameKey.length && m.nameKey.startsWith(g.nameKey) && !m.members.has(g.name)) {
            if (g.members.size === 0) g.reasons.push(`${file} names it with its packages' parts, which it stands for`)
            g.members.add(m.name)
          }
    }
  }

  /** Curation aliases: a name for the targets of a device (of some topics), a part of its own if no source names it. */
  private curationAliases(): void {
    for (const a of this.curation.aliases) {
      const topics = a.topics?.flatMap(alongWith)
      const ts = (this.devices.get(normalizeKey(a.device)) ?? []).filter((t) => !topics || t.topics.some((x) => topics.includes(x)))
      if (ts.length === 0) {
        this.notes.push(`curation alias ${a.name}: no target of device ${a.device} is in this release`)
        continue
      }
      const d = this.entity(a.name, 'device', `curation: ${a.reason}`)
      for (const t of ts) for (const topic of t.topics) if (!topics || topics.includes(topic)) addTarget(d, topic, t.key)
      for (const t of ts) for (const p of t.identity?.packages ?? []) d.packages.add(p)
      d.vendorRule ??= this.vendorOf(ts[0]!)
      // Derived again: the aliased device's source may give the part's packages.
      d.ordering = this.orderingFor(d)
    }
  }

  /** Curation overrides: a topic's targets of the parts a pattern matches, replaced by a device's (or none). */
  private curationOverrides(): void {
    for (const o of this.curation.overrides) {
      const ts = o.device === null ? [] : (this.devices.get(normalizeKey(o.device)) ?? []).filter((t) => t.topics.includes(o.topic))
      if (o.device !== null && ts.length === 0) {
        this.notes.push(`curation override ${o.match} ${o.topic}: no ${o.topic} target of device ${o.device} is in this release`)
        continue
      }
      let hit = 0
      for (const d of this.drafts.values()) {
        if (!matchesPattern(o.match, d.name)) continue
        hit++
        for (const topic of alongWith(o.topic)) {
          const keys = ts.filter((t) => t.topics.includes(topic)).map((t) => t.key)
          if (keys.length === 0) d.targets.delete(topic)
          else d.targets.set(topic, new Set(keys))
        }
        d.reasons.push(`curation (${o.topic}): ${o.reason}`)
      }
      if (hit === 0) this.notes.push(`curation override ${o.match}: matches no part in this release`)
    }
  }

  /**
   * A part split off another's names has the other's sources for the topics its own do not give,
   * curated ones included.
   */
  private splitsShareSources(): void {
    for (const [variant, owner] of this.splits) for (const [topic, keys] of owner.targets) if (!variant.targets.has(topic)) variant.targets.set(topic, new Set(keys))
  }

  /**
   * Other names: a name several parts share (NRF5340_XXAA, both cores) becomes a group of them.
   * Returns the other names that are one part's, with that part.
   */
  private aliasGroups(): Map<Draft, string[]> {
    const aliasOwners = new Map<string, { written: string; owners: Draft[] }>()
    for (const d of this.drafts.values())
      for (const [k, written] of d.aliasKeys) {
        if (this.drafts.has(k)) continue
        const o = aliasOwners.get(k) ?? { written, owners: [] }
        o.owners.push(d)
        aliasOwners.set(k, o)
      }
    const extraKeys = new Map<Draft, string[]>()
    for (const [k, { written, owners }] of aliasOwners) {
      if (owners.length === 1) extraKeys.set(owners[0]!, [...(extraKeys.get(owners[0]!) ?? []), k])
      else {
        const g = this.entity(written, 'device', `${written} names ${owners.map((o) => o.name).join(' and ')}: a topic they both give is ambiguous between them`)
        for (const o of owners) g.members.add(o.name)
      }
    }
    return extraKeys
  }

  /** The catalog's entities, by name: sets sorted, attributes a source gave, reasons joined. */
  private entitiesOut(extraKeys: ReadonlyMap<Draft, string[]>): CatalogEntity[] {
    const entities: CatalogEntity[] = [...this.drafts.values()].map((d) => {
      const targets: CatalogEntity['targets'] = {}
      for (const [topic, set] of [...d.targets].sort(([a], [b]) => (a < b ? -1 : 1))) targets[topic] = [...set].sort()
      const attrs = Object.fromEntries(Object.entries(d.attrs).filter(([, v]) => v !== undefined)) as Draft['attrs']
      return {
        name: d.name,
        kind: d.kind,
        keys: [d.nameKey, ...(extraKeys.get(d) ?? []).sort()],
        ...(d.ordering ? { ordering: d.ordering } : {}),
        targets,
        ...(d.members.size > 0 ? { members: [...d.members].sort() } : {}),
        ...attrs,
        reason: d.reasons.join('; ')
      }
    })
    return entities.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  }
}
