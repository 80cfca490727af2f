import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const SERVICES = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '.ci', 'services.sh')

/** Whether this machine can run a Redis of its own (Debian's `redis-server` package). */
export const hasRedisServer = (() => {
  try {
    execFileSync('sh', ['-c', 'command -v redis-server && command -v redis-cli'], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
})()

export interface PrivateRedis {
  url: string
  pid: number
  /** Runs a `.ci/services.sh` command against this instance (e.g. `redis-stop`, `redis-start`). */
  services: (cmd: string) => string
  /** Stops it and removes its directory. */
  stop: () => void
}

/**
 * A Redis of its own on a free loopback port (`.ci/services.sh` with a private SERVICES_DIR), so
 * stopping or pausing it cannot disturb anything else using Redis. No persistence.
 */
export async function privateRedis(): Promise<PrivateRedis> {
  const port = await new Promise<number>((res) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port
      s.close(() => res(p))
    })
  })
  const env = { ...process.env, REDIS_PORT: String(port), SERVICES_DIR: mkdtempSync(join(tmpdir(), 'hwfacts-redis-svc-')) }
  const services = (cmd: string) => execFileSync('bash', [SERVICES, cmd], { env, stdio: ['ignore', 'pipe', 'pipe'] }).toString()
  const url = services('redis-start').match(/REDIS_URL=(\S+)/)![1]!
  const pid = Number(readFileSync(join(env.SERVICES_DIR, `redis-${port}.pid`), 'utf8').trim())
  return {
    url,
    pid,
    services,
    stop: () => {
      services('redis-stop')
      rmSync(env.SERVICES_DIR, { recursive: true, force: true })
    }
  }
}
