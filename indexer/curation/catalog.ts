import curationData from './devices.json' with { type: 'json' }
import type { CatalogPart, DocumentTarget, Topic } from '../../src/model/fact.js'
import type { CatalogEntity, ReleaseCatalog, TargetSummary } from '../../src/model/catalog.js'
import { normalizeKey } from '../../src/model/text.js'

interface Curation {
  svd: Array<{ source: string; covers: string[]; reason: string }>
  devices: Array<{ name: string; aliases: string[]; registers?: string; errata?: string; reason: string }>
  gaps: Array<{ match: string; topic: Topic; reason: string }>
}

/** The curated mapping, imported so the build output carries it; `raw` feeds the release id. */
export function loadCuration(): { curation: Curation; raw: string } {
  return { curation: curationData as Curation, raw: JSON.stringify(curationData) }
}

/** `svd/STMicro/STM32F407.svd` → `svd:STMicro/STM32F407`: the key the SVD adapter gives its target. */
export function svdTargetKey(sourcePath: string): string {
  return 'svd:' + sourcePath.replace(/^svd\//, '').replace(/\.svd$/i, '')
}

export function errataTargetKey(model: string): string {
  return 'nordic-errata:' + model
}

/** `STM32L4x6*`-style pattern (only a trailing `*`) over normalized keys. */
function coversPart(patterns: string[], part: string): boolean {
  const key = normalizeKey(part)
  return patterns.some((p) => (p.endsWith('*') ? key.startsWith(normalizeKey(p.slice(0, -1))) : key === normalizeKey(p)))
}

/** Splits a selector part at its temperature-range `x` so ordering codes (`…T6`, `…T6TR`) find it. */
function orderingStem(name: string): CatalogEntity['orderingStem'] {
  const i = name.lastIndexOf('x')
  if (i <= 5) return undefined
  return { stem: normalizeKey(name.slice(0, i)), tail: normalizeKey(name.slice(i + 1)) }
}

export interface CatalogInput {
  targets: DocumentTarget[]
  parts: CatalogPart[]
  /** Fact counts per target key and topic. */
  counts: Map<string, Partial<Record<Topic, number>>>
}

/**
 * Builds the resolvable catalog: selector parts and RefNames from the STM32 data, SVD devices and
 * curated devices from devices.json. A curated entry whose target is absent is noted, not guessed.
 */
export function buildCatalog(input: CatalogInput, curation: Curation): { catalog: ReleaseCatalog; notes: string[] } {
  const notes: string[] = []
  const targetKeys = new Set(input.targets.map((t) => t.key))
  const entities: CatalogEntity[] = []

  const svdFor = (part: string) => curation.svd.find((s) => coversPart(s.covers, part))

  const byRef = new Map<string, CatalogPart[]>()
  for (const p of input.parts) {
    const list = byRef.get(p.refName) ?? []
    list.push(p)
    byRef.set(p.refName, list)
  }

  const registersTarget = (source: string | undefined, what: string): string | undefined => {
    if (!source) return undefined
    const key = svdTargetKey(source)
    if (targetKeys.has(key)) return key
    notes.push(`${what}: SVD source ${source} is not in this release`)
    return undefined
  }

  for (const p of input.parts) {
    const svd = svdFor(p.name)
    const targets: CatalogEntity['targets'] = { pins: p.target, electrical: p.target }
    const reg = svd && targetKeys.has(svdTargetKey(svd.source)) ? svdTargetKey(svd.source) : undefined
    if (reg) targets.registers = reg
    entities.push({
      name: p.name,
      kind: 'selector-part',
      keys: [normalizeKey(p.name)],
      orderingStem: orderingStem(p.name),
      targets,
      package: p.package,
      family: p.family,
      line: p.line,
      core: p.core,
      flashKb: p.flashKb,
      ramKb: p.ramKb,
      maxFrequencyMhz: p.maxFrequencyMhz,
      ...(svd ? { reason: svd.reason } : {})
    })
  }

  for (const [refName, parts] of byRef) {
    const first = parts[0]!
    // A RefName without alternatives is its own selector part: one entity, not two.
    if (parts.length === 1 && first.name === refName) continue
    const reg = entities.find((e) => e.name === first.name)?.targets.registers
    entities.push({
      name: refName,
      kind: 'refname',
      keys: [normalizeKey(refName)],
      targets: { pins: first.target, electrical: first.target, ...(reg ? { registers: reg } : {}) },
      members: parts.map((p) => p.name).sort(),
      package: first.package,
      family: first.family,
      line: first.line,
      core: first.core
    })
  }

  for (const s of curation.svd) {
    const key = registersTarget(s.source, s.source)
    if (!key) continue
    const device = input.targets.find((t) => t.key === key)!.device
    entities.push({
      name: device,
      kind: 'device',
      keys: [normalizeKey(device)],
      targets: { registers: key },
      members: input.parts.filter((p) => coversPart(s.covers, p.name)).map((p) => p.name).sort(),
      reason: s.reason
    })
  }

  for (const d of curation.devices) {
    const targets: CatalogEntity['targets'] = {}
    const reg = registersTarget(d.registers, d.name)
    if (reg) targets.registers = reg
    if (d.errata) {
      const key = errataTargetKey(d.errata)
      if (targetKeys.has(key)) targets.errata = key
      else notes.push(`${d.name}: errata target ${key} is not in this release`)
    }
    entities.push({ name: d.name, kind: 'device', keys: [...new Set([d.name, ...d.aliases].map(normalizeKey))], targets, reason: d.reason })
  }

  // One entity per lookup key: a later duplicate would make resolution depend on build order.
  const seen = new Map<string, string>()
  for (const e of entities) {
    e.keys = e.keys.filter((k) => {
      const owner = seen.get(k)
      if (owner === undefined) {
        seen.set(k, e.name)
        return true
      }
      if (owner !== e.name) notes.push(`lookup key ${k} of ${e.name} already names ${owner}; kept for ${owner}`)
      return false
    })
  }
  entities.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))

  const targets: TargetSummary[] = input.targets
    .map((t) => ({ ...t, factCounts: input.counts.get(t.key) ?? {} }))
    .sort((a, b) => (a.key < b.key ? -1 : 1))
  return { catalog: { entities, targets, gaps: curation.gaps }, notes }
}
