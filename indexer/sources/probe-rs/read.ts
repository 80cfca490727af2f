import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Node, type YAMLMap } from 'yaml'
import type { ParseProblem } from '../../../src/model/fact.js'

/**
 * Reads a probe-rs target file (`probe-rs/targets/*.yaml`: one chip family) into a small typed
 * model: what the adapter emits now (part numbers) and what later facts need (the memory map).
 * Flash algorithms (base64 blobs, most of a file's bytes) are never copied out of the YAML tree,
 * which is dropped as soon as the model is read.
 */

export interface ProbeRsRegion {
  /** The region's YAML tag without its `!`: `Ram`, `Nvm`, `Generic`. */
  kind: string
  name?: string
  /** Byte range [start, end), as probe-rs writes it. */
  start: number
  end: number
  cores: string[]
  /** `access.boot: true`: the region the core boots from. */
  boot: boolean
  /** `access` as written: only the members the file sets (probe-rs defaults the others). */
  access?: { read?: boolean; write?: boolean; execute?: boolean; boot?: boolean }
  /** `is_alias: true`: another address of memory another region already describes. */
  alias: boolean
  line: number
  /** Lines the region spans, from `line` (its tag) to its last member. */
  lines: number
}

export interface ProbeRsCore {
  name: string
  type: string
}

export interface ProbeRsVariant {
  name: string
  line: number
  cores: ProbeRsCore[]
  /** Absent when a region could not be read (reported): sums over a partial map would be wrong. */
  memoryMap?: ProbeRsRegion[]
}

export interface ProbeRsFamily {
  name: string
  /** Line of the family's `name`. */
  line: number
  /** JEP106 code: `cc` continuation codes, then the 7-bit `id`. */
  manufacturer?: { cc: number; id: number }
  variants: ProbeRsVariant[]
}

/** Reads one file; problems (with lines) go to `problems`. Undefined when nothing usable is left. */
export function readProbeRs(text: string, file: string, problems: ParseProblem[]): ProbeRsFamily | undefined {
  const lc = new LineCounter()
  // Unknown tags (`!Nvm`, `!NordicFicrInfo`, `!v1`, …) only warn and leave the node a plain
  // map, sequence or scalar with its tag kept: the tag is read below, warnings are ignored.
  const doc = parseDocument(text, { lineCounter: lc, logLevel: 'silent' })
  const lineOf = (n: Node | undefined): number => (n?.range ? lc.linePos(n.range[0]).line : 1)
  const problem = (line: number, reason: string) => problems.push({ file, line, reason })
  const err = doc.errors[0]
  if (err) {
    // The message's first line, without the position it ends with (the problem has the line).
    problem(err.linePos?.[0].line ?? 1, `malformed YAML: ${err.message.split('\n')[0]!.replace(/ at line \d+, column \d+:$/, '')}`)
    return undefined
  }
  const root = doc.contents
  if (!isMap(root)) {
    problem(lineOf(root ?? undefined), 'not a probe-rs target file: the document is not a mapping')
    return undefined
  }
  const nameNode = root.get('name', true)
  const name = str(nameNode)
  if (name === undefined) {
    problem(lineOf(root), 'target file has no name')
    return undefined
  }
  const family: ProbeRsFamily = { name, line: lineOf(nameNode as Node), variants: [] }
  const m = root.get('manufacturer', true)
  if (isMap(m)) {
    const cc = int(m.get('cc', true))
    const id = int(m.get('id', true))
    if (cc !== undefined && id !== undefined) family.manufacturer = { cc, id }
    else problem(lineOf(m), 'manufacturer without a numeric cc and id')
  }
  const variants = root.get('variants', true)
  if (!isSeq(variants) || variants.items.length === 0) {
    problem(lineOf((variants as Node | undefined) ?? root), 'target file has no variants')
    return undefined
  }
  for (const v of variants.items) {
    const line = lineOf(v as Node)
    const vname = isMap(v) ? str(v.get('name', true)) : undefined
    if (!isMap(v) || vname === undefined) {
      problem(line, 'variant without a name')
      continue
    }
    family.variants.push({ name: vname, line, cores: readCores(v), ...readMemoryMap(v, lineOf, (o) => lc.linePos(o).line, problem, vname) })
  }
  return family
}

function readCores(v: YAMLMap): ProbeRsCore[] {
  const cores = v.get('cores', true)
  const out: ProbeRsCore[] = []
  if (!isSeq(cores)) return out
  for (const c of cores.items) {
    if (!isMap(c)) continue
    const name = str(c.get('name', true))
    const type = str(c.get('type', true))
    if (name !== undefined && type !== undefined) out.push({ name, type })
  }
  return out
}

function readMemoryMap(
  v: YAMLMap,
  lineOf: (n: Node | undefined) => number,
  lineAt: (offset: number) => number,
  problem: (line: number, reason: string) => void,
  variant: string
): { memoryMap?: ProbeRsRegion[] } {
  const map = v.get('memory_map', true)
  if (!isSeq(map)) return {}
  const out: ProbeRsRegion[] = []
  for (const r of map.items) {
    const line = lineOf(r as Node)
    // The region's value ends where its last member does (range[1] is past its final line break).
    const stop = (r as Node).range?.[1]
    const last = stop !== undefined && stop > 0 ? lineAt(stop - 1) : line
    const range = isMap(r) ? r.get('range', true) : undefined
    const start = isMap(range) ? int(range.get('start', true)) : undefined
    const end = isMap(range) ? int(range.get('end', true)) : undefined
    if (!isMap(r) || !r.tag || start === undefined || end === undefined || end < start) {
      problem(line, `${variant}: memory region without a tag and a numeric range (start <= end); no memory sizes for this variant`)
      return {}
    }
    const access = r.get('access', true)
    const cores = r.get('cores', true)
    const name = str(r.get('name', true))
    const written = isMap(access) ? readAccess(access) : undefined
    out.push({
      kind: r.tag.replace(/^!/, ''),
      ...(name !== undefined ? { name } : {}),
      start,
      end,
      cores: isSeq(cores) ? cores.items.map((c) => str(c)).filter((c): c is string => c !== undefined) : [],
      boot: written?.boot === true,
      ...(written ? { access: written } : {}),
      alias: bool(r.get('is_alias', true)),
      line,
      lines: Math.max(1, last - line + 1)
    })
  }
  return { memoryMap: out }
}

function readAccess(m: YAMLMap): ProbeRsRegion['access'] {
  const out: NonNullable<ProbeRsRegion['access']> = {}
  for (const k of ['read', 'write', 'execute', 'boot'] as const) {
    const v = m.get(k, true)
    if (isScalar(v) && typeof v.value === 'boolean') out[k] = v.value
  }
  return out
}

function str(n: unknown): string | undefined {
  return isScalar(n) && typeof n.value === 'string' && n.value !== '' ? n.value : undefined
}

function bool(n: unknown): boolean {
  return isScalar(n) && n.value === true
}

/** A safe integer (addresses are below 2^53 in every file; a larger one is not guessed at). */
function int(n: unknown): number | undefined {
  return isScalar(n) && typeof n.value === 'number' && Number.isSafeInteger(n.value) ? n.value : undefined
}
