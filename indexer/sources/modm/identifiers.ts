import type { XmlElement } from '../../xml.js'

/**
 * modm-devices' identifier rules (modm_devices/device_file.py and device_identifier.py):
 * - every attribute of `<device>` is a `|`-separated list of values; the identifiers are the
 *   cartesian product of all of them, attribute order kept (itertools.product over the dict);
 * - an identifier's string is the `<naming-schema>` with each `{key}` replaced by its value, an
 *   absent key by nothing (`string.Formatter().vformat` with a defaultdict(str));
 * - `<invalid-device>` strings are removed, then, if there is any `<valid-device>`, only those
 *   strings are kept;
 * - an element with `device-<key>` attributes applies to an identifier when, for every such
 *   attribute, the identifier's `<key>` value is one of its `|`-separated values (an identifier
 *   without that key never matches), and its parent applies too.
 */

export type Identifier = ReadonlyMap<string, string>

export type Schema = readonly (string | { key: string })[]

/** The naming schema's literal parts and `{key}` placeholders; undefined if it has a stray brace. */
export function parseSchema(schema: string): Schema | undefined {
  const out: (string | { key: string })[] = []
  const re = /\{(\w+)\}|([^{}]+)|([{}])/g
  for (let m = re.exec(schema); m; m = re.exec(schema)) {
    if (m[3] !== undefined) return undefined
    out.push(m[1] !== undefined ? { key: m[1] } : (m[2] as string))
  }
  return out
}

export function format(schema: Schema, id: Identifier): string {
  let s = ''
  for (const p of schema) s += typeof p === 'string' ? p : (id.get(p.key) ?? '')
  return s
}

/** How many identifiers the `<device>` element's attributes make. */
export function productSize(device: XmlElement): number {
  let n = 1
  for (const list of Object.values(device.attrs)) n *= list.split('|').length
  return n
}

/** The cartesian product of the `<device>` element's attribute values, first attribute outermost. */
export function product(device: XmlElement): Identifier[] {
  let ids: Map<string, string>[] = [new Map()]
  for (const [key, list] of Object.entries(device.attrs)) {
    const next: Map<string, string>[] = []
    for (const id of ids) for (const v of list.split('|')) next.push(new Map(id).set(key, v))
    ids = next
  }
  return ids
}

/** The `device-<key>` filters of one element: key → allowed values. */
export function filtersOf(el: XmlElement): [string, string[]][] {
  const out: [string, string[]][] = []
  for (const [k, v] of Object.entries(el.attrs)) if (k.startsWith('device-')) out.push([k.slice('device-'.length), v.split('|')])
  return out
}

export function matches(filters: readonly [string, string[]][], id: Identifier): boolean {
  for (const [key, values] of filters) {
    const v = id.get(key)
    if (v === undefined || !values.includes(v)) return false
  }
  return true
}
