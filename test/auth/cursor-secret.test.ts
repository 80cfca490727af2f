import { chmodSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { cursorSecret } from '../../src/auth/cursor-secret.js'
import { scratchDirs } from '../helpers/scratch.js'

/** The HMAC key of cursors (src/auth/cursor-secret.ts): never a short one, never one others can read. */
const tmp = scratchDirs()

function withFile(content: string, mode = 0o600): string {
  const dir = tmp('hwfacts-secret-')
  writeFileSync(join(dir, 'cursor-secret'), content, { mode })
  chmodSync(join(dir, 'cursor-secret'), mode)
  return dir
}

describe('the cursor secret file', () => {
  it('is refused when empty or shorter than 32 bytes, naming the file and its length', () => {
    expect(() => cursorSecret(withFile(''), undefined)).toThrow(/cursor-secret is 0 bytes long, shorter than 32/)
    expect(() => cursorSecret(withFile('\n'), undefined)).toThrow(/is 0 bytes long/)
    // 31 ASCII characters plus the newline a file usually ends with: 31 bytes of key.
    expect(() => cursorSecret(withFile('a'.repeat(31) + '\n'), undefined)).toThrow(/is 31 bytes long/)
    // The file is left as the operator wrote it (not replaced behind their back).
    const dir = withFile('short')
    expect(() => cursorSecret(dir, undefined)).toThrow()
    expect(readFileSync(join(dir, 'cursor-secret'), 'utf8')).toBe('short')
  })

  it('is used at 32 bytes', () => {
    expect(cursorSecret(withFile('b'.repeat(32) + '\n'), undefined).secret).toBe('b'.repeat(32))
  })

  it('is refused when others may read or write it, naming the mode', () => {
    const good = 'c'.repeat(40)
    expect(() => cursorSecret(withFile(good, 0o644), undefined)).toThrow(/mode 0644; it must be 0600/)
    expect(() => cursorSecret(withFile(good, 0o640), undefined)).toThrow(/mode 0640/)
    expect(() => cursorSecret(withFile(good, 0o602), undefined)).toThrow(/mode 0602/)
    expect(cursorSecret(withFile(good, 0o400), undefined).secret).toBe(good)
  })

  it('is made once, 0600, with no temporary file left behind', () => {
    const dir = tmp('hwfacts-secret-')
    const s = cursorSecret(dir, undefined)
    expect(s.source).toMatch(/generated now/)
    // 32 random bytes in base64url: 43 characters.
    expect(s.secret).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(statSync(join(dir, 'cursor-secret')).mode & 0o777).toBe(0o600)
    expect(readdirSync(dir)).toEqual(['cursor-secret'])
    expect(cursorSecret(dir, undefined)).toEqual({ secret: s.secret, source: join(dir, 'cursor-secret') })
  })
})

describe('HWFACTS_CURSOR_SECRET', () => {
  it('is refused when shorter than 32 bytes (counted in UTF-8)', () => {
    expect(() => cursorSecret(tmp(), 'x'.repeat(31))).toThrow(/HWFACTS_CURSOR_SECRET is 31 bytes long/)
    // 16 two-byte characters are 32 bytes.
    expect(cursorSecret(tmp(), 'é'.repeat(16)).secret).toBe('é'.repeat(16))
  })
})
