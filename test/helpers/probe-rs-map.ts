import { readFileSync } from 'node:fs'
import { isMap, isSeq, parseDocument, type YAMLMap } from 'yaml'

/**
 * A probe-rs variant's memory map as the yaml package reads the raw file (not the reader): each
 * region's tag (`!Nvm`, `!Ram`, `!Generic`), range, name and alias flag.
 */
export function probeRsMap(file: string, variant: string): { tag: string; start: number; end: number; name?: string; alias: boolean }[] {
  const doc = parseDocument(readFileSync(file, 'utf8'), { logLevel: 'silent' })
  const v = (doc.get('variants') as { items: YAMLMap[] }).items.find((x) => x.get('name') === variant)!
  const map = v.get('memory_map', true)
  if (!isSeq(map)) throw new Error('no memory map')
  return map.items.map((r) => {
    if (!isMap(r)) throw new Error('region is no map')
    const range = r.get('range') as YAMLMap
    return { tag: r.tag!, start: range.get('start') as number, end: range.get('end') as number, ...(r.get('name') ? { name: r.get('name') as string } : {}), alias: r.get('is_alias') === true }
  })
}
