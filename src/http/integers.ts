import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { ServiceError } from '../service/errors.js'

/** A decimal integer as a person writes one: no sign but `-`, no spaces, no hex, exponent or fraction. */
const DECIMAL = /^-?[0-9]{1,15}$/

/**
 * Ajv coerces query strings to integers with `Number()`, which takes `0x10`, `1e1`, `+5` and ` 5`.
 * An integer parameter must be written as decimal digits; everything else is INVALID_PARAMETER
 * naming it. Runs before validation, on the raw strings.
 */
export default fp(
  async function strictIntegers(app: FastifyInstance) {
    const integerParams = new Map<string, string[]>()
    app.addHook('onRoute', (r) => {
      const qs = (r.schema as { querystring?: { properties?: Record<string, { type?: unknown }> } } | undefined)?.querystring
      const names = Object.entries(qs?.properties ?? {})
        .filter(([, s]) => s.type === 'integer')
        .map(([n]) => n)
      if (names.length > 0) integerParams.set(r.url, names)
    })
    app.addHook('preValidation', (req, _reply, done) => {
      const names = req.routeOptions.url === undefined ? undefined : integerParams.get(req.routeOptions.url)
      if (!names) return done()
      const q = req.query as Record<string, unknown>
      for (const n of names) {
        const v = q[n]
        if (v === undefined) continue
        if (typeof v !== 'string' || !DECIMAL.test(v))
          return done(new ServiceError('INVALID_PARAMETER', `Parameter "${n}" must be a decimal integer (digits only).`, n))
      }
      done()
    })
  },
  { name: 'strict-integers' }
)
