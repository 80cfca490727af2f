import { setTimeout as sleep } from 'node:timers/promises'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'

declare module 'fastify' {
  interface FastifyInstance {
    /** Shutting down: /readyz answers 503 and every response closes its connection. */
    draining: boolean
  }
}

/** The draining flag, and `Connection: close` on every response once it is set. */
export default fp(
  async function drain(app: FastifyInstance) {
    app.decorate('draining', false)
    app.addHook('onSend', (_req, reply, payload, done) => {
      if (app.draining) reply.header('connection', 'close')
      done(null, payload)
    })
  },
  { name: 'drain' }
)

/**
 * A graceful stop (SIGTERM): /readyz turns 503 so the load balancer stops sending new requests,
 * requests keep being answered for `drainMs`, each with `Connection: close` so kept-alive clients
 * reconnect elsewhere instead of being reset; then the listener closes, idle connections are
 * closed and the requests still in flight finish (Fastify's close).
 */
export async function drainAndClose(app: FastifyInstance, drainMs: number): Promise<void> {
  app.draining = true
  if (drainMs > 0) await sleep(drainMs)
  await app.close()
}
