import { hash, randomBytes, timingSafeEqual } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'

export const SCOPES = ['facts:read'] as const
export type Scope = (typeof SCOPES)[number]

/** A configured API key. Only the sha256 of the secret is ever stored. */
export interface ApiKey {
  id: string
  sha256: string
  scopes: Scope[]
  /** Release ids this key may read with corpus_release; `*` for any. The promoted release is always readable. */
  releases: string[]
  /** Requests per window for this key; the service default applies when absent. */
  rateLimit?: { max: number; timeWindowMs: number }
}

// One-shot hashing: every authenticated request pays it, and a Hash object per call costs more than the digest.
export function hashKey(secret: string): string {
  return hash('sha256', secret, 'hex')
}

/** A new secret (shown once) and the record that stores only its hash. */
export function generateKey(id: string, scopes: Scope[] = ['facts:read'], releases: string[] = ['*']): { secret: string; record: ApiKey } {
  const secret = `hwf_${randomBytes(32).toString('base64url')}`
  return { secret, record: { id, sha256: hashKey(secret), scopes, releases } }
}

export class ApiKeyStore {
  private readonly digests: Array<{ key: ApiKey; digest: Buffer }>

  constructor(readonly keys: ApiKey[]) {
    this.digests = keys.map((key) => ({ key, digest: Buffer.from(key.sha256, 'hex') }))
  }

  static fromFile(path: string): ApiKeyStore {
    if (!existsSync(path)) return new ApiKeyStore([])
    const doc = JSON.parse(readFileSync(path, 'utf8')) as { keys?: ApiKey[] }
    const keys = (doc.keys ?? []).map((k, i) => {
      if (typeof k.id !== 'string' || !/^[a-f0-9]{64}$/.test(k.sha256 ?? '')) throw new Error(`${path}: keys[${i}] needs an id and a 64-hex sha256`)
      return { ...k, scopes: k.scopes ?? ['facts:read'], releases: k.releases ?? ['*'] }
    })
    return new ApiKeyStore(keys)
  }

  /**
   * Compares the presented secret's digest with every stored digest in constant time, without
   * stopping at a match, so timing tells nothing about which keys exist.
   */
  verify(secret: string): ApiKey | undefined {
    const digest = hash('sha256', secret, 'buffer')
    let found: ApiKey | undefined
    for (const d of this.digests) if (timingSafeEqual(digest, d.digest) && !found) found = d.key
    return found
  }
}
