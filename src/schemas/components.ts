import { Type, type TEnum, type TSchema, type TSchemaOptions } from 'typebox'
import type { VersionMarkers } from './versions.js'

/**
 * Every named schema (`$id`) is one OpenAPI component. The schemas nest each other directly, so
 * their static types compose; this module turns them into the two forms the service needs:
 * - `shared()`: one schema per `$id`, where nested named schemas become `$ref`s. Fastify gets them
 *   with addSchema (validation, fast-json-stringify) and @fastify/swagger emits them as
 *   `components/schemas`, so the served document references each once.
 * - `inline()`: the same schema with every `$ref` resolved, for MCP `outputSchema`s, which clients
 *   validate on their own without the document.
 */
export type Json = null | boolean | number | string | Json[] | { [k: string]: Json }

export const isNode = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v)

/** A JSON copy of a schema: drops TypeBox's symbol markers, keeps plain keywords. */
export const plain = (s: unknown): Json => JSON.parse(JSON.stringify(s)) as Json

function mapNodes(v: Json, f: (node: { [k: string]: Json }, root: boolean) => Json, root = true): Json {
  if (Array.isArray(v)) return v.map((x) => mapNodes(x, f, false))
  if (!isNode(v)) return v
  const out: { [k: string]: Json } = {}
  for (const [k, x] of Object.entries(v)) out[k] = mapNodes(x as Json, f, false)
  return f(out, root)
}

/** The schema as a component: nested named schemas replaced by `$ref`s to their `$id`. */
export function shared(schema: TSchema): Record<string, unknown> {
  // Children are mapped first, so a named child is already its `$ref` when its parent is seen.
  const done = mapNodes(plain(schema), (node, root) => (!root && typeof node.$id === 'string' ? { $ref: node.$id } : node))
  return done as Record<string, unknown>
}

/** A reference to a named schema, typed as the schema itself (for Static<> and route typing). */
export function ref<T extends TSchema>(schema: T): T {
  const id = (schema as { $id?: unknown }).$id
  if (typeof id !== 'string') throw new Error('ref() needs a schema with an $id')
  return { $ref: id } as unknown as T
}

/** The schema with every named part inlined and no `$id` left: self-contained JSON Schema. */
export function inline<T extends TSchema>(schema: T): T {
  return mapNodes(plain(schema), (node) => {
    if (typeof node.$id !== 'string') return node
    const { $id: _id, ...rest } = node
    return rest
  }) as unknown as T
}

/** Every named schema reachable from `roots` (each once, by `$id`), children before parents. */
export function namedSchemas(roots: readonly TSchema[]): TSchema[] {
  const byId = new Map<string, TSchema>()
  const visit = (v: unknown): void => {
    if (Array.isArray(v)) return v.forEach(visit)
    if (!isNode(v)) return
    for (const x of Object.values(v)) visit(x)
    const id = v.$id
    if (typeof id !== 'string') return
    const seen = byId.get(id)
    if (seen === undefined) byId.set(id, v as TSchema)
    else if (JSON.stringify(seen) !== JSON.stringify(v)) throw new Error(`two different schemas are named ${id}`)
  }
  roots.forEach(visit)
  return [...byId.values()]
}

/** An enum of strings that says it is one (`type: string`), so documents and generated types show it. */
export function StringEnum<Values extends string[]>(values: readonly [...Values], options: { description?: string; $id?: string } & VersionMarkers = {}): TEnum<Values> {
  return Type.Enum(values, { ...options, type: 'string' } as TSchemaOptions)
}

/** Keywords an outline keeps: the shape (types, members, enums), not the documentation or value constraints. */
const OUTLINE_KEYS = new Set(['type', 'properties', 'required', 'items', 'anyOf', 'enum', 'const'])

type Node = { [k: string]: Json }

/** The JSON type(s) a node admits, for a node outlined as its type alone. */
function jsonTypes(n: Node): string[] {
  if (typeof n.type === 'string') return [n.type]
  if (Array.isArray(n.type)) return n.type as string[]
  if (n.const !== undefined) return [typeof n.const]
  if (Array.isArray(n.anyOf)) return [...new Set((n.anyOf as Node[]).flatMap(jsonTypes))]
  return []
}
const bare = (types: string[]): Node => (types.length === 0 ? {} : { type: types.length === 1 ? types[0]! : types })

/** Object shapes as one: the members all of them have (an enum of their constants where those differ), required where all require it. */
function mergeObjects(alts: Node[]): Node {
  const props = alts.map((a) => (isNode(a.properties) ? (a.properties as Node) : {}))
  const members = Object.keys(props[0]!).filter((k) => props.every((p) => k in p))
  const properties: Node = {}
  for (const k of members) {
    const vs = props.map((p) => p[k] as Node)
    const texts = new Set(vs.map((v) => JSON.stringify(v)))
    const consts = vs.flatMap((v) => (v.const !== undefined ? [v.const] : Array.isArray(v.enum) ? v.enum : []))
    properties[k] =
      texts.size === 1 ? vs[0]! : vs.every((v) => v.const !== undefined || v.enum) ? { ...bare([...new Set(vs.flatMap(jsonTypes))]), enum: [...new Set(consts)] } : bare([...new Set(vs.flatMap(jsonTypes))])
  }
  const required = members.filter((k) => alts.every((a) => Array.isArray(a.required) && a.required.includes(k)))
  return { type: 'object', ...(required.length ? { required } : {}), properties }
}

const required = (n: Node, member: string) => Array.isArray(n.required) && n.required.includes(member)

function outlineNode(n: Json, depth: number, max: number): Json {
  if (!isNode(n)) return n
  if (depth > max) return bare(jsonTypes(n))
  if (Array.isArray(n.anyOf)) {
    const alts = n.anyOf.map((a) => outlineNode(a, depth, max) as Node)
    const objects = alts.filter((a) => a.type === 'object')
    const others = alts.filter((a) => a.type !== 'object')
    const shapes = objects.length > 1 ? [mergeObjects(objects), ...others] : alts
    if (shapes.length === 1) return shapes[0]!
    // `X or null` (or another bare type) as one node with a type list, when X has no enum to widen.
    const [main, ...rest] = [...shapes].sort((a, b) => Object.keys(b).length - Object.keys(a).length)
    if (main!.enum === undefined && main!.const === undefined && rest.every((r) => Object.keys(r).length === 1 && r.type !== undefined))
      return { ...main!, ...bare([...new Set([...jsonTypes(main!), ...rest.flatMap(jsonTypes)])]) }
    return { anyOf: shapes }
  }
  const out: Node = {}
  for (const [k, v] of Object.entries(n)) {
    if (!OUTLINE_KEYS.has(k)) continue
    // Below the top level, only the members every such object has: the others stay allowed (no additionalProperties).
    if (k === 'properties' && isNode(v))
      out[k] = Object.fromEntries(
        Object.entries(v)
          .filter(([p]) => depth === 0 || required(n, p))
          // An optional member of the top level: its JSON type alone (the body's schema in /openapi.json has the rest).
          .map(([p, x]) => [p, outlineNode(x as Json, required(n, p) ? depth + 1 : max + 1, max)])
      )
    else if (k === 'items') out[k] = outlineNode(v, depth, max)
    else out[k] = v
  }
  if (isNode(out.properties) && Object.keys(out.properties).length === 0) delete out.properties
  // The top level always names its members (the tool's body); below it, alike members are said once.
  return depth === 0 ? out : sameMembers(n, out)
}

/**
 * A closed object whose members are all required and alike (one per topic) as its required names
 * and one `additionalProperties`: the same bodies, each member's shape said once.
 */
function sameMembers(n: Node, out: Node): Node {
  const members = isNode(out.properties) ? Object.values(out.properties) : []
  const required = Array.isArray(n.required) ? n.required : []
  if (n.additionalProperties !== false || members.length < 2 || members.length !== Object.keys(n.properties as Node).length || required.length !== members.length) return out
  const shape = JSON.stringify(members[0])
  if (!members.every((m) => JSON.stringify(m) === shape)) return out
  const { properties: _, ...rest } = out
  return { ...rest, additionalProperties: members[0]! }
}

/**
 * The shape of a body, for an MCP tool's `outputSchema`, which every agent session pays for in
 * tools/list before it asks anything: each member with its JSON type (enums kept) and whether it
 * is required, and the members of the objects those hold, typed alike; deeper, the JSON type
 * alone. A union of object shapes becomes the members they all have. Descriptions and value
 * constraints stay in /openapi.json's components and the tool's description. Only ever looser than
 * `schema`, so every body valid against `schema` is valid against its outline.
 */
export function outline(schema: TSchema, depth = 1): Record<string, unknown> {
  return outlineNode(plain(inline(schema)), 0, depth) as Record<string, unknown>
}
