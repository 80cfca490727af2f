import { createHash, createHmac } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { CursorCodec } from '../../src/service/cursor.js'
import { ServiceError } from '../../src/service/errors.js'

/*
 * The cursor's format worked out by hand from node:crypto: the payload is the base64url of
 * JSON [1, release, binding, score, ord]; the signature the first 22 base64url characters of an
 * HMAC-SHA256 keyed by sha256("hwfacts-cursor\0" + secret); a binding the first 16 base64url
 * characters of the sha256 of the query's parts joined by U+0001 (an absent part is U+0000).
 */
const SECRET = 'unit-secret'
const R1 = '0123456789abcdef'
const R2 = 'fedcba9876543210'
const key = createHash('sha256').update(`hwfacts-cursor\0${SECRET}`).digest()
const sign = (payload: string) => createHmac('sha256', key).update(payload).digest('base64url').slice(0, 22)
const cursorOf = (json: string) => {
  const payload = Buffer.from(json).toString('base64url')
  return `${payload}.${sign(payload)}`
}

function refusal(f: () => unknown): string {
  try {
    f()
  } catch (err) {
    if (err instanceof ServiceError && err.code === 'INVALID_CURSOR' && err.param === 'cursor') return err.message
    throw err
  }
  throw new Error('accepted')
}

describe('cursor codec: the format', () => {
  it('encodes the payload and signature as worked out from the format', () => {
    const codec = new CursorCodec(SECRET)
    expect(codec.encode(R1, 'b1', { score: 3, ord: 41 })).toBe(cursorOf(JSON.stringify([1, R1, 'b1', 3, 41])))
  })

  it('binds the parts by the first 16 base64url characters of their sha256', () => {
    const expected = createHash('sha256').update(['a', '\u0000', '7'].join('\u0001')).digest('base64url').slice(0, 16)
    expect(CursorCodec.bind(['a', undefined, 7])).toBe(expected)
  })

  it('refuses a correctly signed payload that is not JSON as malformed', () => {
    const codec = new CursorCodec(SECRET)
    expect(refusal(() => codec.decode(cursorOf('[1,"x"')))).toBe('The cursor is malformed.')
    expect(codec.decode(cursorOf(JSON.stringify([1, R1, 'b', 0, 5])))).toEqual({ release: R1, binding: 'b', pos: { score: 0, ord: 5 } })
  })
})

describe('cursor codec: a list page', () => {
  const codec = new CursorCodec(SECRET)
  const items = ['a', 'b', 'c', 'd', 'e']

  it('pages a list by offset, each next cursor at the following item, the last page without one', () => {
    const first = codec.listPage(items, 2, R1, 'q', undefined)
    expect(first.items).toEqual(['a', 'b'])
    expect(first.page.returned).toBe(2)
    expect(first.page.limit).toBe(2)
    expect(codec.decode(first.page.nextCursor!)).toEqual({ release: R1, binding: 'q', pos: { score: 0, ord: 2 } })
    const second = codec.listPage(items, 2, R1, 'q', first.page.nextCursor!)
    expect(second.items).toEqual(['c', 'd'])
    expect(codec.decode(second.page.nextCursor!).pos).toEqual({ score: 0, ord: 4 })
    const last = codec.listPage(items, 2, R1, 'q', second.page.nextCursor!)
    expect(last).toEqual({ items: ['e'], page: { returned: 1, limit: 2, nextCursor: null } })
  })

  it('a page that ends the list exactly has no next cursor; a limit over the list returns it whole', () => {
    expect(codec.listPage(items.slice(0, 4), 2, R1, 'q', codec.encode(R1, 'q', { score: 0, ord: 2 }))).toEqual({ items: ['c', 'd'], page: { returned: 2, limit: 2, nextCursor: null } })
    expect(codec.listPage(items, 50, R1, 'q', undefined)).toEqual({ items, page: { returned: 5, limit: 50, nextCursor: null } })
  })

  it('a cursor at the end gives an empty page; one past it, or of another release or query, is refused', () => {
    expect(codec.listPage(items, 2, R1, 'q', codec.encode(R1, 'q', { score: 0, ord: 5 }))).toEqual({ items: [], page: { returned: 0, limit: 2, nextCursor: null } })
    expect(refusal(() => codec.listPage(items, 2, R1, 'q', codec.encode(R1, 'q', { score: 0, ord: 6 })))).toBe('The cursor points past the end of this list.')
    expect(refusal(() => codec.listPage(items, 2, R1, 'q', codec.encode(R2, 'q', { score: 0, ord: 2 })))).toBe('The cursor belongs to a different query.')
    expect(refusal(() => codec.listPage(items, 2, R1, 'q', codec.encode(R1, 'other', { score: 0, ord: 2 })))).toBe('The cursor belongs to a different query.')
  })
})
