import { Type, type TEnum, type TSchema, type TSchemaOptions } from 'typebox'

/**
 * Every named schema (`$id`) is one OpenAPI component. The schemas nest each other directly, so
 * their static types compose; this module turns them into the two forms the service needs:
 * - `shared()`: one schema per `$id`, where nested named schemas become `$ref`s. Fastify gets them
 *   with addSchema (validation, fast-json-stringify) and @fastify/swagger emits them as
 *   `components/schemas`, so the served document references each once.
 * - `inline()`: the same schema with every `$ref` resolved, for MCP `outputSchema`s, which clients
 *   validate on their own without the document.
 */
type Json = null | boolean | number | string | Json[] | { [k: string]: Json }

const isNode = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v)

/** A JSON copy of a schema: drops TypeBox's symbol markers, keeps plain keywords. */
const plain = (s: unknown): Json => JSON.parse(JSON.stringify(s)) as Json

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
export function StringEnum<Values extends string[]>(values: readonly [...Values], options: { description?: string; $id?: string } = {}): TEnum<Values> {
  return Type.Enum(values, { ...options, type: 'string' } as TSchemaOptions)
}
