import { ALL_TOPICS, type Topic } from '../model/fact.js'
import { CONTRACT_VERSIONS, reaches, SEED_VERSION, VERSION_TOPICS, type ContractVersion } from '../model/versions.js'
import { isNode, plain, type Json } from './components.js'

/**
 * One set of schemas serves every contract version; markers say what a later version adds, and
 * `forVersion` gives a schema, or a whole OpenAPI document, as one version has it:
 * - `x-since: {name: version}` on an object or an enum: the members or values added then, left
 *   out before it. Runtime schemas keep them all (optional), so they serve every version.
 * - `x-required-since: {name: version}`: those added members are required from then on (one
 *   member per topic is always there in that version's answers).
 * - `x-since: version` on a node that exists from then on: an operation of /openapi.json, or a
 *   named schema (a component, e.g. a fact of a later topic; `$ref`s to it go with it, so use it
 *   as an alternative of a union).
 * - `x-contract-version` on the string that is the version itself: `enum: [v]` in version v.
 */
export const SINCE = 'x-since'
export const REQUIRED_SINCE = 'x-required-since'
export const CONTRACT_VERSION_KEYWORD = 'x-contract-version'
/** The markers, as annotation keywords for a validator that refuses unknown ones (Ajv's strict mode). */
export const VERSION_KEYWORDS = [SINCE, REQUIRED_SINCE, CONTRACT_VERSION_KEYWORD]

export type VersionMarkers = { [SINCE]?: Record<string, ContractVersion> | ContractVersion; [REQUIRED_SINCE]?: Record<string, ContractVersion>; [CONTRACT_VERSION_KEYWORD]?: true }

/** The version each name first appears in, for the names an earlier version lacks. */
function sinceMap(names: readonly string[], offers: (v: ContractVersion, name: string) => boolean): Record<string, ContractVersion> {
  const out: Record<string, ContractVersion> = {}
  for (const n of names) {
    const first = CONTRACT_VERSIONS.find((v) => offers(v, n))!
    if (first !== SEED_VERSION) out[n] = first
  }
  return out
}

export const TOPICS_SINCE = sinceMap(ALL_TOPICS, (v, t) => VERSION_TOPICS[v].includes(t as Topic))
export const VERSIONS_SINCE = sinceMap(CONTRACT_VERSIONS, (v, name) => v === name)

type Node = { [k: string]: Json }
const later = (since: unknown, v: ContractVersion) => new Set(isNode(since) ? Object.keys(since).filter((k) => !reaches(v, since[k] as ContractVersion)) : [])

/** An object's or enum's markers applied for version `v`. */
function membersFor(node: Node, n: Node, v: ContractVersion): Node {
  const gone = later(n[SINCE], v)
  if (Array.isArray(node.enum)) node.enum = node.enum.filter((x) => !gone.has(String(x)))
  if (isNode(node.properties)) {
    const properties = Object.fromEntries(Object.entries(node.properties).filter(([k]) => !gone.has(k)))
    const added = isNode(n[REQUIRED_SINCE]) ? Object.keys(n[REQUIRED_SINCE]).filter((k) => !later(n[REQUIRED_SINCE], v).has(k)) : []
    const required = new Set([...(Array.isArray(node.required) ? (node.required as string[]) : []), ...added])
    node.properties = properties
    // In the order of the members, as TypeBox writes `required`.
    const list = Object.keys(properties).filter((k) => required.has(k))
    if (list.length) node.required = list
  }
  return node
}

const absent = (n: Node, v: ContractVersion) => typeof n[SINCE] === 'string' && !reaches(v, n[SINCE] as ContractVersion)

/** `gone`: the `$ref`s of the components the version lacks. */
function versionNode(n: Json, v: ContractVersion, gone: ReadonlySet<string>): Json | undefined {
  if (Array.isArray(n)) return n.map((x) => versionNode(x, v, gone)).filter((x): x is Json => x !== undefined)
  if (!isNode(n)) return n
  if (absent(n, v) || (typeof n.$ref === 'string' && gone.has(n.$ref))) return undefined
  const since = n[SINCE]
  const out: Node = {}
  for (const [k, x] of Object.entries(n)) {
    if (VERSION_KEYWORDS.includes(k)) continue
    const y = versionNode(x as Json, v, gone)
    if (y !== undefined) out[k] = y
  }
  if (n[CONTRACT_VERSION_KEYWORD] === true) out.enum = [v]
  return isNode(since) ? membersFor(out, n as Node, v) : out
}

/** A schema or an OpenAPI document as contract version `v` has it, without any marker. */
export function forVersion<T>(schema: T, v: ContractVersion): T {
  const json = plain(schema)
  const components = isNode(json) && isNode(json.components) && isNode(json.components.schemas) ? json.components.schemas : {}
  const gone = new Set(Object.keys(components).flatMap((k) => (isNode(components[k]) && absent(components[k] as Node, v) ? [`#/components/schemas/${k}`] : [])))
  return versionNode(json, v, gone) as T
}
