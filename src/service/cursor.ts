import { createHmac, createSecretKey, hash, timingSafeEqual, type KeyObject } from 'node:crypto'
import { ServiceError } from './errors.js'

export interface CursorPosition {
  score: number
  ord: number
}

/** Where a page of a ranked list is (ListPage in src/schemas/responses.ts). */
export interface ListPage {
  returned: number
  limit: number
  nextCursor: string | null
}

export interface DecodedCursor {
  release: string
  binding: string
  pos: CursorPosition
}

/**
 * Opaque paging cursors: the position plus the release and a digest of the query they belong to,
 * HMAC-signed so an altered or transplanted cursor is refused instead of paging something else.
 */
export class CursorCodec {
  // A KeyObject, made once: an HMAC keyed by one is cheaper than one keyed by raw bytes.
  private readonly key: KeyObject

  constructor(secret: string) {
    this.key = createSecretKey(hash('sha256', `hwfacts-cursor\0${secret}`, 'buffer'))
  }

  /** A short digest of everything that defines a result set, except the page position. */
  static bind(parts: ReadonlyArray<string | number | undefined>): string {
    return hash('sha256', parts.map((p) => (p === undefined ? '\u0000' : String(p))).join('\u0001'), 'base64url').slice(0, 16)
  }

  private mac(payload: string): string {
    return createHmac('sha256', this.key).update(payload).digest('base64url').slice(0, 22)
  }

  encode(release: string, binding: string, pos: CursorPosition): string {
    const payload = Buffer.from(JSON.stringify([1, release, binding, pos.score, pos.ord])).toString('base64url')
    return `${payload}.${this.mac(payload)}`
  }

  /**
   * One page of a ranked list (resolve's candidates, catalog search's results): `limit` items from
   * the cursor's position on, and the cursor of the rest, in the format of every other page; the
   * position is the offset of the next item (`ord`). The cursor must be this list's: same release
   * and binding.
   */
  listPage<T>(items: readonly T[], limit: number, release: string, binding: string, cursor: string | undefined): { items: T[]; page: ListPage } {
    const decoded = cursor === undefined ? undefined : this.decode(cursor)
    if (decoded && (decoded.release !== release || decoded.binding !== binding)) throw new ServiceError('INVALID_CURSOR', 'The cursor belongs to a different query.', 'cursor')
    const start = decoded?.pos.ord ?? 0
    if (start > items.length) throw new ServiceError('INVALID_CURSOR', 'The cursor points past the end of this list.', 'cursor')
    const page = items.slice(start, start + limit)
    const end = start + page.length
    return { items: page, page: { returned: page.length, limit, nextCursor: end < items.length ? this.encode(release, binding, { score: 0, ord: end }) : null } }
  }

  /** Checks the signature and shape; the caller checks release and binding against its request. */
  decode(cursor: string): DecodedCursor {
    const invalid = (why: string) => new ServiceError('INVALID_CURSOR', `The cursor ${why}.`, 'cursor')
    const dot = cursor.indexOf('.')
    if (dot <= 0) throw invalid('is malformed')
    const payload = cursor.slice(0, dot)
    const mac = Buffer.from(cursor.slice(dot + 1))
    const expected = Buffer.from(this.mac(payload))
    if (mac.length !== expected.length || !timingSafeEqual(mac, expected)) throw invalid('was altered or was not issued by this service')
    let v: unknown
    try {
      v = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'))
    } catch {
      throw invalid('is malformed')
    }
    if (!Array.isArray(v) || v[0] !== 1 || typeof v[1] !== 'string' || typeof v[2] !== 'string' || typeof v[3] !== 'number' || typeof v[4] !== 'number')
      throw invalid('is malformed')
    return { release: v[1], binding: v[2], pos: { score: v[3], ord: v[4] } }
  }
}
