import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { ServiceError } from '../service/errors.js'

/** A decimal integer as a person writes one: no sign but `-`, no spaces, no hex, exponent or fraction. */
const DECIMAL = /^-?[0-9]{1,15}$/
/** A decimal number likewise, with an optional fraction (`3.3`, `-40`). */
const DECIMAL_NUMBER = /^-?[0-9]{1,15}(?:\.[0-9]{1,15})?$/
const FORMS = { integer: { pattern: DECIMAL, what: 'a decimal integer (digits only)' }, number: { pattern: DECIMAL_NUMBER, what: 'a decimal number (digits, optionally a point and digits)' } }

/**
 * Ajv coerces query strings to numbers with `Number()`, which takes `0x10`, `1e1`, `+5`, ` 5` and
 * an empty string. An integer or number parameter must be written in decimal; everything else is
 * INVALID_PARAMETER naming it. Runs before validation, on the raw strings.
 */
export default fp(
  async function strictIntegers(app: FastifyInstance) {
    const numericParams = new Map<string, Array<[string, keyof typeof FORMS]>>()
    app.addHook('onRoute', (r) => {
      const qs = (r.schema as { querystring?: { properties?: Record<string, { type?: unknown }> } } | undefined)?.querystring
      const names = Object.entries(qs?.properties ?? {}).flatMap(([n, s]) => (s.type === 'integer' || s.type === 'number' ? [[n, s.type] as [string, keyof typeof FORMS]] : []))
      if (names.length > 0) numericParams.set(r.url, names)
    })
    app.addHook('preValidation', (req, _reply, done) => {
      const names = req.routeOptions.url === undefined ? undefined : numericParams.get(req.routeOptions.url)
      if (!names) return done()
      const q = req.query as Record<string, unknown>
      for (const [n, type] of names) {
        const v = q[n]
        if (v === undefined) continue
        if (typeof v !== 'string' || !FORMS[type].pattern.test(v)) return done(new ServiceError('INVALID_PARAMETER', `Parameter "${n}" must be ${FORMS[type].what}.`, n))
      }
      done()
    })
  },
  { name: 'strict-integers' }
)
