import { randomBytes } from 'node:crypto'
import { linkSync, mkdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

export interface CursorSecret {
  secret: string
  /** Where it came from, for the start-up message (never the secret itself). */
  source: string
}

/** Shorter HMAC keys can be guessed offline (an empty file would sign every cursor with ""). */
export const MIN_SECRET_BYTES = 32

/** A secret from the environment or an operator's file that must not sign cursors: the start is refused. */
function refuse(where: string, why: string): never {
  throw new Error(`cursor secret ${where} ${why}; the service does not start on it (remove the file to have a new one made, or set HWFACTS_CURSOR_SECRET)`)
}

function checked(secret: string, where: string): string {
  const n = Buffer.byteLength(secret)
  if (n < MIN_SECRET_BYTES) refuse(where, `is ${n} bytes long, shorter than ${MIN_SECRET_BYTES}`)
  return secret
}

function readSecretFile(file: string): string {
  // Readable by others is as good as published: anyone on the host could forge cursors.
  const mode = statSync(file).mode & 0o777
  if (mode & 0o077) refuse(file, `is readable or writable by others (mode ${mode.toString(8).padStart(4, '0')}; it must be 0600)`)
  return checked(readFileSync(file, 'utf8').trim(), file)
}

/**
 * The key that signs paging cursors: HWFACTS_CURSOR_SECRET, else a random secret made once per data
 * directory (`cursor-secret`, mode 0600) and reused by every later start on it. A constant default
 * would let anyone forge cursors offline; a short or shared one is refused rather than used.
 */
export function cursorSecret(dataDir: string, fromEnv: string | undefined): CursorSecret {
  if (fromEnv) return { secret: checked(fromEnv, 'HWFACTS_CURSOR_SECRET'), source: 'HWFACTS_CURSOR_SECRET' }
  const file = join(dataDir, 'cursor-secret')
  try {
    return { secret: readSecretFile(file), source: file }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
  }
  mkdirSync(dataDir, { recursive: true })
  const secret = randomBytes(32).toString('base64url')
  // Written whole under a private name, then linked into place: a link fails if the name exists, so
  // when two instances start on one directory at once, the second reads the first one's complete secret.
  const tmp = `${file}.${process.pid}.tmp`
  writeFileSync(tmp, secret + '\n', { mode: 0o600 })
  try {
    linkSync(tmp, file)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
    return { secret: readSecretFile(file), source: file }
  } finally {
    unlinkSync(tmp)
  }
  return { secret, source: `${file} (generated now)` }
}
