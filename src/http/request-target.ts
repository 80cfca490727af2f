import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { ServiceError } from '../service/errors.js'
import { MAX_URL_BYTES } from './problem.js'

/** The parameter taking the most bytes of a request target, as the client sent it: the one to shorten. */
function longestParameter(url: string): { name: string; bytes: number } | undefined {
  const q = url.indexOf('?')
  if (q === -1) return undefined
  let best: { name: string; bytes: number } | undefined
  for (const part of url.slice(q + 1).split('&')) {
    if (best && part.length <= best.bytes) continue
    const key = part.split('=', 1)[0]!
    let name: string
    try {
      name = decodeURIComponent(key)
    } catch {
      name = key
    }
    best = { name, bytes: part.length }
  }
  return best
}

/**
 * What Node's parser lets through but the service does not serve, refused first as Problems: a
 * request target over 8 KiB (Node only bounds the whole head, at 16 KiB), and a request without
 * `Host` (HTTP/1.1 requires one; Node's own check, turned off in the app, answers a bare 400).
 */
export default fp(
  async function requestTarget(app: FastifyInstance) {
    app.addHook('onRequest', (req, _reply, done) => {
      // Node's request target is latin1 text of the raw bytes: its length is the byte count.
      const url = req.raw.url ?? ''
      if (url.length > MAX_URL_BYTES) {
        const longest = longestParameter(url)
        return done(
          new ServiceError(
            'URI_TOO_LONG',
            `The request target is ${url.length} bytes; at most ${MAX_URL_BYTES} are accepted${longest ? ` (the longest parameter, "${longest.name}", takes ${longest.bytes})` : ''}.`,
            longest?.name ?? null
          )
        )
      }
      if (req.headers.host === undefined && req.raw.httpVersionMajor === 1 && req.raw.httpVersionMinor >= 1)
        return done(new ServiceError('MALFORMED_REQUEST', 'An HTTP/1.1 request must have a Host header.', 'Host'))
      done()
    })
  },
  { name: 'request-target' }
)
