import { readFileSync } from 'node:fs'
import Fastify from 'fastify'
import { ApiKeyStore } from '../src/auth/keys.js'
import auth from '../src/http/auth.js'
import { rateLimits } from '../src/http/rate-limit.js'

/**
 * The baseline: bare Fastify routes, nothing else. `/bare` answers a small JSON body; `/same`
 * answers the bytes of $BENCH_BODY_FILE, so a route can be compared with the floor for its own
 * response size. With $BENCH_KEYS_FILE, every route first does what the service does before its
 * handlers: the bearer check against that keys file (the service's auth plugin) and the
 * service's rate limiter, with the service's default budget.
 */
const same = process.env.BENCH_BODY_FILE ? readFileSync(process.env.BENCH_BODY_FILE, 'utf8') : '{}'
const app = Fastify({ logger: false })
if (process.env.BENCH_KEYS_FILE) {
  await app.register(auth, { keys: ApiKeyStore.fromFile(process.env.BENCH_KEYS_FILE), failures: { max: 30, timeWindowMs: 60_000 } })
  await rateLimits(app, {})
}
const config = { scope: 'facts:read' as const }
app.get('/bare', { config }, async () => ({ status: 'ok', message: 'pong' }))
app.get('/same', { config }, (_req, reply) => reply.type('application/json; charset=utf-8').send(same))
const address = await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT ?? 0) })
process.stdout.write(`listening ${address}\n`)
