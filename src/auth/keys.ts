import { hash, randomBytes, timingSafeEqual } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import { Ajv } from 'ajv'
import { Type, type Static } from 'typebox'

export const SCOPES = ['facts:read'] as const
export type Scope = (typeof SCOPES)[number]

/**
 * One record of the keys file. Every member is required and typed: a `releases` written as a
 * string, or misspelt, would otherwise widen what a key may read.
 */
const KeyRecord = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: 128 }),
    sha256: Type.String({ pattern: '^[a-f0-9]{64}$' }),
    scopes: Type.Array(Type.Union(SCOPES.map((s) => Type.Literal(s))), { uniqueItems: true }),
    releases: Type.Array(Type.String({ pattern: '^([a-f0-9]{16}|\\*)$' }), { uniqueItems: true }),
    rateLimit: Type.Optional(Type.Object({ max: Type.Integer({ minimum: 1 }), timeWindowMs: Type.Integer({ minimum: 1 }) }, { additionalProperties: false }))
  },
  { additionalProperties: false }
)
const KeysFile = Type.Object({ keys: Type.Array(KeyRecord) }, { additionalProperties: false })

/** A configured API key. Only the sha256 of the secret is ever stored. */
export interface ApiKey {
  id: string
  sha256: string
  scopes: Scope[]
  /** Release ids this key may read with corpus_release; `*` for any complete one. The promoted release is always readable. */
  releases: string[]
  /** Requests per window for this key; the service default applies when absent. */
  rateLimit?: { max: number; timeWindowMs: number }
}

const checkFile = new Ajv({ allErrors: false, coerceTypes: false, useDefaults: false }).compile<Static<typeof KeysFile>>(KeysFile)

// One-shot hashing: every authenticated request pays it, and a Hash object per call costs more than the digest.
export function hashKey(secret: string): string {
  return hash('sha256', secret, 'hex')
}

/** A new secret (shown once) and the record that stores only its hash. */
export function generateKey(id: string, scopes: Scope[] = ['facts:read'], releases: string[] = ['*']): { secret: string; record: ApiKey } {
  const secret = `hwf_${randomBytes(32).toString('base64url')}`
  return { secret, record: { id, sha256: hashKey(secret), scopes, releases } }
}

/** Reads and checks a keys file; refuses it whole when any record is wrong. */
export function readKeysFile(path: string): ApiKey[] {
  let doc: unknown
  try {
    doc = JSON.parse(readFileSync(path, 'utf8'))
  } catch (err) {
    throw new Error(`${path}: not a readable JSON keys file (${(err as Error).message})`)
  }
  if (!checkFile(doc)) {
    const e = checkFile.errors![0]!
    throw new Error(`${path}: ${e.instancePath || '/'} ${e.message}${e.params && 'additionalProperty' in e.params ? ` (${String(e.params.additionalProperty)})` : ''}; no key of this file is used`)
  }
  const keys = doc.keys as ApiKey[]
  for (const [field, what] of [['id', 'id'], ['sha256', 'secret']] as const) {
    const seen = new Set<string>()
    for (const k of keys) {
      if (seen.has(k[field])) throw new Error(`${path}: two keys share the ${what} of ${k.id}; no key of this file is used`)
      seen.add(k[field])
    }
  }
  return keys
}

export class ApiKeyStore {
  private digests: Array<{ key: ApiKey; digest: Buffer }> = []
  /** Bumped on every reload, so credentials verified before it are verified again. */
  generation = 0

  constructor(keys: ApiKey[]) {
    this.replace(keys)
  }

  /** A missing file is an error unless `allowMissing` (a development data directory). */
  static fromFile(path: string, opts: { allowMissing?: boolean } = {}): ApiKeyStore {
    if (!existsSync(path)) {
      if (opts.allowMissing) return new ApiKeyStore([])
      throw new Error(`${path}: no API keys file; create one with \`hwfacts keys create <id> --keys-file ${path}\``)
    }
    return new ApiKeyStore(readKeysFile(path))
  }

  get keys(): readonly ApiKey[] {
    return this.digests.map((d) => d.key)
  }

  /** Swaps every key at once; requests in flight keep the key they were verified with. */
  replace(keys: ApiKey[]): void {
    this.digests = keys.map((key) => ({ key, digest: Buffer.from(key.sha256, 'hex') }))
    this.generation++
  }

  /** Re-reads the file (SIGHUP); a wrong file leaves the current keys in place and throws why. */
  reload(path: string): number {
    const keys = readKeysFile(path)
    this.replace(keys)
    return keys.length
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
