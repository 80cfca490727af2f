import { createHash } from 'node:crypto'
import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  archiveBytes,
  archivedArtifact,
  fileSha256,
  InventoryError,
  readInventory,
  sha256Hex,
  verifyArtifacts,
  WriteError,
  writing,
  type InventoryRecord
} from '../../indexer/inventory.js'
import { DataDir } from '../../src/store/layout.js'
import { scratchDirs } from '../helpers/scratch.js'

/**
 * The source inventory and the content archive (indexer/inventory.ts) on small files written here.
 * Expected digests are computed by node:crypto over the bytes the test wrote; the rules are the
 * inventory's documented ones (a record's path inside the corpus, a 64-hex lowercase sha256, kind,
 * publisher and license required, no duplicate; bytes that do not match the inventory are fatal; an
 * archived file is checked again on every read).
 */

const tmp = scratchDirs()
const sha = (b: Buffer | string) => createHash('sha256').update(b).digest('hex')

function record(path: string, content: string, over: Partial<InventoryRecord> = {}): InventoryRecord {
  return { path, sha256: sha(content), bytes: Buffer.byteLength(content), kind: 'svd', publisher: 'P', license: 'MIT', mediaType: 'text/xml', ...over }
}
/** A corpus directory with these files and a sources.json listing `records` (default: one per file). */
function corpus(files: Record<string, string>, records?: unknown[]): string {
  const dir = tmp()
  for (const [p, c] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, p)), { recursive: true })
    writeFileSync(join(dir, p), c)
  }
  writeFileSync(join(dir, 'sources.json'), JSON.stringify({ sources: records ?? Object.entries(files).map(([p, c]) => record(p, c)) }))
  return dir
}
const refused = (f: () => unknown): string => {
  try {
    f()
  } catch (e) {
    expect(e).toBeInstanceOf(InventoryError)
    return (e as Error).message
  }
  throw new Error('not refused')
}

describe('readInventory', () => {
  it('reads sources.json of a directory, or the file named; records sorted by path; root is its directory', () => {
    const dir = corpus({ 'a/y.svd': 'y', 'c.svd': 'c', 'b/x.svd': 'x', 'a/b.svd': 'b', 'a/z.svd': 'z' })
    const inv = readInventory(dir)
    expect(inv.root).toBe(dir)
    expect(inv.records.map((r) => r.path)).toEqual(['a/b.svd', 'a/y.svd', 'a/z.svd', 'b/x.svd', 'c.svd'])
    expect(readInventory(join(dir, 'sources.json')).records).toEqual(inv.records)
  })

  it('refuses a missing file, text that is not JSON, and JSON without a sources array', () => {
    const dir = tmp()
    expect(refused(() => readInventory(join(dir, 'none.json')))).toBe(`no source inventory at ${join(dir, 'none.json')}`)
    expect(refused(() => readInventory(dir))).toBe(`no source inventory at ${join(dir, 'sources.json')}`)
    writeFileSync(join(dir, 'sources.json'), '{"sources": [')
    expect(refused(() => readInventory(dir))).toMatch(new RegExp(`^${join(dir, 'sources.json')}: not JSON \\(.+\\)$`))
    for (const doc of ['{}', '{"sources": {}}', 'null']) {
      writeFileSync(join(dir, 'sources.json'), doc)
      expect(refused(() => readInventory(dir)), doc).toBe(`${join(dir, 'sources.json')}: no "sources" array`)
    }
  })

  it('refuses a record without a path inside the corpus, naming its index', () => {
    for (const path of ['../x.svd', 'a/../../x.svd', '/etc/passwd', 7, undefined]) {
      const dir = corpus({}, [record('a.svd', 'a'), { ...record('b.svd', 'b'), path }])
      expect(refused(() => readInventory(dir)), String(path)).toBe(`${join(dir, 'sources.json')}: sources[1]: bad path`)
    }
    const dir = corpus({}, [null])
    expect(refused(() => readInventory(dir))).toBe(`${join(dir, 'sources.json')}: sources[0]: bad path`)
  })

  it('refuses a sha256 that is not 64 lowercase hex digits', () => {
    const good = sha('a')
    for (const sha256 of [good.toUpperCase(), good.slice(1), `${good}0`, `0${good}`, `${good.slice(1)}g`, ` ${good.slice(1)}`, 42]) {
      const dir = corpus({}, [record('a.svd', 'a', { sha256: sha256 as string })])
      expect(refused(() => readInventory(dir)), String(sha256)).toBe(`${join(dir, 'sources.json')}: sources[0] (a.svd): sha256 must be 64 lowercase hex`)
    }
  })

  it('refuses a record without kind, publisher or license (each a string)', () => {
    for (const member of ['kind', 'publisher', 'license']) {
      for (const value of [undefined, 1]) {
        const dir = corpus({}, [{ ...record('a.svd', 'a'), [member]: value }])
        expect(refused(() => readInventory(dir)), `${member} ${value}`).toBe(`${join(dir, 'sources.json')}: sources[0] (a.svd): kind, publisher and license are required`)
      }
    }
  })

  it('refuses a path listed twice, naming the second', () => {
    const dir = corpus({}, [record('a.svd', 'a'), record('b.svd', 'b'), record('a.svd', 'c')])
    expect(refused(() => readInventory(dir))).toBe(`${join(dir, 'sources.json')}: sources[2]: duplicate path a.svd`)
  })
})

describe('digests', () => {
  it('fileSha256 reads a file of several megabytes whole, and an empty one', () => {
    const dir = tmp()
    const big = Buffer.alloc((5 << 20) / 2 + 123)
    for (let i = 0; i < big.length; i++) big[i] = (i * 7919) & 0xff
    writeFileSync(join(dir, 'big'), big)
    writeFileSync(join(dir, 'empty'), '')
    expect(fileSha256(join(dir, 'big'))).toEqual({ sha256: sha(big), bytes: big.length })
    expect(fileSha256(join(dir, 'empty'))).toEqual({ sha256: sha(''), bytes: 0 })
    // Its descriptor is closed (an index reads thousands of files).
    if (existsSync('/proc/self/fd')) {
      const open = readdirSync('/proc/self/fd').length
      for (let i = 0; i < 20; i++) fileSha256(join(dir, 'empty'))
      expect(readdirSync('/proc/self/fd').length).toBe(open)
    }
    expect(sha256Hex(Buffer.from('abc'))).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad')
  })
})

describe('failed writes', () => {
  const sys = (message: string, code?: unknown) => Object.assign(new Error(message), code === undefined ? {} : { code })
  it('WriteError names the file, the code once, and the first line of the message', () => {
    expect(WriteError.of('/d/f', sys('no space left on device, write', 'ENOSPC')).message).toBe('cannot write /d/f: ENOSPC: no space left on device, write')
    expect(WriteError.of('/d/f', sys('ENOSPC: no space left on device', 'ENOSPC')).message).toBe('cannot write /d/f: ENOSPC: no space left on device')
    expect(WriteError.of('/d/f', sys('disk I/O error\nat line 2')).message).toBe('cannot write /d/f: disk I/O error')
    const inner = new WriteError('cannot write /other: EIO')
    expect(WriteError.of('/d/f', inner)).toBe(inner)
  })
  it('writing passes the result, turns a coded failure into a WriteError, and lets other errors through unchanged', () => {
    expect(writing('/d/f', () => 5)).toBe(5)
    const coded = sys('database or disk is full', 'SQLITE_FULL')
    expect(() =>
      writing('/d/f', () => {
        throw coded
      })
    ).toThrow(new WriteError('cannot write /d/f: SQLITE_FULL: database or disk is full'))
    for (const bug of [new TypeError('x is undefined'), sys('numeric code', 28)]) {
      let thrown: unknown
      try {
        writing('/d/f', () => {
          throw bug
        })
      } catch (e) {
        thrown = e
      }
      expect(thrown).toBe(bug)
    }
  })
})

describe('the archive', () => {
  it('stores bytes read-only under archive/sha256/<2>/<digest>; a second store is a no-op', () => {
    const data = new DataDir(tmp())
    const bytes = Buffer.from('hello archive')
    const d = sha(bytes)
    archiveBytes(data, d, bytes)
    const file = join(data.root, 'archive', 'sha256', d.slice(0, 2), d)
    expect(readFileSync(file)).toEqual(bytes)
    expect(statSync(file).mode & 0o777).toBe(0o444)
    archiveBytes(data, d, Buffer.from('other bytes'))
    expect(readFileSync(file)).toEqual(bytes)
    expect(readdirSync(dirname(file))).toEqual([d])
  })

  it('a failed write names the archive file and leaves no temporary file behind', () => {
    const data = new DataDir(tmp())
    const bytes = Buffer.from('x')
    const d = sha(bytes)
    const target = data.archivePath(d)
    mkdirSync(dirname(target), { recursive: true })
    // The temporary file is a link to /dev/full: the write fails as on a full disk.
    symlinkSync('/dev/full', `${target}.${process.pid}.tmp`)
    expect(() => archiveBytes(data, d, bytes)).toThrow(new RegExp(`^cannot write ${target}: ENOSPC: `))
    expect(readdirSync(dirname(target))).toEqual([])
    // A directory that cannot be made: a file stands where it should be.
    const blocked = new DataDir(tmp())
    writeFileSync(join(blocked.root, 'archive'), '')
    let err: unknown
    try {
      archiveBytes(blocked, d, bytes)
    } catch (e) {
      err = e
    }
    expect(err).toBeInstanceOf(WriteError)
    expect((err as Error).message).toMatch(new RegExp(`^cannot write ${blocked.archivePath(d)}: E`))
  })

  it('verifyArtifacts checks every file against its record, archives it, and reports each', () => {
    const files = { 'b.svd': 'bee', 'a/c.svd': 'sea' }
    const dir = corpus(files, [record('b.svd', 'bee'), { ...record('a/c.svd', 'sea'), bytes: undefined }])
    const data = new DataDir(tmp())
    const seen: string[] = []
    const refs = verifyArtifacts(readInventory(dir), data, (r) => seen.push(r.path))
    expect(seen).toEqual(['a/c.svd', 'b.svd'])
    expect(refs.map((r) => [r.path, r.bytes, r.sha256])).toEqual([
      ['a/c.svd', 3, sha('sea')],
      ['b.svd', 3, sha('bee')]
    ])
    for (const [, c] of Object.entries(files)) expect(readFileSync(data.archivePath(sha(c)), 'utf8')).toBe(c)
    expect(verifyArtifacts(readInventory(dir), data)).toEqual(refs)
  })

  it('verifyArtifacts refuses a missing file, other bytes, or another size', () => {
    const data = new DataDir(tmp())
    expect(refused(() => verifyArtifacts(readInventory(corpus({}, [record('gone.svd', 'x')])), data))).toBe('gone.svd: cannot read (ENOENT)')
    const changed = corpus({ 'a.svd': 'new' }, [record('a.svd', 'old')])
    expect(refused(() => verifyArtifacts(readInventory(changed), data))).toBe(`a.svd: sha256 ${sha('new')} does not match the inventory's ${sha('old')}`)
    const sized = corpus({ 'a.svd': 'abc' }, [record('a.svd', 'abc', { bytes: 4 })])
    expect(refused(() => verifyArtifacts(readInventory(sized), data))).toBe('a.svd: 3 bytes, the inventory says 4')
    // Nothing refused was archived.
    expect(existsSync(data.archivePath(sha('new')))).toBe(false)
    expect(existsSync(data.archivePath(sha('abc')))).toBe(false)
  })

  it('an archived artifact is read from the archive and its sha256 checked again on every read', () => {
    const data = new DataDir(tmp())
    const bytes = Buffer.from('archived content')
    const d = sha(bytes)
    archiveBytes(data, d, bytes)
    const ref = { ...record('p/a.svd', 'archived content') }
    const a = archivedArtifact(data, ref)
    expect(a.content).toEqual(bytes)
    expect({ ...a }.content).toEqual(bytes)
    expect(a.path).toBe('p/a.svd')
    // The archive file damaged after it was stored: the next read refuses it.
    const file = data.archivePath(d)
    chmodSync(file, 0o644)
    writeFileSync(file, 'archived c0ntent')
    expect(refused(() => a.content)).toBe(`${file} (p/a.svd): archived bytes hash to ${sha('archived c0ntent')}, not ${d}`)
  })
})
