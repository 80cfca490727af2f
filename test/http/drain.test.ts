import { Agent, request } from 'node:http'
import { connect } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../../src/http/app.js'
import { drainAndClose, LINGER_MS, QUIET_MS, QUIET_WAIT_MAX_MS } from '../../src/http/drain.js'
import { ApiKeyStore } from '../../src/auth/keys.js'
import { HardwareFacts } from '../../src/service/facts.js'
import { SqliteRepository } from '../../src/store/sqlite/store.js'
import { corpusDataDir } from '../helpers/corpus-release.js'

/** Item 7 of issue 29: no connection is reset when the listener closes after a SIGTERM drain. */
let repo: SqliteRepository
beforeAll(async () => {
  repo = new SqliteRepository(await corpusDataDir())
})
afterAll(async () => repo?.close())

/** The app listening, and when its listening socket closed (ms after `t0`), polled every 5 ms. */
async function listening() {
  const app = await buildApp({ facts: new HardwareFacts(repo, 'x'.repeat(32)), keys: new ApiKeyStore([]) })
  const port = Number(new URL(await app.listen({ port: 0, host: '127.0.0.1' })).port)
  const closedAt = (t0: number) =>
    new Promise<number>((resolve) => {
      const poll = setInterval(() => !app.server.listening && (clearInterval(poll), resolve(performance.now() - t0)), 5)
    })
  return { app, port, closedAt }
}

describe('7: closing after a drain resets no connection', () => {
  it('clients still connecting after the drain (a load balancer that polls /readyz slower than the drain) are answered, never reset', async () => {
    const { app, port } = await listening()
    const fresh = new Agent({ keepAlive: false })
    const pool = new Agent({ keepAlive: true, maxSockets: 8 })
    const outcomes = { ok: 0, refused: 0, failed: [] as string[] }
    let stop = false
    const once = (agent: Agent) =>
      new Promise<void>((resolve) => {
        const req = request({ host: '127.0.0.1', port, path: '/ping', agent }, (res) => {
          res.resume()
          res.on('end', () => {
            if (res.statusCode === 200) outcomes.ok++
            else outcomes.failed.push(String(res.statusCode))
            resolve()
          })
          res.on('error', (e: NodeJS.ErrnoException) => (outcomes.failed.push(e.code ?? e.message), resolve()))
        })
        req.on('error', (e: NodeJS.ErrnoException) => {
          if (e.code === 'ECONNREFUSED') {
            outcomes.refused++
            stop = true
          } else outcomes.failed.push(e.code ?? e.message)
          resolve()
        })
        req.end()
      })
    const workers = [...Array.from({ length: 8 }, () => fresh), ...Array.from({ length: 8 }, () => pool)].map(async (agent) => {
      while (!stop) await once(agent)
    })
    // The balancer polls /readyz every 300 ms and stops sending once it says 503; the drain is 100 ms,
    // so for up to 200 ms after it, new connections keep coming.
    const poller = (async () => {
      while (!stop) {
        await new Promise((r) => setTimeout(r, 300))
        const status = await new Promise<number>((resolve) =>
          request({ host: '127.0.0.1', port, path: '/readyz', agent: fresh }, (res) => (res.resume(), resolve(res.statusCode!))).on('error', () => resolve(0)).end()
        )
        if (status !== 200) stop = true
      }
    })()
    await new Promise((r) => setTimeout(r, 200))
    await drainAndClose(app, 100)
    await Promise.race([Promise.all([...workers, poller]), new Promise((r) => setTimeout(r, 3000))])
    stop = true
    fresh.destroy()
    pool.destroy()
    expect(outcomes.ok).toBeGreaterThan(20)
    expect(outcomes.failed).toEqual([])
  })
})

describe('when the listener closes after a drain', () => {
  it('no client connecting: QUIET_MS after the drain, long before QUIET_WAIT_MAX_MS', async () => {
    const { app, closedAt } = await listening()
    const t0 = performance.now()
    const closed = closedAt(t0)
    await drainAndClose(app, 10)
    const total = performance.now() - t0
    expect(await closed).toBeGreaterThanOrEqual(10 + QUIET_MS - 5)
    expect(await closed).toBeLessThan(QUIET_WAIT_MAX_MS)
    // Then the accepted connections linger before the app closes.
    expect(total).toBeGreaterThanOrEqual((await closed) + LINGER_MS - 5)
  })

  it('clients still connecting: kept open while they do, closed at QUIET_WAIT_MAX_MS at the latest', { retry: 2 }, async () => {
    const { app, port, closedAt } = await listening()
    let stop = false
    // A new connection every 40 ms, until the listener refuses one.
    const clients = (async () => {
      while (!stop) {
        await new Promise<void>((resolve) => {
          const s = connect(port, '127.0.0.1')
          s.on('connect', () => (s.destroy(), resolve()))
          s.on('error', () => ((stop = true), resolve()))
        })
        await new Promise((r) => setTimeout(r, 40))
      }
    })()
    const t0 = performance.now()
    const closed = closedAt(t0)
    await drainAndClose(app, 10)
    stop = true
    await clients
    expect(await closed).toBeGreaterThanOrEqual(10 + QUIET_WAIT_MAX_MS - 50)
    expect(await closed).toBeLessThan(10 + QUIET_WAIT_MAX_MS + QUIET_MS + 100)
  })
})
