import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { CursorCodec } from '../../src/service/cursor.js'
import { ServiceError } from '../../src/service/errors.js'

const codec = new CursorCodec('property-secret')
const release = fc.stringMatching(/^[a-f0-9]{16}$/)
const binding = fc.string({ minLength: 1, maxLength: 24 })
const pos = fc.record({ score: fc.integer({ min: 0, max: 16 }), ord: fc.integer({ min: 0, max: 2 ** 31 - 1 }) })
const cursorArgs = fc.tuple(release, binding, pos)
/** Characters a cursor can be made of (base64url, the dot), and a few it cannot. */
const cursorChar = fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.=+/ %'.split(''))

/** The Problem detail of a refused cursor, or undefined when it was accepted. */
const refusal = (c: string): string | undefined => {
  try {
    codec.decode(c)
    return undefined
  } catch (err) {
    if (!(err instanceof ServiceError) || err.code !== 'INVALID_CURSOR' || err.param !== 'cursor') throw err
    return err.message
  }
}
const rejected = (c: string): boolean => refusal(c) !== undefined
const ALTERED = 'The cursor was altered or was not issued by this service.'
const MALFORMED = 'The cursor is malformed.'

describe('cursor codec (properties)', () => {
  it('decodes exactly what it encoded', () => {
    fc.assert(
      fc.property(cursorArgs, ([r, b, p]) => {
        expect(codec.decode(codec.encode(r, b, p))).toEqual({ release: r, binding: b, pos: p })
      })
    )
  })

  it('rejects a cursor with any one character replaced', () => {
    fc.assert(
      fc.property(cursorArgs, fc.nat(), cursorChar, ([r, b, p], at, ch) => {
        const c = codec.encode(r, b, p)
        const i = at % c.length
        fc.pre(c[i] !== ch)
        expect(rejected(c.slice(0, i) + ch + c.slice(i + 1))).toBe(true)
      }),
      { numRuns: 500 }
    )
  })

  it('rejects a cursor with characters inserted, removed, or cut off', () => {
    fc.assert(
      fc.property(cursorArgs, fc.nat(), fc.integer({ min: 1, max: 8 }), fc.string({ unit: cursorChar, minLength: 1, maxLength: 4 }), ([r, b, p], at, n, ins) => {
        const c = codec.encode(r, b, p)
        const i = at % (c.length + 1)
        expect(rejected(c.slice(0, i) + ins + c.slice(i))).toBe(true)
        expect(rejected(c.slice(0, i) + c.slice(i + n))).toBe(i >= c.length ? false : true)
        if (i < c.length) expect(rejected(c.slice(0, i))).toBe(true)
      }),
      { numRuns: 300 }
    )
  })

  it('rejects the payload of one cursor with the signature of another, and cursors of another secret', () => {
    const other = new CursorCodec('another-secret')
    fc.assert(
      fc.property(cursorArgs, cursorArgs, ([r1, b1, p1], [r2, b2, p2]) => {
        const a = codec.encode(r1, b1, p1)
        const b = codec.encode(r2, b2, p2)
        const [pa] = a.split('.')
        const [pb, sb] = b.split('.')
        fc.pre(pa !== pb)
        expect(rejected(`${pa}.${sb}`)).toBe(true)
        expect(rejected(other.encode(r1, b1, p1))).toBe(true)
      })
    )
  })

  it('rejects signed payloads of the wrong shape, and strings that are no cursor at all', () => {
    // A payload signed with the right key but not [1, release, binding, score, ord]: only a forger with the key makes these.
    const mac = (p: string) => (codec as unknown as { mac(p: string): string }).mac(p)
    const sign = (payload: unknown) => {
      const p = Buffer.from(JSON.stringify(payload)).toString('base64url')
      return `${p}.${mac(p)}`
    }
    for (const bad of [[2, 'r', 'b', 0, 0], [1, 5, 'b', 0, 0], [1, 'r', 5, 0, 0], [1, 'r', 'b', '0', 0], [1, 'r', 'b', 0, '0'], { 0: 1 }, 'x', null])
      expect(refusal(sign(bad)), JSON.stringify(bad)).toBe(MALFORMED)
    expect(codec.decode(sign([1, 'r', 'b', 3, 4]))).toEqual({ release: 'r', binding: 'b', pos: { score: 3, ord: 4 } })
    const notJson = Buffer.from('[1,').toString('base64url')
    expect(refusal(`${notJson}.${mac(notJson)}`)).toBe(MALFORMED)
    // No payload before the dot, or no dot: malformed; a wrong signature: altered.
    for (const s of ['', '.', '.abc', 'abc', '.' + mac('')]) expect(refusal(s), s).toBe(MALFORMED)
    for (const s of ['abc.', 'a.b.c', 'abc.' + mac('abd')]) expect(refusal(s), s).toBe(ALTERED)
  })

  it('binds every part of a query: changing any one gives another binding', () => {
    const part = fc.option(fc.oneof(fc.string({ maxLength: 12 }), fc.integer()), { nil: undefined })
    fc.assert(
      fc.property(fc.array(part, { minLength: 1, maxLength: 9 }), fc.nat(), part, (parts, at, v) => {
        const i = at % parts.length
        fc.pre(parts[i] !== v && String(parts[i]) !== String(v))
        const changed = [...parts]
        changed[i] = v
        expect(CursorCodec.bind(changed)).not.toBe(CursorCodec.bind(parts))
        expect(CursorCodec.bind([...parts])).toBe(CursorCodec.bind(parts))
      })
    )
    // Absent and empty differ; so do the same strings split differently.
    expect(CursorCodec.bind([undefined])).not.toBe(CursorCodec.bind(['']))
    expect(CursorCodec.bind([undefined])).not.toBe(CursorCodec.bind(['undefined']))
    expect(CursorCodec.bind(['a', undefined])).not.toBe(CursorCodec.bind(['a', 'undefined']))
    expect(CursorCodec.bind(['ab', 'c'])).not.toBe(CursorCodec.bind(['a', 'bc']))
  })
})
