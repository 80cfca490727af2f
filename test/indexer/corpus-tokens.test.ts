import { countTokens as reference } from 'gpt-tokenizer/encoding/cl100k_base'
import { describe, expect, it } from 'vitest'
import { DataDir } from '../../src/store/layout.js'
import { readStoredFacts } from '../../src/store/sqlite/store.js'
import { corpusDataDir } from '../helpers/corpus-release.js'

describe('the corpus release', () => {
  it('stores with every fact its body\'s token count, the reference cl100k_base count (checked on a sample)', async () => {
    const dir = await corpusDataDir()
    const data = new DataDir(dir)
    const rows: Array<{ tokens: number; body: string }> = []
    for (const r of readStoredFacts(data.releaseDb(data.promotedId()!))) if (r.ord % 97 === 0) rows.push(r)
    expect(rows.length).toBeGreaterThan(1000)
    for (const r of rows) expect(r.tokens, r.body).toBe(reference(r.body))
  })
})
