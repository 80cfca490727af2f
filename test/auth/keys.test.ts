import { createHash } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it as vitestIt } from 'vitest'
import { scratchDirs } from '../helpers/scratch.js'

/**
 * The keys file on its own (src/auth/keys.ts), from small files written here: fast enough to run
 * for every mutant of the `auth` mutation module. The documented format (README "API keys",
 * docs/RELIABILITY.md "The keys file is checked whole": every member typed, none unknown, unique ids
 * and secrets, the file refused whole) with the bounds the format sets: an `id` of 1 to 128
 * characters, `sha256` 64 lowercase hex digits, `scopes` a list of distinct known scopes, `releases`
 * a list of distinct release ids (16 lowercase hex digits) or `*`, an optional `rateLimit` of two
 * positive integers. Each bound is tried at its limit and one past it, the expected values worked
 * out by hand; error messages are Ajv's wording for the failing keyword, behind the file and the
 * JSON pointer.
 */

/**
 * The module compiles the keys-file schema when it loads, so a schema Ajv refuses makes it (and
 * the service) fail to load. Each test loads it itself (cached after the first), so that is a
 * failing test: a failing top-level import is a collection error, which the Stryker vitest runner
 * does not count against a mutant. Each test loads it, not the first one for all: the mutation
 * runner runs single tests by name.
 */
let ApiKeyStore: typeof import('../../src/auth/keys.js').ApiKeyStore
let readKeysFile: typeof import('../../src/auth/keys.js').readKeysFile
function it(name: string, fn: () => void | Promise<void>): void {
  vitestIt(name, async () => {
    ;({ ApiKeyStore, readKeysFile } = await import('../../src/auth/keys.js'))
    await fn()
  })
}

const tmp = scratchDirs()
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex')
const REL = '0123456789abcdef'

function write(doc: unknown): string {
  const f = join(tmp('hwfacts-keys-unit-'), 'api-keys.json')
  writeFileSync(f, typeof doc === 'string' ? doc : JSON.stringify(doc))
  return f
}

const rec = (id: string, secret: string, over: Record<string, unknown> = {}) => ({ id, sha256: sha256(secret), scopes: ['facts:read'], releases: ['*'], ...over })

/** The whole message a refused file gives: its path, where, what; and that nothing of it is used. */
const refusal = (f: string, what: string) => `${f}: ${what}; no key of this file is used`

function refused(doc: unknown): { file: string; message: string } {
  const file = write(doc)
  try {
    readKeysFile(file)
  } catch (err) {
    return { file, message: (err as Error).message }
  }
  throw new Error(`accepted: ${JSON.stringify(doc)}`)
}

/** A file of one record with these members changed is refused with `/keys/0<where> <what>`. */
function expectRecordRefused(over: Record<string, unknown>, where: string, what: string | RegExp): void {
  const { file, message } = refused({ keys: [rec('a', 's', over)] })
  if (typeof what === 'string') expect(message, JSON.stringify(over)).toBe(refusal(file, `/keys/0${where} ${what}`))
  else expect(message, JSON.stringify(over)).toMatch(new RegExp(`^${esc(`${file}: /keys/0${where} `)}${what.source}; no key of this file is used$`))
}

/** Ajv's uniqueItems message; which of the two items it names first depends on the item type. */
const DUPLICATE = /must NOT have duplicate items \(items ## (0 and 1|1 and 0) are identical\)/

function expectRecordAccepted(over: Record<string, unknown>): void {
  const r = rec('a', 's', over)
  expect(readKeysFile(write({ keys: [r] })), JSON.stringify(over)).toEqual([r])
}

describe('keys file schema: every bound at its limit and one past it', () => {
  it('id: 1 to 128 characters', () => {
    expectRecordAccepted({ id: 'x' })
    expectRecordAccepted({ id: 'x'.repeat(128) })
    expectRecordRefused({ id: '' }, '/id', 'must NOT have fewer than 1 characters')
    expectRecordRefused({ id: 'x'.repeat(129) }, '/id', 'must NOT have more than 128 characters')
    expectRecordRefused({ id: 7 }, '/id', 'must be string')
  })

  it('sha256: exactly 64 lowercase hex digits', () => {
    expectRecordAccepted({ sha256: 'f'.repeat(64) })
    expectRecordAccepted({ sha256: '0123456789abcdef'.repeat(4) })
    const pattern = 'must match pattern "^[a-f0-9]{64}$"'
    for (const bad of ['f'.repeat(63), 'f'.repeat(65), 'F'.repeat(64), 'g' + 'f'.repeat(63), ' ' + 'f'.repeat(64), 'f'.repeat(64) + '\n', ''])
      expectRecordRefused({ sha256: bad }, '/sha256', pattern)
  })

  it('scopes: a list of distinct known scopes, possibly empty', () => {
    expectRecordAccepted({ scopes: [] })
    expectRecordAccepted({ scopes: ['facts:read'] })
    expectRecordRefused({ scopes: ['facts:read', 'facts:read'] }, '/scopes', DUPLICATE)
    expectRecordRefused({ scopes: 'facts:read' }, '/scopes', 'must be array')
    const { file, message } = refused({ keys: [rec('a', 's', { scopes: ['facts:write'] })] })
    expect(message).toMatch(new RegExp(`^${esc(file)}: /keys/0/scopes/0 .+; no key of this file is used$`))
  })

  it('releases: distinct release ids of 16 lowercase hex digits, or *', () => {
    expectRecordAccepted({ releases: [] })
    expectRecordAccepted({ releases: ['*'] })
    expectRecordAccepted({ releases: [REL, 'fedcba9876543210', '*'] })
    const pattern = 'must match pattern "^([a-f0-9]{16}|\\*)$"'
    for (const bad of [REL.slice(1), REL + '0', REL.toUpperCase(), '**', 'x', '', `${REL}|*`]) expectRecordRefused({ releases: [REL, bad] }, '/releases/1', pattern)
    expectRecordRefused({ releases: [REL, REL] }, '/releases', DUPLICATE)
    expectRecordRefused({ releases: ['*', '*'] }, '/releases', DUPLICATE)
    expectRecordRefused({ releases: '*' }, '/releases', 'must be array')
  })

  it('rateLimit: optional; max and timeWindowMs positive integers, nothing else', () => {
    expectRecordAccepted({ rateLimit: { max: 1, timeWindowMs: 1 } })
    expectRecordAccepted({ rateLimit: { max: 1200, timeWindowMs: 60_000 } })
    expectRecordRefused({ rateLimit: { max: 0, timeWindowMs: 1 } }, '/rateLimit/max', 'must be >= 1')
    expectRecordRefused({ rateLimit: { max: 1, timeWindowMs: 0 } }, '/rateLimit/timeWindowMs', 'must be >= 1')
    expectRecordRefused({ rateLimit: { max: 1.5, timeWindowMs: 1 } }, '/rateLimit/max', 'must be integer')
    expectRecordRefused({ rateLimit: { max: 1, timeWindowMs: 1000.5 } }, '/rateLimit/timeWindowMs', 'must be integer')
    expectRecordRefused({ rateLimit: { max: '5', timeWindowMs: 1 } }, '/rateLimit/max', 'must be integer')
    expectRecordRefused({ rateLimit: { timeWindowMs: 1 } }, '/rateLimit', "must have required property 'max'")
    expectRecordRefused({ rateLimit: { max: 1 } }, '/rateLimit', "must have required property 'timeWindowMs'")
    expectRecordRefused({ rateLimit: { max: 1, timeWindowMs: 1, burst: 2 } }, '/rateLimit', 'must NOT have additional properties (burst)')
  })

  it('no unknown member in a record or at the top, named in the message', () => {
    expectRecordRefused({ role: 'admin' }, '', 'must NOT have additional properties (role)')
    // A misspelt member: the one the record has is unknown, the one it lacks is required.
    const { file, message } = refused({ keys: [{ id: 'a', sha256: sha256('s'), scopes: [], release: ['*'] }] })
    expect([refusal(file, '/keys/0 must have required property \'releases\''), refusal(file, '/keys/0 must NOT have additional properties (release)')]).toContain(message)
    const top = refused({ keys: [], comment: 'x' })
    expect(top.message).toBe(refusal(top.file, '/ must NOT have additional properties (comment)'))
  })

  it('a missing or mistyped top-level member is reported at /', () => {
    const none = refused({})
    expect(none.message).toBe(refusal(none.file, "/ must have required property 'keys'"))
    const notList = refused({ keys: {} })
    expect(notList.message).toBe(refusal(notList.file, '/keys must be array'))
    const notObject = refused([])
    expect(notObject.message).toBe(refusal(notObject.file, '/ must be object'))
    // Only members Ajv reports as additional get a parenthesis.
    expect(none.message).not.toMatch(/\(/)
  })

  it('an empty list of keys is a valid file', () => {
    expect(readKeysFile(write({ keys: [] }))).toEqual([])
  })

  it('a file that is not JSON is refused with the parser\'s reason', () => {
    const f = write('{ "keys": [')
    expect(() => readKeysFile(f)).toThrow(new RegExp(`^${esc(f)}: not a readable JSON keys file \\(.+\\)$`))
  })
})

describe('keys file: ids and secrets are unique', () => {
  it('two records with one id are refused, naming the id', () => {
    const { file, message } = refused({ keys: [rec('a', 's1'), rec('b', 's2'), rec('a', 's3')] })
    expect(message).toBe(refusal(file, 'two keys share the id of a'))
  })

  it('two records with one digest are refused, naming the later record', () => {
    const { file, message } = refused({ keys: [rec('a', 's1'), rec('b', 's2'), rec('c', 's1')] })
    expect(message).toBe(refusal(file, 'two keys share the secret of c'))
  })

  it('distinct ids and digests are accepted, in their order, however many', () => {
    const keys = Array.from({ length: 5 }, (_, i) => rec(`k${i}`, `s${i}`))
    expect(readKeysFile(write({ keys }))).toEqual(keys)
    // An id may equal another record's digest: the two checks are separate.
    const odd = [rec(sha256('s1'), 's2'), rec('b', 's1')]
    expect(readKeysFile(write({ keys: odd }))).toEqual(odd)
  })
})

describe('the key store: loading, reloading and its generation', () => {
  it('fromFile reads the file; a missing one says how to make one', () => {
    const f = write({ keys: [rec('a', 's1'), rec('b', 's2')] })
    const store = ApiKeyStore.fromFile(f)
    expect(store.keys.map((k) => k.id)).toEqual(['a', 'b'])
    expect(store.verify('s2')?.id).toBe('b')
    const absent = join(tmp('hwfacts-keys-unit-'), 'none.json')
    expect(() => ApiKeyStore.fromFile(absent)).toThrow(`${absent}: no API keys file; create one with \`hwfacts keys create <id> --keys-file ${absent}\``)
    expect(() => ApiKeyStore.fromFile(absent, {})).toThrow('no API keys file')
    expect(ApiKeyStore.fromFile(absent, { allowMissing: true }).keys).toEqual([])
    // allowMissing only excuses a missing file, not a wrong one.
    expect(() => ApiKeyStore.fromFile(write({}), { allowMissing: true })).toThrow("must have required property 'keys'")
  })

  it('every replace and reload bumps the generation by one; a refused reload changes nothing', () => {
    const f = write({ keys: [rec('a', 's1')] })
    const store = ApiKeyStore.fromFile(f)
    const g = store.generation
    writeFileSync(f, JSON.stringify({ keys: [rec('b', 's2'), rec('c', 's3')] }))
    expect(store.reload(f)).toBe(2)
    expect(store.generation).toBe(g + 1)
    expect(store.keys.map((k) => k.id)).toEqual(['b', 'c'])
    expect(store.verify('s1')).toBeUndefined()
    expect(store.verify('s3')?.id).toBe('c')

    writeFileSync(f, JSON.stringify({ keys: [rec('d', 's4'), rec('d', 's5')] }))
    expect(() => store.reload(f)).toThrow(refusal(f, 'two keys share the id of d'))
    expect(store.generation).toBe(g + 1)
    expect(store.keys.map((k) => k.id)).toEqual(['b', 'c'])
    expect(store.verify('s3')?.id).toBe('c')

    store.replace([])
    expect(store.generation).toBe(g + 2)
    expect(store.keys).toEqual([])
    expect(store.verify('s3')).toBeUndefined()
    writeFileSync(f, JSON.stringify({ keys: [] }))
    expect(store.reload(f)).toBe(0)
    expect(store.generation).toBe(g + 3)
  })

  it('two stores count their generations apart', () => {
    const a = new ApiKeyStore([])
    const b = new ApiKeyStore([])
    a.replace([])
    expect(a.generation).toBe(b.generation + 1)
  })
})

function esc(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}
