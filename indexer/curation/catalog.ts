import type { CatalogPart, DocumentTarget, Topic } from '../../src/model/fact.js'
import type { CatalogEntity, ReleaseCatalog, TargetSummary } from '../../src/model/catalog.js'
import { normalizeKey } from '../../src/model/text.js'
import type { Curation } from './curation.js'
import { coreOf, deviceOrdering, displayName, namesItsSeries, stOrdering, SVD_COVERS_REASON, svdCovers, vendorOf, type OrderingRule } from './rules.js'

export interface CatalogInput {
  /** Every target of the release, in the store's order (see catalogTargets), including failed ones. */
  targets: TargetSummary[]
  parts: CatalogPart[]
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
}

/** `STM32L4x6*`-style pattern (only a trailing `*`) over normalized keys. */
function matchesPattern(pattern: string, name: string): boolean {
  const key = normalizeKey(name)
  return pattern.endsWith('*') ? key.startsWith(normalizeKey(pattern.slice(0, -1))) : key === normalizeKey(pattern)
}

/**
 * Derives the resolvable catalog from what the sources say they are, by rules that give their
 * reasons (see rules.ts), then applies the curation. Every name maps to targets the release has;
 * where a rule maps one part to several targets of a topic, all are kept and the topic is ambiguous.
 */
export function buildCatalog(input: CatalogInput, curation: Curation): { catalog: ReleaseCatalog; notes: string[] } {
  const notes: string[] = []
  const drafts = new Map<string, Draft>()

  /** The entity named `name`, created on first use: one entity per name, whichever source names it first. */
  const entity = (name: string, kind: CatalogEntity['kind'], reason: string): Draft => {
    const nameKey = normalizeKey(name)
    let d = drafts.get(nameKey)
    if (!d) {
      d = { name, kind, nameKey, aliasKeys: new Map(), targets: new Map(), members: new Set(), reasons: [], attrs: {} }
      drafts.set(nameKey, d)
    }
    if (!d.reasons.includes(reason)) d.reasons.push(reason)
    return d
  }
  const addTarget = (d: Draft, topic: Topic, key: string) => {
    const set = d.targets.get(topic) ?? new Set<string>()
    set.add(key)
    d.targets.set(topic, set)
  }

  // Selector parts and RefNames: the STM32 pin data names them.
  const byRef = new Map<string, CatalogPart[]>()
  for (const p of input.parts) {
    const d = entity(p.name, 'selector-part', `selector part of RefName ${p.refName} (${p.sourcePath})`)
    addTarget(d, 'pins', p.target)
    addTarget(d, 'electrical', p.target)
    d.attrs = { package: p.package, family: p.family, line: p.line, core: p.core, flashKb: p.flashKb, ramKb: p.ramKb, ...(p.maxFrequencyMhz !== undefined ? { maxFrequencyMhz: p.maxFrequencyMhz } : {}), vendor: 'STMicroelectronics' }
    const o = stOrdering(p.name)
    if (o) d.ordering = o
    const list = byRef.get(p.refName) ?? []
    list.push(p)
    byRef.set(p.refName, list)
  }
  for (const [refName, parts] of byRef) {
    const first = parts[0]!
    // A RefName without alternatives is its own selector part: one entity, not two.
    if (parts.length === 1 && first.name === refName) continue
    const d = entity(refName, 'refname', `RefName of ${first.sourcePath}: stands for ${parts.map((p) => p.name).join(', ')}`)
    addTarget(d, 'pins', first.target)
    addTarget(d, 'electrical', first.target)
    for (const p of parts) d.members.add(p.name)
    d.attrs = { package: first.package, family: first.family, line: first.line, core: first.core, vendor: 'STMicroelectronics' }
  }

  // A pin-data file that could not be read still names its RefName (the file name), so the
  // part learns that its source failed rather than that there is none.
  for (const t of input.targets) {
    if (!t.failure || !t.topics.includes('pins')) continue
    const d = entity(t.device, 'refname', `pin-data file ${t.sourcePath}, which could not be read: named by its file name`)
    for (const topic of t.topics) addTarget(d, topic, t.key)
  }

  // SVD devices: each by its own <name>; selector parts it covers by the wildcard rule.
  const svds = input.targets.filter((t) => t.topics.includes('registers'))
  const svdEntity = new Map<string, Draft>()
  for (const t of svds) {
    const vendor = vendorOf(t)
    if (namesItsSeries(t)) {
      notes.push(`${t.sourcePath}: SVD device ${t.device} is named like its series (${t.identity!.series}), so it is no part name of its own; a curation alias says which part it describes`)
      continue
    }
    const name = displayName(t.device, vendor)
    const d = entity(name, 'device', `SVD device ${t.device} (${t.sourcePath})`)
    addTarget(d, 'registers', t.key)
    if (t.identity?.vendor) d.attrs.vendor ??= t.identity.vendor
    if (t.identity?.cpu) d.attrs.core ??= t.identity.cpu
    svdEntity.set(t.key, d)
  }
  const partDrafts = input.parts.map((p) => drafts.get(normalizeKey(p.name))!)
  input.parts.forEach((p, i) => {
    // The most specific SVD names wins (fewest wildcards); equally specific ones are all kept.
    let best = Infinity
    let chosen: DocumentTarget[] = []
    for (const t of svds) {
      if (!svdEntity.has(t.key)) continue
      const w = svdCovers(t.device, p.name)
      if (w < 0 || w > best) continue
      if (w < best) chosen = []
      best = w
      chosen.push(t)
    }
    const d = partDrafts[i]!
    for (const t of chosen) {
      addTarget(d, 'registers', t.key)
      d.reasons.push(SVD_COVERS_REASON(t.device, p.name, p.line, best) + (chosen.length > 1 ? ` (as do ${chosen.filter((c) => c !== t).map((c) => c.device).join(', ')}: the topic is ambiguous)` : ''))
      svdEntity.get(t.key)!.members.add(p.name)
      const ref = drafts.get(normalizeKey(p.refName))
      if (ref && ref !== d) addTarget(ref, 'registers', t.key)
    }
  })

  // Errata: each model of the MDK headers by its name, its build variants as other names.
  for (const t of input.targets) {
    if (!t.topics.includes('errata')) continue
    const d = entity(displayName(t.device, 'nordic'), 'device', `errata device ${t.device} (${t.sourcePath})`)
    addTarget(d, 'errata', t.key)
    d.attrs.vendor ??= t.identity?.vendor
    for (const v of t.identity?.variants ?? []) d.aliasKeys.set(normalizeKey(v), v)
  }

  // Multi-core devices: the chip name (the device name without its core suffix) groups its cores.
  for (const d of [...drafts.values()]) {
    if (d.kind !== 'device') continue
    const c = coreOf(d.name)
    if (!c) continue
    const chip = entity(c.chip, 'device', `${c.chip} has several cores with sources of their own`)
    chip.members.add(d.name)
    for (const m of d.members) chip.members.add(m)
    chip.attrs.vendor ??= d.attrs.vendor
    const own = chip.targets.size > 0 ? ` ${chip.name} names its main core's source itself;` : ''
    chip.reasons.push(`${d.name} is the ${c.core} core of ${chip.name}:${own} a topic that several cores give is ambiguous between them`)
  }

  // Ordering codes, by the vendor's rule, for devices that are parts (not one core of a part).
  const byKey = new Map(input.targets.map((t) => [t.key, t] as const))
  const variantsOf = (d: Draft) => [...(d.targets.get('errata') ?? [])].flatMap((k) => byKey.get(k)?.identity?.variants ?? [])
  for (const d of drafts.values()) {
    if (d.kind !== 'device' || d.ordering || coreOf(d.name)) continue
    const first = [...d.targets.values()].flatMap((s) => [...s])[0]
    const t = first !== undefined ? byKey.get(first) : undefined
    const vendor = t ? vendorOf(t) : d.attrs.vendor ? vendorOf({ key: '', identity: { vendor: d.attrs.vendor } }) : 'other'
    const o = deviceOrdering(d.name, vendor, variantsOf(d))
    if (o) d.ordering = o
  }

  // Curation: aliases first (they may create parts), then overrides.
  const devices = new Map<string, TargetSummary[]>()
  for (const t of input.targets) {
    const k = normalizeKey(t.device)
    devices.set(k, [...(devices.get(k) ?? []), t])
  }
  for (const a of curation.aliases) {
    const ts = (devices.get(normalizeKey(a.device)) ?? []).filter((t) => !a.topics || t.topics.some((x) => a.topics!.includes(x)))
    if (ts.length === 0) {
      notes.push(`curation alias ${a.name}: no target of device ${a.device} is in this release`)
      continue
    }
    const d = entity(a.name, 'device', `curation: ${a.reason}`)
    for (const t of ts) for (const topic of t.topics) if (!a.topics || a.topics.includes(topic)) addTarget(d, topic, t.key)
    if (!d.ordering) {
      const o = deviceOrdering(d.name, vendorOf(ts[0]!), variantsOf(d))
      if (o) d.ordering = o
    }
  }
  for (const o of curation.overrides) {
    const ts = o.device === null ? [] : (devices.get(normalizeKey(o.device)) ?? []).filter((t) => t.topics.includes(o.topic))
    if (o.device !== null && ts.length === 0) {
      notes.push(`curation override ${o.match} ${o.topic}: no ${o.topic} target of device ${o.device} is in this release`)
      continue
    }
    let hit = 0
    for (const d of drafts.values()) {
      if (!matchesPattern(o.match, d.name)) continue
      hit++
      if (ts.length === 0) d.targets.delete(o.topic)
      else d.targets.set(o.topic, new Set(ts.map((t) => t.key)))
      d.reasons.push(`curation (${o.topic}): ${o.reason}`)
    }
    if (hit === 0) notes.push(`curation override ${o.match}: matches no part in this release`)
  }

  // Other names: a name several parts share (NRF5340_XXAA, both cores) becomes a group of them.
  const aliasOwners = new Map<string, { written: string; owners: Draft[] }>()
  for (const d of drafts.values())
    for (const [k, written] of d.aliasKeys) {
      if (drafts.has(k)) continue
      const o = aliasOwners.get(k) ?? { written, owners: [] }
      o.owners.push(d)
      aliasOwners.set(k, o)
    }
  const extraKeys = new Map<Draft, string[]>()
  for (const [k, { written, owners }] of aliasOwners) {
    if (owners.length === 1) extraKeys.set(owners[0]!, [...(extraKeys.get(owners[0]!) ?? []), k])
    else {
      const g = entity(written, 'device', `${written} names ${owners.map((o) => o.name).join(' and ')}: a topic they both give is ambiguous between them`)
      for (const o of owners) g.members.add(o.name)
    }
  }

  const entities: CatalogEntity[] = [...drafts.values()].map((d) => {
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
  entities.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  return { catalog: { entities, targets: input.targets, gaps: curation.gaps }, notes }
}
