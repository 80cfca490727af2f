/**
 * probe-rs target files (kind `probe-rs-target`) → part numbers: one per variant, with the
 * family's manufacturer (JEP106 code → name, indexer/curation/jep106.json), the first core's
 * type and the flash and RAM sizes its memory map makes clear; and each variant's memory map as
 * `memory` facts of a target of its own (`probe-rs:nRF52840_xxAA`: variant names are unique
 * across the probe-rs files, 3,985 of 3,985 in corpus-world; a name two files give is the build's
 * duplicate target to report).
 */
import type { DocumentTarget, FactDraft, ParseProblem, PartNumber } from '../../src/model/fact.js'
import jep106 from '../curation/jep106.json' with { type: 'json' }
import { SourceLines } from './evidence.js'
import { address, UniqueNames, type MemoryValue } from './memory.js'
import { readProbeRs, type ProbeRsRegion, type ProbeRsVariant } from './probe-rs/read.js'
import { concatResults, emptyResult, type AdapterResult, type LoadedArtifact, type SourceAdapter } from './types.js'

export const PROBE_RS_KIND = 'probe-rs-target'

const MANUFACTURERS = new Map(jep106.codes.map((c) => [`${c.cc}/${Number.parseInt(c.id, 16)}`, c.name]))

/** The JEP106 name of a code, or the code itself (banks are numbered from 1: bank = cc + 1). */
export function jep106Name(cc: number, id: number): string {
  return MANUFACTURERS.get(`${cc}/${id}`) ?? `JEP106 bank ${cc + 1} id 0x${id.toString(16).padStart(2, '0')}`
}

const kb = (r: ProbeRsRegion) => (r.end - r.start) / 1024

/** The size of the one boot `!Nvm` region; with none or several, which is the flash is not clear. */
function flashKb(map: readonly ProbeRsRegion[]): number | undefined {
  const boot = map.filter((r) => r.kind === 'Nvm' && r.boot && !r.alias)
  return boot.length === 1 ? kb(boot[0]!) : undefined
}

/**
 * The sum of every `!Ram` region but aliases (`is_alias: true` marks a second address of RAM
 * another region lists, as nRF52's data-bus view of its code-bus RAM), whichever cores see it.
 */
function ramKb(map: readonly ProbeRsRegion[]): number | undefined {
  let sum: number | undefined
  for (const r of map) if (r.kind === 'Ram' && !r.alias) sum = (sum ?? 0) + kb(r)
  return sum
}

/** Region tags as memory kinds: `!Ram` RAM, `!Nvm` flash, anything else (`!Generic`) other. */
const KINDS: Readonly<Record<string, MemoryValue['kind']>> = { Ram: 'ram', Nvm: 'flash' }

/**
 * One variant's memory map as facts of its target: each region named as the file names it, else
 * by its tag (`RAM`, then `RAM_2`, … in map order).
 */
function memoryTarget(a: LoadedArtifact, v: ProbeRsVariant, map: readonly ProbeRsRegion[], text: SourceLines, identity: DocumentTarget['identity']): { target: DocumentTarget; facts: FactDraft[] } {
  const key = `probe-rs:${v.name}`
  const names = new UniqueNames()
  const facts = map.map((r, j): FactDraft => {
    const value: MemoryValue = { kind: KINDS[r.kind] ?? 'other', start: address(r.start), size: r.end - r.start }
    if (r.access && Object.keys(r.access).length > 0) value.access = r.access
    if (r.cores.length > 0) value.cores = r.cores
    if (r.alias) value.alias = true
    // Quoted from its tag (`- !Nvm`), on the line before its first member in block style.
    const from = text.line(r.line - 1).trimEnd().endsWith(`!${r.kind}`) ? r.line - 1 : r.line
    const evidence = [{ sourceSha256: a.sha256, sourcePath: a.path, locator: `line ${from}: /variants[name=${v.name}]/memory_map/${j}`, excerpt: text.excerpt(from, r.lines + r.line - from) }]
    return { target: key, topic: 'memory', name: names.next(r.name ?? r.kind.toUpperCase()), value: value as unknown as Record<string, unknown>, scope: { device: v.name }, evidence }
  })
  return { target: { key, topics: ['memory'], device: v.name, sourceSha256: a.sha256, sourcePath: a.path, identity }, facts }
}

/** Parses one target file; never throws. */
export function parseProbeRs(artifact: LoadedArtifact): AdapterResult {
  const result = emptyResult()
  const problems: ParseProblem[] = result.problems
  const family = readProbeRs(artifact.content.toString('utf8'), artifact.path, problems)
  if (!family) return result
  // Without a manufacturer the file names no vendor: its parts come without one (the catalog
  // knows a vendor's parts by its name patterns, vendors.json, or says the vendor is unknown).
  const vendor = family.manufacturer ? jep106Name(family.manufacturer.cc, family.manufacturer.id) : undefined
  const parts: PartNumber[] = []
  const seen = new Set<string>()
  const text = new SourceLines(artifact.content.toString('utf8'))
  for (const v of family.variants) {
    if (seen.has(v.name)) {
      problems.push({ file: artifact.path, line: v.line, reason: `variant ${v.name} is listed twice; the first is kept` })
      continue
    }
    seen.add(v.name)
    const core = v.cores[0]?.type
    const flash = v.memoryMap && flashKb(v.memoryMap)
    const ram = v.memoryMap && ramKb(v.memoryMap)
    const mem = v.memoryMap?.length ? memoryTarget(artifact, v, v.memoryMap, text, { ...(vendor !== undefined ? { vendor } : {}), series: family.name, ...(core !== undefined ? { cpu: core } : {}) }) : undefined
    if (mem) {
      result.targets.push(mem.target)
      for (const f of mem.facts) result.facts.push(f)
    }
    parts.push({
      name: v.name,
      ...(vendor !== undefined ? { vendor } : {}),
      family: family.name,
      ...(core !== undefined ? { core } : {}),
      ...(flash !== undefined ? { flashKb: flash } : {}),
      ...(ram !== undefined ? { ramKb: ram } : {}),
      ...(mem ? { targets: [mem.target.key] } : {}),
      sourceSha256: artifact.sha256,
      sourcePath: artifact.path,
      line: v.line
    })
  }
  result.partNumbers = parts
  return result
}

export const probeRsAdapter: SourceAdapter = {
  name: 'probe-rs',
  // 2: a file without a manufacturer gives its parts without a vendor, not a problem.
  // 3: memory facts, a target per variant.
  version: '3',
  kinds: [PROBE_RS_KIND],
  // Each file is a chip family of its own.
  units: (artifacts) => artifacts.map((a) => [a]),
  parse: (artifacts) => concatResults(artifacts.map(parseProbeRs))
}
