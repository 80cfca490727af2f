import { createHash } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildRelease } from '../../indexer/build.js'
import { ApiKeyStore, generateKey, hashKey, type ApiKey } from '../../src/auth/keys.js'
import { DataDir } from '../../src/store/layout.js'
import { testApp, type TestApp } from '../helpers/app.js'
import { SAMPLE_CORPUS } from '../helpers/sample-corpus.js'

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex')
const record = (id: string, secret: string, over: Partial<ApiKey> = {}): ApiKey => ({ id, sha256: sha256(secret), scopes: ['facts:read'], releases: ['*'], ...over })

describe('API key store', () => {
  let dir: string
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'hwfacts-keys-'))
  })
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('stores only the sha256 of a generated secret', () => {
    const { secret, record: r } = generateKey('ci')
    expect(secret).toMatch(/^hwf_[A-Za-z0-9_-]{43}$/)
    expect(r).toEqual({ id: 'ci', sha256: sha256(secret), scopes: ['facts:read'], releases: ['*'] })
    expect(hashKey(secret)).toBe(sha256(secret))
    expect(generateKey('x', [], ['0123456789abcdef']).record).toMatchObject({ scopes: [], releases: ['0123456789abcdef'] })
    expect(generateKey('a').secret).not.toBe(generateKey('a').secret)
  })

  it('verifies a presented secret against every stored digest and returns the matching key', () => {
    const store = new ApiKeyStore([record('one', 's1'), record('two', 's2'), record('dup', 's2')])
    expect(store.verify('s1')?.id).toBe('one')
    // The first record with the digest, though every record is compared.
    expect(store.verify('s2')?.id).toBe('two')
    expect(store.verify('s3')).toBeUndefined()
    expect(store.verify('')).toBeUndefined()
    expect(new ApiKeyStore([]).verify('s1')).toBeUndefined()
  })

  it('reads a keys file: every member required and typed, the whole file refused for a bad record or when missing', () => {
    // A missing file is an error, unless the data directory is a development one (issue 14, item 14).
    expect(() => ApiKeyStore.fromFile(join(dir, 'absent.json'))).toThrow(/absent\.json: no API keys file/)
    expect(ApiKeyStore.fromFile(join(dir, 'absent.json'), { allowMissing: true }).keys).toEqual([])
    const f = join(dir, 'keys.json')
    const a = { id: 'a', sha256: sha256('x'), scopes: ['facts:read'], releases: ['*'] }
    const b = { id: 'b', sha256: sha256('y'), scopes: [], releases: ['0123456789abcdef'] }
    writeFileSync(f, JSON.stringify({ keys: [a, b] }))
    const store = ApiKeyStore.fromFile(f)
    expect(store.keys).toEqual([a, b])
    expect(store.verify('y')?.id).toBe('b')
    const hex = sha256('x')
    const ok = { id: 'ok', sha256: sha256('z'), scopes: ['facts:read'], releases: ['*'] }
    // Strings where lists belong would be matched as substrings, widening access: refused like any other mistake.
    for (const bad of [{ id: undefined }, { sha256: 'ABC' }, { id: 7 }, { sha256: hex.toUpperCase() }, { sha256: 'g' + hex }, { sha256: hex + '0' }, { scopes: undefined }, { scopes: 'facts:read' }, { releases: '0123456789abcdef' }, { releases: ['0123'] }, { scopes: ['facts:write'] }, { role: 'admin' }]) {
      writeFileSync(f, JSON.stringify({ keys: [ok, { ...a, ...bad }] }))
      expect(() => ApiKeyStore.fromFile(f), JSON.stringify(bad)).toThrow(new RegExp(`^${f.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: /keys/1.*; no key of this file is used$`))
    }
    writeFileSync(f, JSON.stringify({}))
    expect(() => ApiKeyStore.fromFile(f)).toThrow(/must have required property 'keys'/)
  })
})

describe('bearer authentication on the routes', () => {
  let dataDir: string
  let releaseId: string
  let t: TestApp
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'hwfacts-auth-'))
    releaseId = (await buildRelease({ inventory: SAMPLE_CORPUS, dataDir })).id
    new DataDir(dataDir).promote(releaseId)
    t = await testApp(dataDir, {}, [{ scopes: [] }, { releases: [releaseId] }, { releases: ['0000000000000000'] }])
  })
  afterAll(async () => {
    await t?.close()
    rmSync(dataDir, { recursive: true, force: true })
  })

  const call = (url: string, authorization?: string) => t.app.inject({ url, headers: authorization === undefined ? {} : { authorization } })
  const secret = () => t.auth.authorization.slice('Bearer '.length)

  it('accepts the scheme in any case and spaces around the credential', async () => {
    for (const h of [`Bearer ${secret()}`, `bearer ${secret()}`, `BEARER   ${secret()}`, `Bearer ${secret()}  `]) expect((await call('/v1/release', h)).statusCode, h).toBe(200)
  })

  it('401 with a Bearer challenge without credentials, and invalid_token for a malformed or unknown one', async () => {
    const none = await call('/v1/release')
    expect(none.statusCode).toBe(401)
    expect(none.headers['www-authenticate']).toBe('Bearer realm="hardware-facts"')
    expect(none.json()).toMatchObject({ code: 'UNAUTHENTICATED', param: null, detail: 'This endpoint needs `Authorization: Bearer <API_KEY>`.' })
    for (const h of ['', 'Bearer', 'Bearer ', `Basic ${secret()}`, `Bearer ${secret()} extra`, `Bearer${secret()}`, `Bearer ${secret()}x`, 'Bearer hwf_unknown', `XBearer ${secret()}`, `Token Bearer ${secret()}`]) {
      const r = await call('/v1/release', h)
      expect(r.statusCode, h).toBe(401)
      expect(r.headers['www-authenticate'], h).toBe('Bearer realm="hardware-facts", error="invalid_token"')
      expect(r.json(), h).toMatchObject({ code: 'UNAUTHENTICATED', detail: 'The bearer credential is malformed or not a valid API key.' })
    }
  })

  it('403 for a key without the scope; corpus_release only within the key\'s releases', async () => {
    const noScope = await call('/v1/release', t.keyFor({ scopes: [] }).authorization)
    expect(noScope.statusCode).toBe(403)
    expect(noScope.json()).toMatchObject({ code: 'FORBIDDEN', param: null, detail: 'This API key lacks the facts:read scope.' })
    const url = `/v1/coverage?part=STM32F407VG&corpus_release=${releaseId}`
    expect((await call(url, t.auth.authorization)).statusCode).toBe(200)
    expect((await call(url, t.keyFor({ releases: [releaseId] }).authorization)).statusCode).toBe(200)
    // A restricted key may name the promoted release explicitly: it reads it anyway without the
    // parameter (issue 14, item 14). Other releases outside its list: test/http/hardening.test.ts.
    expect((await call(url, t.keyFor({ releases: ['0000000000000000'] }).authorization)).statusCode).toBe(200)
    // Without corpus_release the promoted release is always readable.
    expect((await call('/v1/coverage?part=STM32F407VG', t.keyFor({ releases: ['0000000000000000'] }).authorization)).statusCode).toBe(200)
  })

  it('routes without a scope need no credential, and ignore a bad one', async () => {
    expect((await call('/ping')).statusCode).toBe(200)
    expect((await call('/v1/error-codes/UNAUTHENTICATED')).statusCode).toBe(200)
    expect((await call('/ping', 'Bearer nonsense')).statusCode).toBe(200)
  })
})
