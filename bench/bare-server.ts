import Fastify from 'fastify'

/** The baseline: a bare Fastify route answering a small JSON body, nothing else. */
const app = Fastify({ logger: false })
app.get('/bare', async () => ({ status: 'ok', message: 'pong' }))
const address = await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT ?? 0) })
process.stdout.write(`listening ${address}\n`)
