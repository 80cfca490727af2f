import { spawn, type ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
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
export type AutocannonOptions = { url: string; method?: string; headers?: Record<string, string>; body?: string; connections?: number; duration?: number }
export const autocannon = createRequire(import.meta.url)('autocannon') as (o: AutocannonOptions) => Promise<AutocannonResult>

export interface LoadStats {
  rps: number
  p50Ms: number
  p99Ms: number
  requests: number
  errors: number
  non2xx: number
}

/** A warm-up, then one measured autocannon run. */
export async function load(o: AutocannonOptions, warmupS = 2): Promise<LoadStats> {
  if (warmupS > 0) await autocannon({ ...o, duration: warmupS })
  const r = await autocannon(o)
  return { rps: Math.round(r.requests.average), p50Ms: r.latency.p50, p99Ms: r.latency.p99, requests: r.requests.total, errors: r.errors + r.timeouts, non2xx: r.non2xx }
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2
}

/** Starts a TypeScript entry point in its own Node process and waits for its `listening <url>` line. */
export async function startServer(entry: string, env: Record<string, string>): Promise<{ url: string; proc: ChildProcess; rssMb: () => { rss: number; peak: number } }> {
  const proc = spawn(process.execPath, ['--import', 'tsx', entry], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] })
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
