import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify'
import { expect } from 'vitest'

type Doc = {
  paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: object }> }> }>>
  components?: { schemas?: Record<string, unknown> }
}

/** Open objects that describe their members are checked as closed: what we serve is exactly what we declare. */
function closeDeclared(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(closeDeclared)
  if (v === null || typeof v !== 'object') return v
  const o = Object.fromEntries(Object.entries(v).map(([k, x]) => [k, closeDeclared(x)])) as Record<string, unknown>
  if (o.additionalProperties === true && o.properties && Object.keys(o.properties).length > 0) o.additionalProperties = false
  return o
}

/**
 * Checks every response a test sees against the response schema the served /openapi.json
 * declares for its path, method, status and media type, resolving its `$ref`s to the document's
 * components. With `strict`, top-level members the spec allows but the document does not
 * declare fail the check too (the OpenAPI document itself excepted).
 */
export class ContractChecker {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true })
  private readonly cache = new Map<string, ValidateFunction>()
  checked = 0

  private readonly components: { schemas: Record<string, unknown> }

  constructor(
    readonly doc: Doc,
    strict = true
  ) {
    ;(addFormats as unknown as (a: Ajv2020) => void)(this.ajv)
    const schemas = { ...(doc.components?.schemas ?? {}) }
    if (strict) for (const [k, v] of Object.entries(schemas)) if (k !== 'OpenApiDocument') schemas[k] = closeDeclared(v)
    this.components = { schemas }
  }

  /** A validator for one schema of the document, `$ref`s resolved against its components. */
  compile(schema: object): ValidateFunction {
    return this.ajv.compile({ ...schema, components: this.components })
  }

  private template(path: string): string | undefined {
    for (const t of Object.keys(this.doc.paths)) {
      const re = new RegExp('^' + t.replace(/\{[^}]+\}/g, '[^/]+') + '$')
      if (re.test(path)) return t
    }
    return undefined
  }

  check(method: string, url: string, res: LightMyRequestResponse): void {
    const path = url.split('?')[0]!
    const t = this.template(path)
    if (!t) return // unknown routes: their 404 Problem is checked by the tests themselves
    const op = this.doc.paths[t]![method.toLowerCase()]
    if (!op) return // 405 twins are not documented operations
    const declared = op.responses[String(res.statusCode)]
    expect(declared, `${method} ${t} documents status ${res.statusCode}`).toBeDefined()
    const type = String(res.headers['content-type'] ?? '').split(';')[0]!
    const media = declared!.content?.[type]
    expect(media, `${method} ${t} ${res.statusCode} documents ${type}`).toBeDefined()
    const key = `${method} ${t} ${res.statusCode} ${type}`
    let validate = this.cache.get(key)
    if (!validate) {
      validate = this.compile(media!.schema)
      this.cache.set(key, validate)
    }
    const ok = validate(res.json())
    expect(ok, `${key}: ${JSON.stringify(validate.errors)}`).toBe(true)
    this.checked++
  }

  /** app.inject, with the response checked against the contract. */
  async call(app: FastifyInstance, opts: InjectOptions & { url: string }): Promise<LightMyRequestResponse> {
    const res = await app.inject(opts)
    this.check(opts.method ?? 'GET', opts.url, res)
    return res
  }
}
