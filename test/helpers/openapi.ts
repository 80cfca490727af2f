import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify'
import { expect } from 'vitest'

type Doc = { paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: object }> }> }>> }

/**
 * Checks every response a test sees against the response schema the served /openapi.json
 * declares for its path, method, status and media type.
 */
export class ContractChecker {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true })
  private readonly cache = new Map<string, ValidateFunction>()
  checked = 0

  constructor(readonly doc: Doc) {
    ;(addFormats as unknown as (a: Ajv2020) => void)(this.ajv)
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
      validate = this.ajv.compile(media!.schema)
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
