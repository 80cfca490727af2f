import { existsSync, readFileSync, statSync } from 'node:fs'
import { dirname, join } from 'node:path'
import type { CrossCheckRule } from '../../src/model/catalog.js'
import { ALL_TOPICS, type ParseProblem, type Topic } from '../../src/model/fact.js'

/**
 * Curation: what no rule derives from the sources, as data read at index time. Optional: a
 * release of sources whose identities the rules understand needs none.
 *
 * - `aliases`: a part name that maps to the targets of a device the sources name differently
 *   (`nRF52832` → the SVD device `nrf52`). The name joins whatever part already has it.
 * - `overrides`: replaces what the rules derived for one topic of the parts a pattern matches,
 *   with the targets of another device, or with none (`"device": null`).
 * - `gaps`: why a topic has no source for the parts a pattern matches.
 * - `acknowledged`: a known defect of one source (file, optionally line) that the reader already
 *   handles by leaving the bad value out: the problem it reports becomes a coverage note, with this
 *   reason, instead of making the release partial. A problem it does not match stays a problem.
 * - `crossCheck`: for a topic several kinds of source give (an stm32-data chip file and an SVD
 *   both list interrupts), which kind's facts a part is served (the first in `order` it has) and
 *   which are checked against them; the reason is served with every cross-checked answer.
 *   `compare` names the value members a match is judged on (pins: `alternateFunctions`, not the
 *   positions or the other signals a source lists); without it, the whole value. With `subset`, a
 *   checked fact agrees when each compared list of it is within the served fact's (a source that
 *   leaves some entries out, as stm32-data leaves out EVENTOUT, is not contradicting the other).
 * Patterns are names with an optional trailing `*`, compared case- and punctuation-insensitively.
 */
export interface Curation {
  aliases: Array<{ name: string; device: string; topics?: Topic[]; reason: string }>
  overrides: Array<{ match: string; topic: Topic; device: string | null; reason: string }>
  gaps: Array<{ match: string; topic: Topic; reason: string }>
  acknowledged: Array<{ file: string; line?: number; reason: string }>
  crossCheck: CrossCheckRule[]
}

export const CURATION_FORMAT = 'hwfacts-curation/2'
/** Looked for next to the inventory when no `--curation` path is given. */
export const CURATION_FILE = 'curation.json'

export class CurationError extends Error {
  constructor(
    readonly file: string,
    readonly errors: string[]
  ) {
    super(`${file}: ${errors.length} bad curation entr${errors.length === 1 ? 'y' : 'ies'}:\n  ${errors.join('\n  ')}`)
  }
}

export const EMPTY_CURATION: Curation = { aliases: [], overrides: [], gaps: [], acknowledged: [], crossCheck: [] }

/**
 * The curation of a build: `path` if given, else `curation.json` beside the inventory, else none.
 * `raw` is what the release id hashes (the file's bytes; empty without a file).
 */
export function loadCuration(inventory: string, path?: string): { curation: Curation; raw: string; file?: string } {
  const dir = existsSync(inventory) && statSync(inventory).isDirectory() ? inventory : dirname(inventory)
  const file = path ?? (existsSync(join(dir, CURATION_FILE)) ? join(dir, CURATION_FILE) : undefined)
  if (file === undefined) return { curation: EMPTY_CURATION, raw: '' }
  let raw: string
  try {
    raw = readFileSync(file, 'utf8')
  } catch (err) {
    throw new CurationError(file, [`cannot be read: ${(err as Error).message}`])
  }
  let doc: unknown
  try {
    doc = JSON.parse(raw)
  } catch (err) {
    throw new CurationError(file, [`not JSON: ${(err as Error).message}`])
  }
  return { curation: validateCuration(doc, file), raw, file }
}

const isTopic = (t: unknown): t is Topic => typeof t === 'string' && (ALL_TOPICS as readonly string[]).includes(t)
const nonEmpty = (s: unknown): s is string => typeof s === 'string' && s.trim() !== ''
const PATTERN = /^[^*]+\*?$/

/** Checks every entry and reports each bad one (section, index, what is wrong) in one error. */
export function validateCuration(doc: unknown, file: string): Curation {
  const errors: string[] = []
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new CurationError(file, ['the file is not a JSON object'])
  const d = doc as Record<string, unknown>
  if (d.format !== CURATION_FORMAT) errors.push(`format: expected "${CURATION_FORMAT}", found ${JSON.stringify(d.format)}`)
  const known = new Set(['format', 'note', 'aliases', 'overrides', 'gaps', 'acknowledged', 'crossCheck'])
  for (const k of Object.keys(d)) if (!known.has(k)) errors.push(`${k}: unknown section (expected aliases, overrides, gaps, acknowledged, crossCheck)`)
  const section = (name: string): Record<string, unknown>[] => {
    const v = d[name]
    if (v === undefined) return []
    if (!Array.isArray(v)) {
      errors.push(`${name}: expected an array`)
      return []
    }
    return v.map((e, i) => {
      if (typeof e !== 'object' || e === null || Array.isArray(e)) {
        errors.push(`${name}[${i}]: expected an object`)
        return {}
      }
      return e as Record<string, unknown>
    })
  }
  const check = (where: string, e: Record<string, unknown>, fields: Record<string, (v: unknown) => string | undefined>): boolean => {
    const before = errors.length
    for (const k of Object.keys(e)) if (!(k in fields)) errors.push(`${where}: unknown member "${k}"`)
    for (const [k, test] of Object.entries(fields)) {
      const bad = test(e[k])
      if (bad) errors.push(`${where}: ${k} ${bad}`)
    }
    return errors.length === before
  }
  const reason = (v: unknown) => (nonEmpty(v) ? undefined : 'must say why (a non-empty string)')
  const name = (v: unknown) => (nonEmpty(v) ? undefined : 'must be a non-empty string')
  const pattern = (v: unknown) => (nonEmpty(v) && PATTERN.test(v) ? undefined : 'must be a name with at most a trailing *')
  const topic = (v: unknown) => (isTopic(v) ? undefined : `must be one of ${ALL_TOPICS.join(', ')}`)

  const out: Curation = { aliases: [], overrides: [], gaps: [], acknowledged: [], crossCheck: [] }
  section('aliases').forEach((e, i) => {
    const topics = (v: unknown) => (v === undefined || (Array.isArray(v) && v.length > 0 && v.every(isTopic)) ? undefined : `must list topics (${ALL_TOPICS.join(', ')})`)
    if (check(`aliases[${i}]`, e, { name, device: name, topics, reason }))
      out.aliases.push({ name: e.name as string, device: e.device as string, ...(e.topics ? { topics: e.topics as Topic[] } : {}), reason: e.reason as string })
  })
  section('overrides').forEach((e, i) => {
    const device = (v: unknown) => (v === null || nonEmpty(v) ? undefined : 'must be a device name or null')
    if (check(`overrides[${i}]`, e, { match: pattern, topic, device, reason }))
      out.overrides.push({ match: e.match as string, topic: e.topic as Topic, device: e.device as string | null, reason: e.reason as string })
  })
  section('gaps').forEach((e, i) => {
    if (check(`gaps[${i}]`, e, { match: pattern, topic, reason })) out.gaps.push({ match: e.match as string, topic: e.topic as Topic, reason: e.reason as string })
  })
  section('acknowledged').forEach((e, i) => {
    const line = (v: unknown) => (v === undefined || (Number.isInteger(v) && (v as number) > 0) ? undefined : 'must be a line number (an integer ≥ 1)')
    if (check(`acknowledged[${i}]`, e, { file: name, line, reason }))
      out.acknowledged.push({ file: e.file as string, ...(e.line !== undefined ? { line: e.line as number } : {}), reason: e.reason as string })
  })
  section('crossCheck').forEach((e, i) => {
    const order = (v: unknown) => (Array.isArray(v) && v.length > 1 && v.every(nonEmpty) && new Set(v).size === v.length ? undefined : 'must list two or more distinct source kinds')
    const compare = (v: unknown) => (v === undefined || (Array.isArray(v) && v.length > 0 && v.every(nonEmpty) && new Set(v).size === v.length) ? undefined : 'must list one or more distinct value members')
    const subset = (v: unknown) => (v === undefined || v === true ? undefined : 'must be true or left out')
    if (check(`crossCheck[${i}]`, e, { topic, order, compare, subset, reason })) {
      if (out.crossCheck.some((r) => r.topic === e.topic)) errors.push(`crossCheck[${i}]: topic ${String(e.topic)} has a rule already`)
      else if (e.subset && !e.compare) errors.push(`crossCheck[${i}]: subset needs compare (the lists it applies to)`)
      else
        out.crossCheck.push({
          topic: e.topic as Topic,
          order: e.order as string[],
          ...(e.compare ? { compare: e.compare as string[] } : {}),
          ...(e.subset ? { subset: true } : {}),
          reason: e.reason as string
        })
    }
  })
  if (errors.length > 0) throw new CurationError(file, errors)
  return out
}

/**
 * The problems a curation acknowledges as known source defects, as coverage notes, and the rest;
 * an acknowledgement that matches no problem is a note too (the source may have been fixed).
 */
export function acknowledge(problems: readonly ParseProblem[], curation: Curation): { problems: ParseProblem[]; notes: string[] } {
  const notes: string[] = []
  const used = new Set<number>()
  const kept = problems.filter((p) => {
    const i = curation.acknowledged.findIndex((a) => a.file === p.file && (a.line === undefined || a.line === p.line))
    if (i < 0) return true
    used.add(i)
    notes.push(`acknowledged source defect ${p.file}${p.line ? `:${p.line}` : ''}: ${p.reason} (curation: ${curation.acknowledged[i]!.reason})`)
    return false
  })
  curation.acknowledged.forEach((a, i) => {
    if (!used.has(i)) notes.push(`curation acknowledged ${a.file}${a.line ? `:${a.line}` : ''}: no such problem in this release`)
  })
  return { problems: kept, notes }
}
