/**
 * Server RSS under many query shapes (issue 29, item 2): every text query with another filter is a
 * prepared statement per shard and shape (term count, name count), so a client that varies them
 * makes thousands. Starts the service (src/server.ts) over the promoted release of --data-dir on
 * 127.0.0.1, sends --requests context queries of random shapes, --concurrency at a time, and
 * samples the server's RSS every second.
 *
 *   npx tsx bench/query-shapes.ts --data-dir D [--requests 6000] [--concurrency 8]
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { generateKey } from '../src/auth/keys.js'
import { machine, startServer } from './lib.js'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
const arg = (name: string) => {
  const i = process.argv.indexOf(name)
  return i === -1 ? undefined : process.argv[i + 1]
}
const dataDir = resolve(arg('--data-dir') ?? '')
const REQUESTS = Number(arg('--requests') ?? 6000)
const CONCURRENCY = Number(arg('--concurrency') ?? 8)

// A seeded generator: the same shapes every run.
let seed = 29
const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n)
const WORDS = ['usart', 'clock', 'enable', 'gpio', 'timer', 'dma', 'reset', 'flag', 'status', 'control', 'interrupt', 'mode', 'data', 'register', 'channel', 'power', 'cr1', 'cr2', 'sr', 'dr', 'brr', 'moder', 'odr', 'idr']

/**
 * A context query of a random shape: 1 to 16 distinct terms (the most a query uses), a peripheral
 * filter (so the ranked SQL path is taken), 0 to 100 names and 0 to 100 prefixes (the
 * limits of 100 each): each count of each is another statement, 16 × 101 × 101 shapes per shard.
 */
function path(): string {
  const terms = WORDS.slice(0, 1 + rnd(16)).join(' ')
  const names = Array.from({ length: rnd(101) }, (_, i) => `R${i}`).join(',')
  const q = new URLSearchParams({ part: ['STM32F407VG', 'STM32L476RG', 'STM32F103C8'][rnd(3)]!, topic: 'registers', query: terms.slice(0, 2000), peripheral: 'USART1', limit: '5' })
  if (names) q.set('fact_names', names)
  const prefixes = Array.from({ length: rnd(101) }, (_, i) => `P${i}.`).join(',')
  if (prefixes) q.set('fact_name_prefixes', prefixes)
  return `/v1/context?${q}`
}

const scratch = mkdtempSync(join(tmpdir(), 'hwfacts-shapes-'))
const key = generateKey('shapes', ['facts:read'], ['*'])
const keysFile = join(scratch, 'keys.json')
writeFileSync(keysFile, JSON.stringify({ keys: [{ ...key.record, rateLimit: { max: 1e9, timeWindowMs: 60_000 } }] }))
const server = await startServer(join(ROOT, 'src/server.ts'), {
  HWFACTS_DATA_DIR: dataDir,
  HWFACTS_API_KEYS_FILE: keysFile,
  REDIS_URL: '',
  ELASTICSEARCH_URL: '',
  OPENSEARCH_URL: '',
  PORT: '0',
  LOG_LEVEL: 'warn',
  HWFACTS_DRAIN_MS: '0',
  // Not the data directory's own file: the release directory is only read.
  HWFACTS_CURSOR_SECRET: randomBytes(32).toString('hex')
})
const samples: number[] = []
const sampler = setInterval(() => samples.push(server.rssMb().rss), 1000)
const statuses: Record<string, number> = {}
const t0 = performance.now()
try {
  let sent = 0
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (sent < REQUESTS) {
        sent++
        const res = await fetch(server.url + path(), { headers: { authorization: `Bearer ${key.secret}` } })
        await res.arrayBuffer()
        statuses[res.status] = (statuses[res.status] ?? 0) + 1
      }
    })
  )
} finally {
  clearInterval(sampler)
  samples.push(server.rssMb().rss)
  const peak = server.rssMb().peak
  server.proc.kill('SIGTERM')
  rmSync(scratch, { recursive: true, force: true })
  const third = Math.max(1, Math.floor(samples.length / 3))
  const mean = (xs: number[]) => Math.round(xs.reduce((a, b) => a + b, 0) / xs.length)
  process.stdout.write(
    JSON.stringify(
      {
        machine: machine(),
        requests: REQUESTS,
        seconds: Math.round((performance.now() - t0) / 1000),
        statuses,
        rssMb: { first: samples[0], min: Math.min(...samples), max: Math.max(...samples), peakVmHWM: peak, meanFirstThird: mean(samples.slice(0, third)), meanLastThird: mean(samples.slice(-third)), last: samples.at(-1) },
        samples: samples.join(' ')
      },
      null,
      2
    ) + '\n'
  )
}
