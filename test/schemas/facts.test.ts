import { join } from 'node:path'
import { Ajv2020 } from 'ajv/dist/2020.js'
import { describe, expect, it } from 'vitest'
import { inline } from '../../src/schemas/components.js'
import { Fact } from '../../src/schemas/facts.js'
import { DataDir } from '../../src/store/layout.js'
import { readStoredFacts } from '../../src/store/sqlite/store.js'
import { corpusDataDir } from '../helpers/corpus-release.js'

/**
 * /v1/context sends the facts as the indexer stored them (pre-serialized, not through Fastify's
 * serializer), so nothing but this check keeps the Fact schema true to them: every fact of the
 * corpus release must match it, closed objects included (no member the schema does not declare).
 */
describe('the Fact schema', () => {
  it('describes every fact of the corpus release exactly', async () => {
    const dir = await corpusDataDir()
    const id = new DataDir(dir).promotedId()!
    const validate = new Ajv2020({ strict: false, allErrors: false }).compile(inline(Fact))
    const byTopic: Record<string, number> = {}
    let bad = 0
    const examples: string[] = []
    for (const row of readStoredFacts(join(dir, 'releases', id, 'release.sqlite'))) {
      byTopic[row.topic] = (byTopic[row.topic] ?? 0) + 1
      if (validate(JSON.parse(row.body))) continue
      bad++
      if (examples.length < 3) examples.push(`${row.body.slice(0, 200)} ${JSON.stringify(validate.errors)}`)
    }
    expect(examples).toEqual([])
    expect(bad).toBe(0)
    for (const t of ['registers', 'pins', 'electrical', 'errata']) expect(byTopic[t], t).toBeGreaterThan(100)
    // Not vacuous: a fact with a member the schema does not know, or without its evidence locator, fails.
    const sample = { id: 'x', topic: 'electrical', name: 'supply.vdd.min', value: { value: 1.7, unit: 'V' }, scope: { device: 'D' }, evidence: [{ sourceSha256: 'a'.repeat(64), sourcePath: 'p', locator: 'line 1', excerpt: '' }] }
    expect(validate(sample)).toBe(true)
    expect(validate({ ...sample, value: { ...sample.value, typ: 1.8 } })).toBe(false)
    expect(validate({ ...sample, evidence: [{ ...sample.evidence[0], locator: undefined }] })).toBe(false)
    expect(validate({ ...sample, topic: 'pins' })).toBe(false)
  }, 120_000)
})
