import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import os from 'node:os'

/** The part of autocannon's API used here (the package ships no types). */
export interface AutocannonResult {
  latency: { p50: number; p99: number; average: number }
  requests: { average: number; total: number }
  errors: number
  timeouts: number
  non2xx: number
}
export type AutocannonOptions = {
  url: string
  method?: string
  headers?: Record<string, string>
  body?: string
  connections?: number
  duration?: number
  requests?: Array<{ setupRequest?: (req: { path: string }) => { path: string } }>
}
export const autocannon = createRequire(import.meta.url)('autocannon') as (o: AutocannonOptions) => Promise<AutocannonResult>

export interface LoadStats {
  rps: number
  p50Ms: number
  p99Ms: number
  requests: number
  errors: number
  non2xx: number
  /** Server process CPU time (user + system) per request: what the route costs, whatever the load generator does. */
  serverCpuUsPerRequest?: number
  /** Share of this machine's CPU time the hypervisor gave to others during the run (Linux): above a few % the figures are disturbed. */
  stealPct?: number
}

/** User + system CPU time of a process, in µs (Linux). */
function cpuUs(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
  return ((Number(f[11]) + Number(f[12])) * 1e6) / CLOCK_TICKS
}
const CLOCK_TICKS = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100

/** Steal ticks of all CPUs so far (the 8th figure of /proc/stat's `cpu` line); undefined off Linux. */
function stealTicks(): number | undefined {
  if (!existsSync('/proc/stat')) return undefined
  return Number(readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/)[8])
}

/**
 * Paths requested one after the other by all the connections of a load together (not each
 * connection from the start of the list), from where the previous load stopped.
 */
export class PathCycle {
  private i = 0
  constructor(readonly paths: readonly string[]) {}

  next(): string {
    const p = this.paths[this.i]!
    this.i = (this.i + 1) % this.paths.length
    return p
  }
}

/**
 * A warm-up, then one measured autocannon run; with `serverPid`, the server's CPU per request too;
 * with `paths`, each request takes the next path of the cycle (on the url's origin).
 */
export async function load(o: AutocannonOptions & { serverPid?: number; paths?: PathCycle }, warmupS = 2): Promise<LoadStats> {
  const { serverPid, paths, ...rest } = o
  const opts = paths ? { ...rest, requests: [{ setupRequest: (req: { path: string }) => ({ ...req, path: paths.next() }) }] } : rest
  if (warmupS > 0) await autocannon({ ...opts, duration: warmupS })
  const before = serverPid ? cpuUs(serverPid) : 0
  const steal0 = stealTicks()
  const t0 = performance.now()
  const r = await autocannon(opts)
  const steal1 = stealTicks()
  const stealPct =
    steal0 === undefined || steal1 === undefined ? {} : { stealPct: +((100 * (steal1 - steal0)) / CLOCK_TICKS / (((performance.now() - t0) / 1000) * CORES)).toFixed(1) }
  // A figure over failed requests would measure the error path: refuse it.
  if (r.non2xx > 0 || r.errors + r.timeouts > 0) throw new Error(`${opts.url}: ${r.non2xx} non-2xx answers, ${r.errors + r.timeouts} errors of ${r.requests.total}`)
  const cpu = serverPid ? { serverCpuUsPerRequest: Math.round((cpuUs(serverPid) - before) / Math.max(1, r.requests.total)) } : {}
  return { rps: Math.round(r.requests.average), p50Ms: r.latency.p50, p99Ms: r.latency.p99, requests: r.requests.total, errors: r.errors + r.timeouts, non2xx: r.non2xx, ...cpu, ...stealPct }
}

/**
 * On a multi-core Linux machine the servers get the last core and the load generator (this
 * process) the others, so the two never compete for one core or trade places mid-run.
 */
const CORES = os.cpus().length
const PIN = CORES >= 2 && existsSync('/usr/bin/taskset')
export function pinLoadGenerator(): { note: string; unpin: () => void } {
  if (!PIN) return { note: 'not pinned', unpin: () => {} }
  const pin = (cpus: string) => execFileSync('taskset', ['-acp', cpus, String(process.pid)], { stdio: 'ignore' })
  pin(`0-${CORES - 2}`)
  return { note: `load generator on cpu 0-${CORES - 2}, servers on cpu ${CORES - 1}`, unpin: () => pin(`0-${CORES - 1}`) }
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2
}

/** Starts a TypeScript entry point in its own Node process and waits for its `listening <url>` line. */
export async function startServer(entry: string, env: Record<string, string>): Promise<{ url: string; proc: ChildProcess; rssMb: () => { rss: number; peak: number } }> {
  const argv = [process.execPath, '--import', 'tsx', entry]
  // taskset execs node in place: proc.pid is the server's own pid.
  const [cmd, ...args] = PIN ? ['taskset', '-c', String(CORES - 1), ...argv] : argv
  const proc = spawn(cmd!, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] })
  const url = await new Promise<string>((resolve, reject) => {
    let out = ''
    proc.stdout!.on('data', (d: Buffer) => {
      out += d.toString()
      const m = /listening (?:on )?(http:\/\/\S+)/i.exec(out)
      if (m) resolve(m[1]!)
    })
    proc.once('exit', (code) => reject(new Error(`${entry} exited with ${code}: ${out}`)))
  })
  const rssMb = () => {
    const status = readFileSync(`/proc/${proc.pid}/status`, 'utf8')
    const kb = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(status)?.[1] ?? 0)
    return { rss: Math.round(kb('VmRSS') / 1024), peak: Math.round(kb('VmHWM') / 1024) }
  }
  return { url, proc, rssMb }
}

export function machine(): string {
  const cpu = os.cpus()
  return `${cpu.length} × ${cpu[0]?.model ?? 'cpu'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}, load ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`
}
