import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { generateKey } from '../src/auth/keys.js'
import { load, median, pinLoadGenerator, startServer, type LoadStats } from './lib.js'

export interface ServeStats {
  /** From spawning the server to its first 200 on /readyz (the promoted release open, its catalog indexed). */
  readyS: number
  /** The first /v1/parts/resolve after that: a lazy build would show here. */
  firstResolveMs: number
  resolveP99Ms: number
  contextP99Ms: number
  resolveRps: number
  contextRps: number
  serverRssMb: { afterLoad: number; peak: number }
}

const RESOLVE = '/v1/parts/resolve?q=STM32F407VG'
const CONTEXT = '/v1/context?part=STM32F407VGT6&topic=pins&limit=20'

/**
 * The service on each data dir's promoted release (context cache at its default), started
 * together; then resolve and context are loaded in turn, round after round, so the p99 of the
 * releases are compared within each round (the machine drifts over minutes).
 */
export async function benchServe(dataDirs: Record<string, string>, connections = 16, duration = 5, rounds = 3): Promise<Record<string, ServeStats>> {
  const { secret, record } = generateKey('bench')
  const scratch = mkdtempSync(join(tmpdir(), 'hwfacts-bench-serve-'))
  const keysFile = join(scratch, 'bench-keys.json')
  writeFileSync(keysFile, JSON.stringify({ keys: [{ ...record, rateLimit: { max: 1e9, timeWindowMs: 60_000 } }] }))
  const headers = { authorization: `Bearer ${secret}` }
  const pinning = pinLoadGenerator()
  const servers: Array<Awaited<ReturnType<typeof startServer>>> = []
  try {
    const started: Record<string, { srv: Awaited<ReturnType<typeof startServer>>; readyS: number; firstResolveMs: number }> = {}
    for (const [name, dataDir] of Object.entries(dataDirs)) {
      const t0 = performance.now()
      const srv = await startServer(join(import.meta.dirname, '..', 'src/server.ts'), {
        HWFACTS_DATA_DIR: dataDir,
        HWFACTS_API_KEYS_FILE: keysFile,
        ELASTICSEARCH_URL: '',
        OPENSEARCH_URL: '',
        REDIS_URL: '',
        PORT: '0',
        LOG_LEVEL: 'warn'
      })
      servers.push(srv)
      while ((await fetch(srv.url + '/readyz')).status !== 200) await new Promise((r) => setTimeout(r, 20))
      const readyS = (performance.now() - t0) / 1000
      const t1 = performance.now()
      const res = await fetch(srv.url + RESOLVE, { headers })
      const firstResolveMs = performance.now() - t1
      if (!res.ok) throw new Error(`${name}: ${RESOLVE} answered ${res.status}: ${await res.text()}`)
      started[name] = { srv, readyS: +readyS.toFixed(2), firstResolveMs: Math.round(firstResolveMs) }
    }
    const loads: Record<string, { resolve: LoadStats[]; context: LoadStats[] }> = {}
    for (let r = 0; r < rounds; r++)
      for (const [name, { srv }] of Object.entries(started)) {
        const l = (loads[name] ??= { resolve: [], context: [] })
        l.resolve.push(await load({ url: srv.url + RESOLVE, headers, connections, duration, serverPid: srv.proc.pid! }, r === 0 ? 2 : 1))
        l.context.push(await load({ url: srv.url + CONTEXT, headers, connections, duration, serverPid: srv.proc.pid! }, r === 0 ? 2 : 1))
      }
    return Object.fromEntries(
      Object.entries(started).map(([name, { srv, readyS, firstResolveMs }]) => {
        const l = loads[name]!
        const rss = srv.rssMb()
        return [
          name,
          {
            readyS,
            firstResolveMs,
            resolveP99Ms: median(l.resolve.map((x) => x.p99Ms)),
            contextP99Ms: median(l.context.map((x) => x.p99Ms)),
            resolveRps: Math.round(median(l.resolve.map((x) => x.rps))),
            contextRps: Math.round(median(l.context.map((x) => x.rps))),
            serverRssMb: { afterLoad: rss.rss, peak: rss.peak }
          }
        ]
      })
    )
  } finally {
    for (const s of servers) s.proc.kill()
    pinning.unpin()
    rmSync(scratch, { recursive: true, force: true })
  }
}
