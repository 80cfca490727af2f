import { readFileSync } from 'node:fs'
import type { CatalogEntity } from '../../src/model/catalog.js'
import { normalizeKey } from '../../src/model/text.js'
import { CurationError } from './curation.js'

/**
 * Vendors and their ordering-code rules, read from `vendors.json` (data, not code): which vendor
 * a source's vendor or publisher string names, and how that vendor's ordering codes continue a
 * part or device name. See the file's own note for the members.
 */

export interface VendorRule {
  kinds?: Array<CatalogEntity['kind']>
  names: RegExp
  wildcard?: string
  /** The end of the name that the code writes where the suffix's `{tail}` stands, not after the stem. */
  tail?: RegExp
  suffix: string
  anyPackage?: string
  anyVariant?: string
  reason: string
  example: string
}

export interface Vendor {
  id: string
  name: string
  match: RegExp[]
  /** What the vendor writes in front of its part numbers where a source leaves it out, and why. */
  prefix?: { name: string; reason: string }
  /** Part-name patterns of the vendor's parts, for parts whose source names no vendor. */
  parts: RegExp[]
  ordering: VendorRule[]
}

export interface OrderingRule {
  stem: string
  suffix: string
  reason: string
}

export const VENDORS_FORMAT = 'hwfacts-vendors/1'
export const VENDORS_FILE = new URL('./vendors.json', import.meta.url)

const str = (v: unknown): v is string => typeof v === 'string' && v.trim() !== ''

function regex(src: unknown, where: string, errors: string[], flags = ''): RegExp | undefined {
  if (!str(src)) {
    errors.push(`${where}: expected a regular expression`)
    return undefined
  }
  try {
    return new RegExp(src, flags)
  } catch (err) {
    errors.push(`${where}: ${(err as Error).message}`)
    return undefined
  }
}

/** Every vendor entry checked; each bad one reported (vendor, member, what is wrong) in one error. */
export function parseVendors(doc: unknown, file: string): Vendor[] {
  const errors: string[] = []
  const d = (typeof doc === 'object' && doc !== null ? doc : {}) as Record<string, unknown>
  if (d.format !== VENDORS_FORMAT) errors.push(`format: expected "${VENDORS_FORMAT}", found ${JSON.stringify(d.format)}`)
  const list = Array.isArray(d.vendors) ? (d.vendors as Array<Record<string, unknown>>) : (errors.push('vendors: expected an array'), [])
  const ids = new Set<string>()
  const vendors = list.map((v, i): Vendor => {
    const at = `vendors[${i}]${str(v.id) ? ` (${v.id})` : ''}`
    if (!str(v.id) || !str(v.name)) errors.push(`${at}: id and name are required`)
    else if (ids.has(v.id)) errors.push(`${at}: id given twice`)
    else ids.add(v.id)
    const match = (Array.isArray(v.match) ? v.match : []).map((m, j) => regex(m, `${at}.match[${j}]`, errors, 'i')).filter((x): x is RegExp => x !== undefined)
    if (match.length === 0) errors.push(`${at}: match needs at least one pattern`)
    const ordering = (Array.isArray(v.ordering) ? (v.ordering as Array<Record<string, unknown>>) : []).map((r, j): VendorRule => {
      const rat = `${at}.ordering[${j}]`
      const suffix = str(r.suffix) ? r.suffix : ''
      // The placeholders are filled in before compiling: check the pattern with their fallbacks.
      regex(suffix.replace('{packages}', '(?:AA)').replace('{variants}', '(?:AA)').replace('{tail}', 'A'), `${rat}.suffix`, errors)
      if (r.wildcard !== undefined) regex(r.wildcard, `${rat}.wildcard`, errors)
      const tail = r.tail === undefined ? undefined : regex(str(r.tail) ? `(?:${r.tail})$` : r.tail, `${rat}.tail`, errors, 'i')
      if ((tail !== undefined) !== suffix.includes('{tail}')) errors.push(`${rat}: a tail and a {tail} in the suffix go together`)
      if (!str(r.reason) || !str(r.example)) errors.push(`${rat}: reason and example are required`)
      return {
        ...(Array.isArray(r.kinds) ? { kinds: r.kinds as VendorRule['kinds'] } : {}),
        names: regex(r.names, `${rat}.names`, errors, 'i') ?? /$^/,
        ...(str(r.wildcard) ? { wildcard: r.wildcard } : {}),
        ...(tail ? { tail } : {}),
        suffix,
        ...(str(r.anyPackage) ? { anyPackage: r.anyPackage } : {}),
        ...(str(r.anyVariant) ? { anyVariant: r.anyVariant } : {}),
        reason: String(r.reason),
        example: String(r.example)
      }
    })
    const prefix = v.prefix as Record<string, unknown> | undefined
    if (prefix !== undefined && (!str(prefix.name) || !str(prefix.reason))) errors.push(`${at}.prefix: name and reason are required`)
    const parts = (Array.isArray(v.parts) ? v.parts : []).map((m, j) => regex(m, `${at}.parts[${j}]`, errors, 'i')).filter((x): x is RegExp => x !== undefined)
    return { id: String(v.id), name: String(v.name), match, parts, ...(prefix ? { prefix: { name: String(prefix.name), reason: String(prefix.reason) } } : {}), ordering }
  })
  if (errors.length > 0) throw new CurationError(file, errors)
  return vendors
}

export function loadVendors(file: string | URL = VENDORS_FILE): { vendors: Vendor[]; raw: string } {
  const raw = readFileSync(file, 'utf8')
  return { vendors: parseVendors(JSON.parse(raw), String(file)), raw }
}

/** The vendor whose part-name patterns a part name matches: one, or none when none or several do. */
export function vendorOfPart(vendors: readonly Vendor[], name: string): Vendor | undefined {
  const hits = vendors.filter((v) => v.parts.some((p) => p.test(name)))
  return hits.length === 1 ? hits[0] : undefined
}

/** The vendor's prefix when `name` is written without it. */
const prefixLeftOut = (vendor: Vendor | undefined, name: string) => {
  const p = vendor?.prefix
  return p && !normalizeKey(name).startsWith(normalizeKey(p.name)) ? p : undefined
}

/** A part number as its vendor writes it: with the vendor's prefix where the source left it out. */
export function vendorSpelling(vendor: Vendor | undefined, name: string): { name: string; reason?: string } {
  const p = prefixLeftOut(vendor, name)
  return p ? { name: p.name + name.toUpperCase(), reason: p.reason } : { name }
}

/** The vendor the first of `names` (a source's vendor, then its publisher, …) that any vendor's patterns match names. */
export function vendorNamed(vendors: readonly Vendor[], ...names: Array<string | undefined>): Vendor | undefined {
  for (const n of names) {
    if (!n) continue
    const v = vendors.find((x) => x.match.some((m) => m.test(n)))
    if (v) return v
  }
  return undefined
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
const alternatives = (codes: readonly string[]) => `(?:${[...new Set(codes.map(normalizeKey))].sort().map(escape).join('|')})`

/**
 * How ordering codes of one entity are written, by the first of its vendor's rules that applies
 * to its name and kind, with the vendor's prefix where the name lacks it (Toshiba's TMP before
 * M367). `packages` and `variants` are what the sources give for this part: where the rule names
 * them, only those are accepted.
 */
export function orderingOf(
  vendor: Vendor,
  name: string,
  kind: CatalogEntity['kind'],
  given: { packages?: readonly string[]; variants?: readonly string[] } = {}
): OrderingRule | undefined {
  for (const r of vendor.ordering) {
    if (r.kinds && !r.kinds.includes(kind)) continue
    if (!r.names.test(name)) continue
    let rest = name
    let tail = ''
    if (r.tail) {
      const m = r.tail.exec(name)
      if (!m) continue
      rest = name.slice(0, m.index)
      tail = escape(normalizeKey(m[0]))
    }
    let stem = normalizeKey(rest)
    let head = ''
    if (r.wildcard) {
      // A lowercase x past the vendor prefix stands for one character of the code.
      const i = rest.indexOf('x', 4)
      if (i < 0) continue
      stem = normalizeKey(rest.slice(0, i))
      head = [...rest.slice(i)].map((c) => (c === 'x' ? r.wildcard : escape(normalizeKey(c)))).join('')
    }
    stem = normalizeKey(prefixLeftOut(vendor, name)?.name ?? '') + stem
    const packages = given.packages?.length ? alternatives(given.packages) : undefined
    const variants = given.variants?.length ? alternatives(given.variants) : undefined
    const suffix = head + r.suffix.replace('{packages}', packages ?? r.anyPackage ?? '').replace('{variants}', variants ?? r.anyVariant ?? '').replace('{tail}', tail)
    const notes = [
      r.suffix.includes('{packages}') ? (packages ? `packages the sources give: ${given.packages!.join(', ')}` : 'no source lists its packages: any package code is accepted') : '',
      r.suffix.includes('{variants}') && variants ? `build variants the sources give: ${given.variants!.join(', ')}` : ''
    ].filter(Boolean)
    return { stem, suffix, reason: `${r.reason}, e.g. ${r.example}${notes.length ? ` (${notes.join('; ')})` : ''}` }
  }
  return undefined
}
