import { randomBytes } from 'node:crypto'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

export interface CursorSecret {
  secret: string
  /** Where it came from, for the start-up message (never the secret itself). */
  source: string
}

/**
 * The key that signs paging cursors: HWFACTS_CURSOR_SECRET, else a random secret made once per data
 * directory (`cursor-secret`, mode 0600) and reused by every later start on it. A constant default
 * would let anyone forge cursors offline.
 */
export function cursorSecret(dataDir: string, fromEnv: string | undefined): CursorSecret {
  if (fromEnv) return { secret: fromEnv, source: 'HWFACTS_CURSOR_SECRET' }
  const file = join(dataDir, 'cursor-secret')
  try {
    const s = readFileSync(file, 'utf8').trim()
    if (s.length >= 32) return { secret: s, source: file }
  } catch {
    // not there yet
  }
  mkdirSync(dataDir, { recursive: true })
  const secret = randomBytes(32).toString('base64url')
  // 'wx': when two instances start on one directory at once, the second reads the first one's secret.
  try {
    writeFileSync(file, secret + '\n', { mode: 0o600, flag: 'wx' })
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
    return { secret: readFileSync(file, 'utf8').trim(), source: file }
  }
  return { secret, source: `${file} (generated now)` }
}
