import { createHash } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import os, { tmpdir } from 'node:os'
import { join } from 'node:path'
import { LRUCache } from 'lru-cache'
import { generateKey } from '../src/auth/keys.js'
import { HardwareFacts } from '../src/service/facts.js'
import { SqliteRepository } from '../src/store/sqlite/store.js'
import { rng } from '../test/store/model.js'
import type { Baseline } from './baseline.js'
import { load, median, PathCycle, pinLoadGenerator, startServer, type LoadStats } from './lib.js'
import { generateMix, MIX_KINDS, MIX_SHARES, type MixKind, type MixRequest } from './mix-requests.js'

/**
 * Issue 17's realistic traffic: ≥ 9,000 distinct requests over ≥ 250 parts in an agent's
 * proportions (bench/mix-requests.ts), against this code (answer cache on and off), a baseline
 * build of another commit (on and off), the same code on the wide release, a bare Fastify route,
 * and a bare route doing the service's bearer check and rate limiting. Every server is started
 * first, pinned to the last core (autocannon on the others); then each is loaded in turn, round
 * after round, and each ratio is taken between loads of the same round.
 *
 * Cache off plays every distinct request once per cycle, in a seeded shuffled order: first-time
 * answers. Cache on plays the repeats of real traffic: a Zipf(1) popularity over the same
 * distinct requests (the request of popularity rank k is drawn with probability ∝ 1/k; the ranks
 * are a seeded shuffle), the same draws for every contender. An LRU over a cycle longer than the
 * cache would hit nothing, which is no one's traffic.
 */
export interface MixOptions {
  /** Data dir whose promoted release is the core corpus's, built by this code's indexer. */
  coreDataDir: string
  /** The wide corpus's release, built by this code's indexer. */
  wideDataDir?: string
  baseline?: Baseline
  connections?: number
  durationS?: number
  rounds?: number
  /** Requests generated before the contenders are asked which they serve (the survivors keep the shares). */
  generate?: number
  /** Writes the sha256 of every answer this code gives on the core release, one `sha256 path` line each. */
  digestsOut?: string
  /** Compares every answer this code gives on the core release with such a file. */
  digestsCheck?: string
  log?: (s: string) => void
}

type ContenderName = 'currentOn' | 'currentOff' | 'baselineOn' | 'baselineOff' | 'wideOn' | 'wideOff' | 'bare' | 'bareAuth'

interface Range {
  median: number
  min: number
  max: number
}

interface ContenderStats {
  rps: Range
  serverCpuUsPerRequest: Range
  p50Ms: Range
  p99Ms: Range
  /** The cache-on sequence replayed through an LRU of the server's size over the routes it caches. */
  hitRatio?: number
  /** The server process after every round, and its peak (VmHWM) over the run. */
  serverRssMb: { afterLoad: number; peak: number }
  rounds: LoadStats[]
}

export interface MixBenchResult {
  connections: number
  durationS: number
  rounds: number
  cpus: string
  cacheOn: string
  requests: { distinct: number; parts: number; byKind: Record<MixKind, { count: number; meanBytes: number }>; droppedByPreflight: number }
  contenders: Partial<Record<ContenderName, ContenderStats>>
  /** Per-round ratios, median with the lowest and highest round. */
  ratios: Record<string, Range>
  digests?: { written?: string; checked?: { file: string; same: number; differ: number; missing: number; examples: string[] } }
  loadAverage: { before: number[]; after: number[] }
}

const SEQUENCE = 200_000
const CACHE_MB = 16
/**
 * What each build's answer cache holds, for the hit-ratio estimate: this code keeps every answer
 * of the mix; b98b213 (issue 17's baseline) kept /v1/context answers only.
 */
const CACHED_KINDS = { current: MIX_KINDS, baseline: ['names', 'prefixes', 'query'] as MixKind[] }

const range = (xs: number[], digits = 2): Range => {
  const r = (x: number) => +x.toFixed(digits)
  return { median: r(median(xs)), min: r(Math.min(...xs)), max: r(Math.max(...xs)) }
}

function shuffle<T>(xs: readonly T[], seed: number): T[] {
  const r = rng(seed)
  const out = [...xs]
  for (let i = out.length - 1; i > 0; i--) {
    const j = r.int(i + 1)
    ;[out[i], out[j]] = [out[j]!, out[i]!]
  }
  return out
}

/** `n` draws of a Zipf(1) popularity over `items` (rank order: a seeded shuffle). */
function zipf<T>(items: readonly T[], n: number, seed: number): T[] {
  const ranked = shuffle(items, seed)
  const cdf: number[] = []
  let sum = 0
  for (let k = 1; k <= ranked.length; k++) cdf.push((sum += 1 / k))
  const r = rng(seed + 1)
  const out: T[] = []
  for (let i = 0; i < n; i++) {
    const x = r.next() * sum
    let lo = 0
    let hi = cdf.length - 1
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (cdf[mid]! < x) lo = mid + 1
      else hi = mid
    }
    out.push(ranked[lo]!)
  }
  return out
}

/**
 * The share of the sequence's requests (after its first tenth, which fills the cache) an LRU of the
 * server's size, over the routes the server caches, would answer: what the load replays, estimated
 * in order (the 32 connections reorder it only within a few dozen requests).
 */
function hitRatio(sequence: readonly MixRequest[], bytes: Map<string, number>, cached: readonly MixKind[]): number {
  const lru = new LRUCache<string, true>({ maxSize: CACHE_MB * 2 ** 20, sizeCalculation: (_v, k) => bytes.get(k)! + k.length + 64 })
  let hits = 0
  sequence.forEach((q, i) => {
    if (!cached.includes(q.kind)) return
    const hit = lru.get(q.path) !== undefined
    if (!hit) lru.set(q.path, true)
    if (hit && i >= sequence.length / 10) hits++
  })
  return +(hits / (sequence.length - Math.ceil(sequence.length / 10))).toFixed(3)
}

/** Whether an answer is the kind the mix means to measure: found, resolved, with facts. */
function servedWell(kind: MixKind, status: number, body: string): boolean {
  if (status !== 200) return false
  const b = JSON.parse(body) as { status: string; facts?: unknown[] }
  if (kind === 'resolve' || kind === 'coverage') return b.status !== 'not_found'
  if (kind === 'search') return b.status === 'found'
  return b.status === 'ok' && (b.facts?.length ?? 0) > 0
}

/** Every request once, a few at a time: the status and body of each. */
async function ask(base: string, requests: readonly MixRequest[], headers: Record<string, string>): Promise<Array<{ status: number; body: string }>> {
  const out: Array<{ status: number; body: string }> = new Array(requests.length)
  let next = 0
  const worker = async () => {
    for (let i = next++; i < requests.length; i = next++) {
      const res = await fetch(base + requests[i]!.path, { headers })
      out[i] = { status: res.status, body: await res.text() }
    }
  }
  await Promise.all(Array.from({ length: 8 }, worker))
  return out
}

export async function benchMix(o: MixOptions): Promise<MixBenchResult> {
  const log = o.log ?? ((s: string) => process.stderr.write(`mix: ${s}\n`))
  const connections = o.connections ?? 32
  const durationS = o.durationS ?? 5
  const rounds = o.rounds ?? 3
  const loadBefore = os.loadavg()
  const { secret, record } = generateKey('bench')
  const scratch = mkdtempSync(join(tmpdir(), 'hwfacts-bench-mix-'))
  const keysFile = join(scratch, 'keys.json')
  // The budget of a real key; high enough that no load is refused.
  writeFileSync(keysFile, JSON.stringify({ keys: [{ ...record, rateLimit: { max: 1e9, timeWindowMs: 60_000 } }] }))
  const headers = { authorization: `Bearer ${secret}` }
  const root = join(import.meta.dirname, '..')
  const service = (dataDir: string, cacheMb: number) => ({
    HWFACTS_DATA_DIR: dataDir,
    HWFACTS_API_KEYS_FILE: keysFile,
    HWFACTS_CONTEXT_CACHE_MB: String(cacheMb),
    ELASTICSEARCH_URL: '',
    OPENSEARCH_URL: '',
    REDIS_URL: '',
    PORT: '0',
    LOG_LEVEL: 'warn'
  })
  const current = join(root, 'src', 'server.ts')
  const bareEntry = join(root, 'bench', 'bare-server.ts')
  const plan: Array<[ContenderName, string, Record<string, string>]> = [
    ['bare', bareEntry, {}],
    ['bareAuth', bareEntry, { BENCH_KEYS_FILE: keysFile }],
    ['currentOff', current, service(o.coreDataDir, 0)],
    ['currentOn', current, service(o.coreDataDir, CACHE_MB)],
    ...(o.baseline
      ? ([
          ['baselineOff', o.baseline.entry, service(o.baseline.dataDir, 0)],
          ['baselineOn', o.baseline.entry, service(o.baseline.dataDir, CACHE_MB)]
        ] as Array<[ContenderName, string, Record<string, string>]>)
      : []),
    ...(o.wideDataDir
      ? ([
          ['wideOff', current, service(o.wideDataDir, 0)],
          ['wideOn', current, service(o.wideDataDir, CACHE_MB)]
        ] as Array<[ContenderName, string, Record<string, string>]>)
      : [])
  ]
  const servers = new Map<ContenderName, Awaited<ReturnType<typeof startServer>>>()
  const pinning = pinLoadGenerator()
  try {
    for (const [name, entry, env] of plan) servers.set(name, await startServer(entry, env))
    log(`${servers.size} servers started`)

    // The requests, from the core release's own catalog and facts; kept only where every contender
    // serves them (a part the baseline cannot resolve would measure its not-found path).
    const total = o.generate ?? 11_000
    const perKind = Object.fromEntries(MIX_KINDS.map((k) => [k, Math.ceil(MIX_SHARES[k] * total)])) as Record<MixKind, number>
    const repo = new SqliteRepository(o.coreDataDir)
    const generated = await generateMix(new HardwareFacts(repo, 'bench'), perKind)
    await repo.close()
    const answers = new Map<ContenderName, Array<{ status: number; body: string }>>()
    for (const name of ['currentOff', 'baselineOff', 'wideOff'] as const) {
      const s = servers.get(name)
      if (!s) continue
      log(`asking ${name} each of ${generated.length} requests once`)
      answers.set(name, await ask(s.url, generated, headers))
    }
    const ok = generated.map((q, i) => [...answers.values()].every((a) => servedWell(q.kind, a[i]!.status, a[i]!.body)))
    const survivors = generated.filter((_, i) => ok[i])
    // As many as keep the shares exact.
    const n = Math.min(...MIX_KINDS.map((k) => survivors.filter((q) => q.kind === k).length / MIX_SHARES[k]))
    const quota = Object.fromEntries(MIX_KINDS.map((k) => [k, Math.floor(MIX_SHARES[k] * n)])) as Record<MixKind, number>
    const mix = survivors.filter((q) => quota[q.kind]-- > 0)
    const parts = new Set(mix.map((q) => q.part)).size
    if (mix.length < 9000 || parts < 250) throw new Error(`the mix has ${mix.length} requests over ${parts} parts that every contender serves; issue 17 asks for ≥ 9,000 over ≥ 250`)
    log(`${mix.length} distinct requests over ${parts} parts (${generated.length - survivors.length} of ${generated.length} generated were not served well by some contender)`)

    const bodyOf = (name: ContenderName) => {
      const a = answers.get(name)
      return a ? new Map(generated.map((q, i) => [q.path, a[i]!.body])) : undefined
    }
    const currentBodies = bodyOf('currentOff')!
    // Every generated request, served well or not: any answer byte may change.
    const digests = new Map([...currentBodies].map(([p, b]) => [p, createHash('sha256').update(b).digest('hex')]))
    const digestReport: MixBenchResult['digests'] = {}
    if (o.digestsOut) {
      writeFileSync(o.digestsOut, [...digests].map(([p, d]) => `${d} ${p}\n`).join(''))
      digestReport.written = o.digestsOut
    }
    if (o.digestsCheck) {
      let same = 0
      let missing = 0
      const differ: string[] = []
      for (const line of readFileSync(o.digestsCheck, 'utf8').split('\n').filter(Boolean)) {
        const mine = digests.get(line.slice(65))
        if (mine === undefined) missing++
        else if (mine === line.slice(0, 64)) same++
        else differ.push(line.slice(65))
      }
      digestReport.checked = { file: o.digestsCheck, same, differ: differ.length, missing, examples: differ.slice(0, 10) }
    }
    const byKind = Object.fromEntries(
      MIX_KINDS.map((k) => {
        const qs = mix.filter((q) => q.kind === k)
        return [k, { count: qs.length, meanBytes: Math.round(qs.reduce((s, q) => s + Buffer.byteLength(currentBodies.get(q.path)!), 0) / qs.length) }]
      })
    ) as MixBenchResult['requests']['byKind']

    const cycle = shuffle(mix, 1)
    const popular = zipf(mix, SEQUENCE, 2)
    const sequences = new Map<ContenderName, PathCycle>()
    for (const name of servers.keys()) {
      if (name === 'bare' || name === 'bareAuth') continue
      sequences.set(name, new PathCycle((name.endsWith('On') ? popular : cycle).map((q) => q.path)))
    }
    const loads = new Map<ContenderName, LoadStats[]>([...servers.keys()].map((k) => [k, []]))
    const order = [...servers.keys()]
    for (let r = 0; r < rounds; r++) {
      // Reversed every other round, so no contender always follows the same one.
      for (const name of r % 2 ? [...order].reverse() : order) {
        const s = servers.get(name)!
        const paths = sequences.get(name)
        const stats = await load({ url: s.url + (paths ? '' : '/bare'), ...(name === 'bare' ? {} : { headers }), connections, duration: durationS, serverPid: s.proc.pid!, ...(paths ? { paths } : {}) }, r === 0 ? 3 : 1)
        loads.get(name)!.push(stats)
        log(`round ${r + 1} ${name}: ${stats.rps} req/s, ${stats.serverCpuUsPerRequest} µs/req, p99 ${stats.p99Ms} ms`)
      }
    }

    const contenders: MixBenchResult['contenders'] = {}
    for (const [name, ls] of loads) {
      const bodies = name.startsWith('baseline') ? bodyOf('baselineOff') : name.startsWith('wide') ? bodyOf('wideOff') : currentBodies
      const bytes = bodies && new Map([...bodies].map(([p, b]) => [p, b.length]))
      contenders[name] = {
        rps: range(ls.map((l) => l.rps), 0),
        serverCpuUsPerRequest: range(ls.map((l) => l.serverCpuUsPerRequest!), 0),
        p50Ms: range(ls.map((l) => l.p50Ms)),
        p99Ms: range(ls.map((l) => l.p99Ms)),
        ...(name.endsWith('On') && bytes ? { hitRatio: hitRatio(popular, bytes, CACHED_KINDS[name.startsWith('baseline') ? 'baseline' : 'current']) } : {}),
        serverRssMb: (({ rss, peak }) => ({ afterLoad: rss, peak }))(servers.get(name)!.rssMb()),
        rounds: ls
      }
    }
    const ratios: Record<string, Range> = {}
    const ratio = (label: string, a: ContenderName, b: ContenderName, f: (l: LoadStats) => number) => {
      const x = loads.get(a)
      const y = loads.get(b)
      if (x && y) ratios[label] = range(x.map((l, i) => f(l) / f(y[i]!)))
    }
    const rps = (l: LoadStats) => l.rps
    const cpu = (l: LoadStats) => l.serverCpuUsPerRequest!
    const p99 = (l: LoadStats) => l.p99Ms
    for (const c of ['Off', 'On'] as const) {
      ratio(`cache ${c.toLowerCase()}: current ÷ baseline, throughput`, `current${c}`, `baseline${c}`, rps)
      ratio(`cache ${c.toLowerCase()}: current ÷ baseline, CPU per request`, `current${c}`, `baseline${c}`, cpu)
      ratio(`cache ${c.toLowerCase()}: current ÷ baseline, p99`, `current${c}`, `baseline${c}`, p99)
      ratio(`cache ${c.toLowerCase()}: wide ÷ core release, CPU per request`, `wide${c}`, `current${c}`, cpu)
      ratio(`cache ${c.toLowerCase()}: wide ÷ core release, throughput`, `wide${c}`, `current${c}`, rps)
      ratio(`cache ${c.toLowerCase()}: wide ÷ core release, p99`, `wide${c}`, `current${c}`, p99)
      for (const who of ['current', 'baseline'] as const) {
        ratio(`cache ${c.toLowerCase()}: ${who} ÷ bare route, throughput`, `${who}${c}`, 'bare', rps)
        ratio(`cache ${c.toLowerCase()}: ${who} ÷ bare route with auth and rate limit, throughput`, `${who}${c}`, 'bareAuth', rps)
      }
    }
    return {
      connections,
      durationS,
      rounds,
      cpus: pinning.note,
      cacheOn: `Zipf(1) over the ${mix.length} distinct requests (rank k drawn ∝ 1/k, ranks a seeded shuffle), ${SEQUENCE} draws, the same for every contender; ${CACHE_MB} MiB answer cache (HWFACTS_CONTEXT_CACHE_MB)`,
      requests: { distinct: mix.length, parts, byKind, droppedByPreflight: generated.length - survivors.length },
      contenders,
      ratios,
      ...(o.digestsOut || o.digestsCheck ? { digests: digestReport } : {}),
      loadAverage: { before: loadBefore, after: os.loadavg() }
    }
  } finally {
    for (const s of servers.values()) s.proc.kill()
    pinning.unpin()
    rmSync(scratch, { recursive: true, force: true })
  }
}
