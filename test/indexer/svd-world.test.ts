import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { parseSvd } from '../../indexer/sources/svd.js'

/*
 * The SVD adapter over a real file of the world corpus whose peripheral has several <registers>
 * blocks. The expected registers are counted from the raw text here, not from the adapter.
 */

const here = path.dirname(fileURLToPath(import.meta.url))
const world = path.resolve(here, '../../.cache/corpus-world')
const MSP432 = 'svd/TexasInstruments/MSP432P401R.svd'

describe('svd over the world corpus', () => {
  it(`${MSP432}: every <register> of SystemControlSpace, across its seven <registers> blocks, is a fact`, (ctx) => {
    const file = path.join(world, MSP432)
    if (!existsSync(file)) {
      console.log(`[svd-world] ${file} is absent (the world corpus is not unpacked): not tested`)
      return ctx.skip()
    }
    const content = readFileSync(file)
    const text = content.toString('utf8')
    // The peripheral's own text: from its <name> to the next </peripheral>.
    const start = text.indexOf('<name>SystemControlSpace</name>')
    const own = text.slice(start, text.indexOf('</peripheral>', start))
    expect(own.match(/<registers>/g)).toHaveLength(7)
    const names = [...own.matchAll(/<register>\s*<name>([^<]+)<\/name>/g)].map((m) => m[1] as string)
    expect(names).toHaveLength(own.match(/<register[\s>]/g)!.length)
    expect(names).toHaveLength(83)
    expect(new Set(names).size).toBe(83)

    const r = parseSvd({ path: MSP432, sha256: 'f'.repeat(64), bytes: content.length, kind: 'cmsis-svd', publisher: 'Texas Instruments', license: 'BSD-3-Clause', mediaType: 'application/xml', content })
    const registers = r.facts.filter((f) => f.name.startsWith('SystemControlSpace.') && 'address' in f.value).map((f) => f.name)
    expect(registers).toEqual(names.map((n) => 'SystemControlSpace.' + n))
    expect(r.problems.filter((p) => p.reason.includes('SystemControlSpace'))).toEqual([])
  })
})
