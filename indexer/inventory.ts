import { createHash } from 'node:crypto'
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, readSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import type { DataDir } from '../src/store/layout.js'
import type { SourceMeta } from '../src/model/source.js'
import type { LoadedArtifact } from './sources/types.js'

export type InventoryRecord = SourceMeta

export interface Inventory {
  /** Directory the records' paths are relative to. */
  root: string
  records: InventoryRecord[]
}

export class InventoryError extends Error {}

const SHA256 = /^[a-f0-9]{64}$/

/** Reads `sources.json` (or the one inside a sources directory) and checks every record's shape. */
export function readInventory(location: string): Inventory {
  let file = resolve(location)
  if (existsSync(file) && statSync(file).isDirectory()) file = join(file, 'sources.json')
  if (!existsSync(file)) throw new InventoryError(`no source inventory at ${file}`)
  let doc: { sources?: unknown } | null
  try {
    doc = JSON.parse(readFileSync(file, 'utf8')) as { sources?: unknown } | null
  } catch (err) {
    throw new InventoryError(`${file}: not JSON (${(err as Error).message})`)
  }
  const sources = doc?.sources
  if (!Array.isArray(sources)) throw new InventoryError(`${file}: no "sources" array`)
  const seen = new Set<string>()
  const records = sources.map((r: InventoryRecord, i: number) => {
    const where = `${file}: sources[${i}]`
    if (typeof r?.path !== 'string' || r.path.includes('..') || r.path.startsWith('/')) throw new InventoryError(`${where}: bad path`)
    if (typeof r.sha256 !== 'string' || !SHA256.test(r.sha256)) throw new InventoryError(`${where} (${r.path}): sha256 must be 64 lowercase hex`)
    if (typeof r.kind !== 'string' || typeof r.publisher !== 'string' || typeof r.license !== 'string')
      throw new InventoryError(`${where} (${r.path}): kind, publisher and license are required`)
    if (seen.has(r.path)) throw new InventoryError(`${where}: duplicate path ${r.path}`)
    seen.add(r.path)
    return r
  })
  records.sort((a, b) => (a.path < b.path ? -1 : 1))
  return { root: dirname(file), records }
}

/** SHA-256 of a file, read a megabyte at a time. */
export function fileSha256(file: string): { sha256: string; bytes: number } {
  const h = createHash('sha256')
  const buf = Buffer.allocUnsafe(1 << 20)
  const fd = openSync(file, 'r')
  let bytes = 0
  try {
    for (let n; (n = readSync(fd, buf, 0, buf.length, null)) > 0; bytes += n) h.update(buf.subarray(0, n))
  } finally {
    closeSync(fd)
  }
  return { sha256: h.digest('hex'), bytes }
}

export function sha256Hex(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex')
}

/** A write the build could not make (disk full, I/O error): one line naming the file. */
export class WriteError extends Error {
  static of(file: string, err: unknown): WriteError {
    if (err instanceof WriteError) return err
    const e = err as Error & { code?: string }
    return new WriteError(`cannot write ${file}: ${e.code && !e.message.includes(e.code) ? `${e.code}: ` : ''}${e.message.split('\n')[0]}`)
  }
}

/**
 * Runs a write, turning a failure of the system or of SQLite (an error with a string `code`:
 * ENOSPC, EIO, SQLITE_FULL, SQLITE_IOERR_WRITE, …) into a WriteError naming `file`; other errors
 * (bugs, bad data) pass unchanged.
 */
export function writing<T>(file: string, f: () => T): T {
  try {
    return f()
  } catch (err) {
    throw typeof (err as { code?: unknown }).code === 'string' ? WriteError.of(file, err) : err
  }
}

/** Stores bytes under their digest; a second store of the same content is a no-op. */
export function archiveBytes(data: DataDir, sha256: string, bytes: Buffer): void {
  const target = data.archivePath(sha256)
  if (existsSync(target)) return
  const tmp = `${target}.${process.pid}.tmp`
  writing(target, () => {
    mkdirSync(dirname(target), { recursive: true })
    try {
      writeFileSync(tmp, bytes, { mode: 0o444 })
      renameSync(tmp, target)
    } catch (err) {
      rmSync(tmp, { force: true })
      throw err
    }
  })
}

/** An inventory record whose bytes were verified and archived: its content is read when needed. */
export type ArtifactRef = InventoryRecord & { bytes: number }

/**
 * Reads each artifact, checks size and sha256 against the inventory and archives it by content,
 * one at a time: nothing of its bytes is kept. Any mismatch is fatal: a release is never built
 * from bytes other than those inventoried.
 */
export function verifyArtifacts(inv: Inventory, data: DataDir, onEach?: (r: InventoryRecord) => void): ArtifactRef[] {
  return inv.records.map((r) => {
    const file = join(inv.root, r.path)
    let content: Buffer
    try {
      content = readFileSync(file)
    } catch (err) {
      throw new InventoryError(`${r.path}: cannot read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`)
    }
    const actual = sha256Hex(content)
    if (actual !== r.sha256) throw new InventoryError(`${r.path}: sha256 ${actual} does not match the inventory's ${r.sha256}`)
    if (typeof r.bytes === 'number' && r.bytes !== content.length)
      throw new InventoryError(`${r.path}: ${content.length} bytes, the inventory says ${r.bytes}`)
    archiveBytes(data, r.sha256, content)
    onEach?.(r)
    return { ...r, bytes: content.length }
  })
}

/**
 * The artifact as adapters see it, its content read from the archive on each access and checked
 * against its sha256 again (an archived file is never trusted blindly). Adapters read each file
 * once, so nothing is held beyond the adapter's own use of it.
 */
export function archivedArtifact(data: DataDir, ref: ArtifactRef): LoadedArtifact {
  const file = data.archivePath(ref.sha256)
  return Object.defineProperty({ ...ref }, 'content', {
    enumerable: true,
    get(): Buffer {
      const content = readFileSync(file)
      const actual = sha256Hex(content)
      if (actual !== ref.sha256) throw new InventoryError(`${file} (${ref.path}): archived bytes hash to ${actual}, not ${ref.sha256}`)
      return content
    }
  }) as LoadedArtifact
}
