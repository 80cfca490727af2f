import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { buildRelease } from '../indexer/build.js'
import { readInventory } from '../indexer/inventory.js'
import { bareParse } from '../indexer/xml.js'
import { median } from './lib.js'

export interface IndexingResult {
  facts: number
  buildS: number
  stagesMs: Record<string, number>
  bareXmlParseS: number
  ratio: number
}

/**
 * The whole corpus into a fresh data dir, beside a bare saxes parse of the same XML files (the
 * floor any XML-based indexer pays). Bare parse: median of 3; the build runs once (it is long).
 */
export async function benchIndexing(inventory: string, dataDir: string): Promise<IndexingResult> {
  const inv = readInventory(inventory)
  const xml = inv.records.filter((r) => r.mediaType.includes('xml') || /\.(svd|xml)$/i.test(r.path)).map((r) => readFileSync(join(inv.root, r.path), 'utf8'))
  const bare: number[] = []
  for (let i = 0; i < 3; i++) {
    const t = performance.now()
    for (const s of xml) bareParse(s)
    bare.push(performance.now() - t)
  }
  const t = performance.now()
  const r = await buildRelease({ inventory, dataDir })
  const buildMs = performance.now() - t
  const bareMs = median(bare)
  return { facts: r.manifest.counts.facts, buildS: +(buildMs / 1000).toFixed(1), stagesMs: r.timingsMs, bareXmlParseS: +(bareMs / 1000).toFixed(2), ratio: +(buildMs / bareMs).toFixed(1) }
}
