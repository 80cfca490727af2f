import net from 'node:net'
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
 * How long connections stay open after the listener stops accepting: a client that connected just
 * before has its request on the way; it is answered (with Connection: close) rather than reset.
 */
export const LINGER_MS = 500
/** After the drain, the listener closes once no connection has arrived for this long ... */
export const QUIET_MS = 250
/** ... or this long after the drain at the latest. */
export const QUIET_WAIT_MAX_MS = 2_000

/** Resolves once `server` has accepted no connection for QUIET_MS, or after QUIET_WAIT_MAX_MS. */
async function quiet(server: net.Server): Promise<void> {
  let last = performance.now()
  const seen = () => (last = performance.now())
  server.on('connection', seen)
  const deadline = last + QUIET_WAIT_MAX_MS
  while (performance.now() - last < QUIET_MS && performance.now() < deadline) await sleep(Math.min(QUIET_MS, deadline - performance.now()))
  server.off('connection', seen)
}

/**
 * A graceful stop (SIGTERM): /readyz turns 503 so the load balancer stops sending new requests,
 * requests keep being answered for `drainMs`, each with `Connection: close` so kept-alive clients
 * reconnect elsewhere instead of being reset. Connections waiting in the kernel's accept queue are
 * reset when the listening socket closes, so it closes once clients have stopped connecting (a
 * quiet QUIET_MS, at most QUIET_WAIT_MAX_MS), in the event loop's check phase, right after libuv
 * accepted what was waiting. The connections it accepted stay open for LINGER_MS (Node's http close,
 * Fastify's, would destroy at once every one without a request in progress, also one whose request
 * is on the wire); then the idle ones are closed and the requests still in flight finish.
 */
export async function drainAndClose(app: FastifyInstance, drainMs: number): Promise<void> {
  app.draining = true
  if (drainMs > 0) await sleep(drainMs)
  if (!app.server.listening) return app.close()
  if (drainMs > 0) await quiet(app.server)
  await new Promise((resolve) => setImmediate(resolve))
  // net.Server's own close stops accepting without touching open connections (http.Server's closes
  // idle ones); its callback runs once every connection has ended.
  const ended = new Promise<void>((resolve) => net.Server.prototype.close.call(app.server, () => resolve()))
  await sleep(LINGER_MS)
  await app.close()
  await ended
}
