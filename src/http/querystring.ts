import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { ServiceError } from '../service/errors.js'

/** What made a query string unacceptable, kept on the parsed object (a symbol: schemas never see it). */
const FLAW = Symbol('query flaw')
type Flaw = { code: 'MALFORMED_REQUEST' | 'INVALID_PARAMETER'; detail: string; param: string }
type Parsed = Record<string, string> & { [FLAW]?: Flaw }

function decode(s: string): string | undefined {
  try {
    return decodeURIComponent(s.replaceAll('+', ' '))
  } catch {
    return undefined
  }
}

/**
 * The router's query-string parser: like the default one, but a malformed percent-escape
 * (`%ZZ`), a NUL byte (`%00`) or a parameter given twice is not taken as text or turned into an
 * array; it is noted, and answered as a Problem naming the parameter by the hook below. It must not
 * throw: the router calls it outside any request's error handling.
 */
export function parseQuery(qs: string): Parsed {
  const out = Object.create(null) as Parsed
  const flaw = (f: Flaw) => (out[FLAW] ??= f)
  for (const part of qs.split('&')) {
    if (part === '') continue
    const eq = part.indexOf('=')
    const rawKey = eq === -1 ? part : part.slice(0, eq)
    const key = decode(rawKey)
    const value = decode(eq === -1 ? '' : part.slice(eq + 1))
    const name = key ?? rawKey
    if (key === undefined || value === undefined) flaw({ code: 'MALFORMED_REQUEST', detail: `Parameter "${name}" has a malformed percent-escape.`, param: name })
    else if (key.includes('\0') || value.includes('\0')) flaw({ code: 'MALFORMED_REQUEST', detail: `Parameter "${name}" contains a NUL byte.`, param: name })
    else if (Object.hasOwn(out, key)) flaw({ code: 'INVALID_PARAMETER', detail: `Parameter "${key}" is given twice; give it once.`, param: key })
    else out[key] = value
  }
  return out
}

/** Answers a flawed query string (parseQuery) before anything reads it. */
export default fp(
  async function strictQuery(app: FastifyInstance) {
    app.addHook('onRequest', (req, _reply, done) => {
      const f = (req.query as Parsed | undefined)?.[FLAW]
      if (!f) return done()
      // A parameter the route does not define is unknown, however often it is given: validation says so.
      const defined = (req.routeOptions.schema?.querystring as { properties?: Record<string, unknown> } | undefined)?.properties
      if (f.code === 'INVALID_PARAMETER' && !(defined && Object.hasOwn(defined, f.param))) return done()
      done(new ServiceError(f.code, f.detail, f.param))
    })
  },
  { name: 'strict-query' }
)
