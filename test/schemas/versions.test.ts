import { Type } from 'typebox'
import { describe, expect, it } from 'vitest'
import { ContextParams } from '../../src/schemas/params.js'
import { CoverageResponse } from '../../src/schemas/responses.js'
import { CONTRACT_VERSION_KEYWORD, forVersion, REQUIRED_SINCE, SINCE } from '../../src/schemas/versions.js'

const SEED = '2026-08-26' as const
const LATER = '2026-12-01' as const

describe('forVersion: one schema, each contract version its form', () => {
  const schema = Type.Object(
    {
      kind: Type.String({ enum: ['a', 'b', 'c'], [SINCE]: { c: LATER } }),
      old: Type.Integer(),
      added: Type.Optional(Type.Integer()),
      extra: Type.Optional(Type.String()),
      version: Type.String({ enum: [SEED, LATER], [CONTRACT_VERSION_KEYWORD]: true }),
      op: Type.Object({ x: Type.Integer() }, { [SINCE]: LATER })
    },
    { additionalProperties: false, [SINCE]: { added: LATER, extra: LATER }, [REQUIRED_SINCE]: { added: LATER } }
  )

  it('leaves out, in an earlier version, the enum values, members and nodes a later one adds', () => {
    const seed = forVersion(schema, SEED) as any
    expect(seed.properties.kind.enum).toEqual(['a', 'b'])
    expect(Object.keys(seed.properties)).toEqual(['kind', 'old', 'version'])
    expect(seed.required).toEqual(['kind', 'old', 'version'])
    expect(seed.properties.version.enum).toEqual([SEED])
  })

  it('keeps them in the version that adds them, required where it says so, and no marker in any version', () => {
    const later = forVersion(schema, LATER) as any
    expect(later.properties.kind.enum).toEqual(['a', 'b', 'c'])
    expect(Object.keys(later.properties)).toEqual(['kind', 'old', 'added', 'extra', 'version', 'op'])
    expect(later.required).toEqual(['kind', 'old', 'added', 'version', 'op'])
    expect(later.properties.version.enum).toEqual([LATER])
    for (const v of [SEED, LATER]) expect(JSON.stringify(forVersion(schema, v))).not.toMatch(/x-(since|required-since|contract-version)/)
  })

  it('drops a named schema a later version adds, and the references to it, from an earlier document', () => {
    const doc = {
      components: { schemas: { A: { type: 'string' }, B: { type: 'integer', [SINCE]: LATER } } },
      paths: { '/x': { get: { responses: { 200: { content: { 'application/json': { schema: { anyOf: [{ $ref: '#/components/schemas/A' }, { $ref: '#/components/schemas/B' }] } } } } } } } }
    }
    const seed = forVersion(doc, SEED)
    expect(Object.keys(seed.components.schemas)).toEqual(['A'])
    expect(seed.paths['/x'].get.responses[200].content['application/json'].schema.anyOf).toEqual([{ $ref: '#/components/schemas/A' }])
    expect(forVersion(doc, LATER).paths['/x'].get.responses[200].content['application/json'].schema.anyOf).toHaveLength(2)
  })

  it('gives the seed form of the real schemas: four topics, the seed members', () => {
    expect((forVersion(ContextParams, SEED) as any).properties.topic.enum).toEqual(['registers', 'pins', 'electrical', 'errata'])
    const cov = forVersion(CoverageResponse, SEED) as any
    expect(cov.properties.covered.items.enum).toEqual(['registers', 'pins', 'electrical', 'errata'])
    expect(forVersion(CoverageResponse, LATER)).toMatchObject({ properties: { covered: { items: { enum: ['registers', 'pins', 'electrical', 'errata', 'memory', 'interrupts', 'dma', 'clocks'] } } } })
  })
})
