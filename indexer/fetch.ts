import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import type { DataDir } from '../src/store/layout.js'
import { archiveBytes, InventoryError, readInventory, sha256Hex, type InventoryRecord } from './inventory.js'

/** The raw-bytes address of an upstream record: a GitHub `blob` page becomes its raw file. */
export function rawUrl(r: InventoryRecord, mirror?: string): string | undefined {
  if (mirror) return new URL(r.path, mirror.endsWith('/') ? mirror : mirror + '/').href
  const u = r.upstream
  if (!u) return undefined
  if (u.rawUrl) return u.rawUrl
  const m = u.url?.match(/^https:\/\/github\.com\/([^/]+)\/([^/]+)\/blob\/([^/]+)\/(.+)$/)
  if (m) return `https://raw.githubusercontent.com/${m[1]}/${m[2]}/${m[3]}/${m[4]}`
  return u.url
}

export interface FetchResult {
  fetched: number
  failures: Array<{ path: string; reason: string }>
}

/**
 * Downloads every artifact of an inventory, checks its sha256 and archives it by content; with
 * `outDir` it also lays the files out beside a copy of the inventory, ready for `hwfacts index`.
 */
export async function fetchSources(
  inventoryPath: string,
  data: DataDir,
  opts: { mirror?: string; outDir?: string; onEach?: (path: string) => void } = {}
): Promise<FetchResult> {
  const inv = readInventory(inventoryPath)
  const failures: FetchResult['failures'] = []
  let fetched = 0
  for (const r of inv.records) {
    const url = rawUrl(r, opts.mirror)
    if (!url) {
      failures.push({ path: r.path, reason: 'no upstream URL' })
      continue
    }
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(60_000) })
      if (!res.ok) throw new InventoryError(`HTTP ${res.status}`)
      const bytes = Buffer.from(await res.arrayBuffer())
      const actual = sha256Hex(bytes)
      if (actual !== r.sha256) throw new InventoryError(`sha256 ${actual} does not match the inventory's ${r.sha256}`)
      archiveBytes(data, r.sha256, bytes)
      if (opts.outDir) {
        const file = join(opts.outDir, r.path)
        mkdirSync(dirname(file), { recursive: true })
        writeFileSync(file, bytes)
      }
      fetched++
      opts.onEach?.(r.path)
    } catch (err) {
      failures.push({ path: r.path, reason: `${url}: ${(err as Error).message}` })
    }
  }
  if (opts.outDir) writeFileSync(join(opts.outDir, 'sources.json'), JSON.stringify({ format: 'hwfacts-source-inventory/1', sources: inv.records }, null, 1) + '\n')
  return { fetched, failures }
}
