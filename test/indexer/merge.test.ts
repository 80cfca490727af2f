import { describe, expect, it } from 'vitest'
import { mergeSources } from '../../indexer/sources/merge.js'
import { svdAdapter } from '../../indexer/sources/svd.js'
import type { LoadedArtifact } from '../../indexer/sources/types.js'
import type { FactDraft } from '../../src/model/fact.js'

const sha = (c: string) => c.repeat(64)
function svdFile(path: string, registers: Array<[string, string]>, extra = ''): LoadedArtifact {
  const text = [
    '<device><name>MB9AF10xN</name>',
    '<peripherals><peripheral><name>P</name><baseAddress>0x40000000</baseAddress>',
    '<registers>',
    ...registers.map(([n, off]) => `<register><name>${n}</name><addressOffset>${off}</addressOffset></register>`),
    '</registers></peripheral>' + extra + '</peripherals></device>'
  ].join('\n')
  const content = Buffer.from(text)
  return { path, sha256: sha(path.startsWith('svd/Fujitsu') ? 'a' : 'b'), bytes: content.length, kind: 'cmsis-svd', publisher: 'x', license: 'x', mediaType: 'application/xml', content }
}
const byName = (facts: FactDraft[]) => Object.fromEntries(facts.map((f) => [f.name + (f.scope.source ? `@${f.scope.source}` : ''), f]))

describe('one device, several sources (Fujitsu and Spansion MB9 SVDs)', () => {
  const fujitsu = svdFile('svd/Fujitsu/MB9AF10xN.svd', [['A', '0'], ['B', '4'], ['C', '8']])
  const spansion = svdFile('svd/Spansion/MB9AF10xN.svd', [['A', '0'], ['B', '0xC']], '<peripheral><name>Q</name><baseAddress>0x50000000</baseAddress></peripheral>')

  it('is one unit and one target listing every source', () => {
    expect(svdAdapter.units!([fujitsu, spansion])).toEqual([[fujitsu, spansion]])
    const r = svdAdapter.parse([fujitsu, spansion])
    expect(r.targets.map((t) => [t.key, t.device, t.sources])).toEqual([
      ['svd:Fujitsu/MB9AF10xN+Spansion/MB9AF10xN', 'MB9AF10xN', [{ sourcePath: 'svd/Fujitsu/MB9AF10xN.svd', sourceSha256: sha('a') }, { sourcePath: 'svd/Spansion/MB9AF10xN.svd', sourceSha256: sha('b') }]]
    ])
  })

  it('a fact both give alike is one fact with both evidences (agree); given differently, one per source (disagree); given by one, as it gives it', () => {
    const f = byName(svdAdapter.parse([fujitsu, spansion]).facts)
    // P.A: offset 0 in both.
    expect(f['P.A']!.agreement).toBe('agree')
    expect(f['P.A']!.evidence.map((e) => e.sourcePath)).toEqual(expect.arrayContaining(['svd/Fujitsu/MB9AF10xN.svd', 'svd/Spansion/MB9AF10xN.svd']))
    // P.B: 0x40000004 in Fujitsu's, 0x4000000C in Spansion's: no value picked.
    expect(f['P.B']).toBeUndefined()
    expect(f['P.B@svd/Fujitsu/MB9AF10xN.svd']).toMatchObject({ agreement: 'disagree', value: { address: '0x40000004' } })
    expect(f['P.B@svd/Spansion/MB9AF10xN.svd']).toMatchObject({ agreement: 'disagree', value: { address: '0x4000000C' } })
    // P.C only in Fujitsu's, Q only in Spansion's.
    expect(f['P.C']!.agreement).toBeUndefined()
    expect(f['P.C']!.evidence.every((e) => e.sourcePath === 'svd/Fujitsu/MB9AF10xN.svd')).toBe(true)
    expect(f['Q']!.evidence.every((e) => e.sourcePath === 'svd/Spansion/MB9AF10xN.svd')).toBe(true)
    for (const x of Object.values(f)) expect(x.target).toBe('svd:Fujitsu/MB9AF10xN+Spansion/MB9AF10xN')
  })

  it('a single source is left as it is', () => {
    const one = svdAdapter.parse([fujitsu])
    expect(mergeSources([one], 'svd:')).toEqual(one)
    expect(one.facts.every((x) => x.agreement === undefined)).toBe(true)
  })
})
