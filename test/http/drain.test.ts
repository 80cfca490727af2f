import { Agent, request } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../../src/http/app.js'
import { drainAndClose } from '../../src/http/drain.js'
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

describe('7: closing after a drain resets no connection', () => {
  it('clients still connecting after the drain (a load balancer that polls /readyz slower than the drain) are answered, never reset', async () => {
    const app = await buildApp({ facts: new HardwareFacts(repo, 'x'.repeat(32)), keys: new ApiKeyStore([]) })
    const port = Number(new URL(await app.listen({ port: 0, host: '127.0.0.1' })).port)
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
