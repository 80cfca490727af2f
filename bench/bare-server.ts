import { readFileSync } from 'node:fs'
import Fastify from 'fastify'

/**
 * The baseline: bare Fastify routes, nothing else. `/bare` answers a small JSON body; `/same`
 * answers the bytes of $BENCH_BODY_FILE, so a route can be compared with the floor for its own
 * response size.
 */
const same = process.env.BENCH_BODY_FILE ? readFileSync(process.env.BENCH_BODY_FILE, 'utf8') : '{}'
const app = Fastify({ logger: false })
app.get('/bare', async () => ({ status: 'ok', message: 'pong' }))
app.get('/same', (_req, reply) => reply.type('application/json; charset=utf-8').send(same))
const address = await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT ?? 0) })
process.stdout.write(`listening ${address}\n`)
