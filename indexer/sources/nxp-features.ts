/**
 * NXP MCUXpresso SDK feature headers (`MKL25Z4_features.h`, `LPC55S66_cm33_core0_features.h`):
 * the part numbers a header's `#if defined(CPU_…)` blocks name, and the errata its
 * `FSL_FEATURE_<MODULE>_HAS_ERRATA_<id>` macros say the device has.
 *
 * The device is the file's name without `_features.h`; a suffix after the first `_` is the core
 * the header is for (`cm33_core0`). One target per header, `nxp-features:<device>`, topic errata,
 * even when no erratum is set: the source exists and lists none (the target resolves with no facts).
 * An erratum macro defined as 1 in at least one block is a fact; its parts are those of the blocks
 * where it is 1, left out when that is every part of the file.
 *
 * Stages: read (nxp-features/read.ts) → emit (here).
 */
import { basename } from 'node:path'
import type { DocumentTarget, Evidence, FactDraft, PartNumber } from '../../src/model/fact.js'
import { SourceLines } from './evidence.js'
import { appliesTo, commentText, readFeaturesHeader, type Define } from './nxp-features/read.js'
import { emptyResult, type AdapterResult, type LoadedArtifact, type SourceAdapter } from './types.js'

export const NXP_FEATURES_KIND = 'nxp-mcux-features-header'
const VENDOR = 'NXP Semiconductors'
/**
 * An erratum flag: `FSL_FEATURE_I2C_HAS_ERRATA_6070`, and the `HAS_`-less spelling some headers
 * use (`FSL_FEATURE_SEMC_ERRATA_050577`, "If SEMC has errata 050577"). Function-like ones
 * (`FSL_FEATURE_EDMA_INSTANCE_HAS_ERRATA_51327n(x)`, per instance) are not flags: they
 * refine a flag of the same erratum (`FSL_FEATURE_EDMA_HAS_ERRATA_51327`) and are not read.
 */
const ERRATUM_RE = /^FSL_FEATURE_([A-Z0-9]+(?:_[A-Z0-9]+)*?)_(?:HAS_)?ERRATA_([0-9A-Za-z]+)$/
const FLAG_RE = /^\(?\s*([01])[uU]?\s*\)?$/

export const nxpFeaturesAdapter: SourceAdapter = {
  name: 'nxp-features',
  kinds: [NXP_FEATURES_KIND],
  parse(artifacts) {
    const out = emptyResult()
    out.partNumbers = []
    for (const a of artifacts) parseFeaturesHeader(a, out)
    return out
  },
  // Headers never refer to each other.
  units: (artifacts) => artifacts.map((a) => [a])
}

function parseFeaturesHeader(a: LoadedArtifact, out: AdapterResult): void {
  const problems = out.problems
  const file = basename(a.path)
  if (!file.endsWith('_features.h')) {
    problems.push({ file: a.path, reason: `not named <device>_features.h: ${file}` })
    return
  }
  const device = file.slice(0, -'_features.h'.length)
  const sep = device.indexOf('_')
  const core = sep === -1 ? undefined : device.slice(sep + 1)
  const text = a.content.toString('utf8')
  const header = readFeaturesHeader(text, a.path, problems)
  const key = `nxp-features:${device}`
  out.targets.push(featuresTarget(a, key, device, core))

  for (const [name, line] of header.parts) {
    const pn: PartNumber = { name, vendor: VENDOR, device, targets: [key], sourceSha256: a.sha256, sourcePath: a.path, line }
    if (core) pn.core = core
    out.partNumbers!.push(pn)
  }

  const fileParts = [...header.parts.keys()]
  const lines = new SourceLines(text)
  const flags = erratumFlags(header.defines, fileParts, a.path, problems)

  const names = new Map<string, string>()
  for (const [macro, { module, id, on }] of flags) {
    if (on.length === 0) continue
    const name = `errata.${id}`
    const other = names.get(name)
    if (other) {
      problems.push({ file: a.path, line: on[0]!.d.line, reason: `${macro} gives ${name}, which ${other} already gives; skipped` })
      continue
    }
    const first = on[0]!.d
    const value: Record<string, unknown> = { id, module }
    if (first.comment) value.title = commentText(first.comment)
    const scope: FactDraft['scope'] = { device }
    if (!on.some((o) => o.parts === 'all')) {
      const set = new Set(on.flatMap((o) => o.parts as string[]))
      if (set.size === 0) {
        problems.push({ file: a.path, line: first.line, reason: `${macro} is 1 only in blocks no part of the file reaches; not read` })
        continue
      }
      // Every part of the file: only when the file's part conditions could all be read.
      if (!header.allPartsKnown || fileParts.some((p) => !set.has(p))) scope.parts = fileParts.filter((p) => set.has(p))
    }
    names.set(name, macro)
    out.facts.push({ target: key, topic: 'errata', name, value, scope, evidence: erratumEvidence(a, macro, on, lines) })
  }
}

function featuresTarget(a: LoadedArtifact, key: string, device: string, core: string | undefined): DocumentTarget {
  return {
    key,
    topics: ['errata'],
    device,
    sourceSha256: a.sha256,
    sourcePath: a.path,
    description: `NXP MCUXpresso SDK feature header of ${device}` + (core ? ` (${core} core)` : ''),
    identity: { vendor: VENDOR, ...(core ? { core } : {}) }
  }
}

/** An erratum macro of a header, and its defines set to 1 with the parts each applies to. */
interface ErratumFlag {
  module: string
  id: string
  on: { d: Define; parts: string[] | 'all' }[]
}

/** Each erratum macro's defines set to 1, in file order of their first define. */
function erratumFlags(defines: readonly Define[], fileParts: string[], path: string, problems: AdapterResult['problems']): Map<string, ErratumFlag> {
  const flags = new Map<string, ErratumFlag>()
  for (const d of defines) {
    const m = ERRATUM_RE.exec(d.name)
    if (!m || d.params !== undefined) continue
    const v = FLAG_RE.exec(d.value)
    if (!v) {
      problems.push({ file: path, line: d.line, reason: `${d.name} is '${d.value}', not 0 or 1; not read` })
      continue
    }
    let flag = flags.get(d.name)
    if (!flag) flags.set(d.name, (flag = { module: m[1] ?? '', id: m[2] ?? '', on: [] }))
    if (v[1] === '0') continue
    const where = appliesTo(d, fileParts)
    if ('other' in where) {
      problems.push({ file: path, line: d.line, reason: `${d.name} is 1 under a condition that is not about parts (line ${where.other.line}); which parts it applies to is not known, not read` })
      continue
    }
    flag.on.push({ d, parts: where.parts })
  }
  return flags
}

/** One evidence entry per define that sets the erratum, with its comment when it has one. */
function erratumEvidence(a: LoadedArtifact, macro: string, on: ErratumFlag['on'], lines: SourceLines): Evidence[] {
  return on.map(({ d }) => ({
    sourceSha256: a.sha256,
    sourcePath: a.path,
    locator: `line ${d.line}: #define ${macro}` + (d.frames.length > 0 ? ` (in the block at line ${d.frames[d.frames.length - 1]!.line})` : ''),
    excerpt: lines.excerpt(d.comment?.line ?? d.line, d.endLine - (d.comment?.line ?? d.line) + 1)
  }))
}
