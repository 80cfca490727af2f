import { createHash } from 'node:crypto'
import { closeSync, existsSync, fstatSync, mkdirSync, openSync, readdirSync, readSync, renameSync, rmSync, statSync, utimesSync, writeSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { versions } from 'node:process'
import type { CatalogPart, DocumentTarget, ParseProblem, Topic } from '../src/model/fact.js'
import type { EncodedChunk } from './encode.js'
import type { ArtifactRef } from './inventory.js'
import { writing } from './inventory.js'

/**
 * The parse cache, `<data dir>/cache/parse/<2>/<key>`: one file per parse unit holding what its
 * adapter and the encoder made of it, keyed by everything that shapes that (below). A build
 * parses only the units whose entry is missing, and copies every unit's chunks from here into the
 * release in canonical order, so the release is the same whether a unit was parsed now or before.
 *
 * File: MAGIC, then per chunk `u32 length, columns JSON, u32 length, terms, u32 block count,
 * (u32 length, block)*`, then the summary JSON, its u32 length and MAGIC. An entry that does not end
 * so is a miss. The terms (half a chunk's columns) are apart, one fact's to a line: the facts writer
 * never decodes them, the terms writer reads nothing else.
 */
const MAGIC = Buffer.from('hwfacts-parse-cache/2\n')

/** Where one chunk lies in its unit's cache file. */
export interface ChunkRef {
  target: string
  topic: Topic
  facts: number
  offset: number
  bytes: number
}

/** What a unit gave, apart from its facts (which stay in the file as chunks). */
export interface UnitSummary {
  targets: DocumentTarget[]
  parts: CatalogPart[]
  problems: ParseProblem[]
  /** Facts naming a target this unit does not give. */
  foreign: Array<{ target: string; name: string; file: string }>
  chunks: ChunkRef[]
}

/**
 * The key of a unit's entry: the cache format, what encodes facts (indexer format, zlib, which
 * packs the bodies), the adapter's name and version, and every artifact the adapter is given
 * (all it can read: an STM32 MCU file's unit holds the GPIO modes files it may name), with all
 * their inventory metadata.
 */
export function unitKey(encoder: string, adapter: { name: string; version?: string }, artifacts: readonly ArtifactRef[]): string {
  const h = createHash('sha256').update(MAGIC).update(`${encoder}\nzlib ${versions.zlib}\nadapter ${adapter.name} ${adapter.version ?? '1'}\n`)
  for (const a of artifacts) h.update(JSON.stringify(a)).update('\n')
  return h.digest('hex')
}

export function cachePath(dataRoot: string, key: string): string {
  return join(dataRoot, 'cache', 'parse', key.slice(0, 2), key)
}

const u32 = (n: number) => {
  const b = Buffer.allocUnsafe(4)
  b.writeUInt32LE(n)
  return b
}

/** Writes one entry as a temporary file, renamed into place when complete. */
export class CacheWriter {
  private readonly tmp: string
  private readonly fd: number
  private offset = 0
  private readonly chunks: ChunkRef[] = []

  constructor(private readonly file: string) {
    this.tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`
    this.fd = writing(file, () => {
      mkdirSync(dirname(file), { recursive: true })
      return openSync(this.tmp, 'w')
    })
    this.write([MAGIC])
  }

  private write(bufs: Buffer[]): void {
    writing(this.file, () => {
      for (const b of bufs) {
        for (let done = 0; done < b.length; ) done += writeSync(this.fd, b, done, b.length - done)
        this.offset += b.length
      }
    })
  }

  chunk(c: EncodedChunk): void {
    const { blocks, terms, ...columns } = c
    const json = Buffer.from(JSON.stringify(columns))
    // Terms are [a-z0-9 ]: a line break never occurs in them.
    const text = Buffer.from(terms.join('\n'))
    const start = this.offset
    const bufs: Buffer[] = [u32(json.length), json, u32(text.length), text, u32(blocks.length)]
    for (const b of blocks) bufs.push(u32(b.length), b)
    this.write(bufs)
    this.chunks.push({ target: c.target, topic: c.topic, facts: c.names.length, offset: start, bytes: this.offset - start })
  }

  finish(summary: Omit<UnitSummary, 'chunks'>): UnitSummary {
    const full: UnitSummary = { ...summary, chunks: this.chunks }
    const json = Buffer.from(JSON.stringify(full))
    this.write([json, u32(json.length), MAGIC])
    writing(this.file, () => {
      closeSync(this.fd)
      renameSync(this.tmp, this.file)
    })
    return full
  }

  abort(): void {
    try {
      closeSync(this.fd)
    } catch {
      // already closed
    }
    rmSync(this.tmp, { force: true })
  }
}

function readAt(fd: number, offset: number, length: number): Buffer {
  const b = Buffer.allocUnsafe(length)
  for (let done = 0; done < length; ) {
    const n = readSync(fd, b, done, length - done, offset + done)
    if (n === 0) throw new Error('truncated')
    done += n
  }
  return b
}

/** The entry's summary, or undefined when there is none or it is incomplete. A hit is touched (see pruneCache). */
export function readSummary(file: string): UnitSummary | undefined {
  if (!existsSync(file)) return undefined
  let fd: number | undefined
  try {
    fd = openSync(file, 'r')
    const size = fstatSync(fd).size
    const tail = readAt(fd, size - MAGIC.length - 4, MAGIC.length + 4)
    if (!tail.subarray(4).equals(MAGIC) || !readAt(fd, 0, MAGIC.length).equals(MAGIC)) return undefined
    const len = tail.readUInt32LE(0)
    const summary = JSON.parse(readAt(fd, size - MAGIC.length - 4 - len, len).toString('utf8')) as UnitSummary
    const now = new Date()
    utimesSync(file, now, now)
    return summary
  } catch {
    return undefined
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
}

/** A parse cache entry that cannot be read: never reported as a failed write (it carries no errno `code`). */
export class CacheReadError extends Error {
  constructor(file: string, err: unknown) {
    super(`parse cache entry ${file} cannot be read (${(err as Error).message}); remove it and index again`)
  }
}

/** Reads chunks of one entry. */
export class CacheReader {
  private readonly fd: number

  constructor(readonly file: string) {
    try {
      this.fd = openSync(file, 'r')
    } catch (err) {
      throw new CacheReadError(file, err)
    }
  }

  private guard<T>(f: () => T): T {
    try {
      return f()
    } catch (err) {
      throw new CacheReadError(this.file, err)
    }
  }

  /** The whole chunk. */
  read(ref: ChunkRef): EncodedChunk {
    const { columns, terms } = this.readParts(ref)
    return { ...columns, terms: splitTerms(terms.toString('utf8')) }
  }

  /** The chunk but its terms, which stay undecoded (what the facts writer needs). */
  readColumns(ref: ChunkRef): Omit<EncodedChunk, 'terms'> {
    return this.readParts(ref).columns
  }

  private readParts(ref: ChunkRef): { columns: Omit<EncodedChunk, 'terms'>; terms: Buffer } {
    return this.guard(() => {
      const b = readAt(this.fd, ref.offset, ref.bytes)
      let at = 0
      const next = () => {
        const len = b.readUInt32LE(at)
        at += 4
        return b.subarray((at += len) - len, at)
      }
      const json = next()
      const terms = next()
      const count = b.readUInt32LE(at)
      at += 4
      const blocks: Buffer[] = []
      for (let i = 0; i < count; i++) blocks.push(next())
      return { columns: { ...(JSON.parse(json.toString('utf8')) as Omit<EncodedChunk, 'terms' | 'blocks'>), blocks }, terms }
    })
  }

  /** Only the chunk's terms, one fact's to a line. */
  readTerms(ref: ChunkRef): string {
    return this.guard(() => {
      const columns = readAt(this.fd, ref.offset, 4).readUInt32LE(0)
      const at = ref.offset + 4 + columns
      return readAt(this.fd, at + 4, readAt(this.fd, at, 4).readUInt32LE(0)).toString('utf8')
    })
  }

  close(): void {
    closeSync(this.fd)
  }
}

/** The terms of each fact, from their stored lines. */
export function splitTerms(text: string): string[] {
  return text.split('\n')
}

/** Entries no build has used for this long are removed after a build. */
const CACHE_KEEP_MS = 14 * 24 * 3600 * 1000

export function pruneCache(dataRoot: string, now = Date.now()): void {
  const root = join(dataRoot, 'cache', 'parse')
  if (!existsSync(root)) return
  for (const d of readdirSync(root)) {
    for (const f of readdirSync(join(root, d))) {
      const p = join(root, d, f)
      try {
        // Temporary files of builds that died, and entries unused for long.
        if (now - statSync(p).mtimeMs > (f.endsWith('.tmp') ? 24 * 3600 * 1000 : CACHE_KEEP_MS)) rmSync(p, { force: true })
      } catch {
        // removed meanwhile by another build
      }
    }
  }
}
