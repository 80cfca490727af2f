/**
 * The schema helpers of src/schemas/components.ts on hand-made schemas: components and their
 * `$ref`s, the inlined form of MCP output schemas, the named schemas a document registers, and the
 * outline an MCP tool list carries. Expected values worked out by hand from each function's rule.
 */
import { Type } from 'typebox'
import { describe, expect, it } from 'vitest'
import { inline, isNode, namedSchemas, outline, plain, ref, shared, StringEnum } from '../../src/schemas/components.js'
import { CONTRACT_VERSION_KEYWORD, forVersion, REQUIRED_SINCE, SINCE, TOPICS_SINCE, VERSION_KEYWORDS, VERSIONS_SINCE } from '../../src/schemas/versions.js'

type Node = Record<string, any>
const closed = { additionalProperties: false } as const

describe('components, references and inlined schemas', () => {
  const A = Type.Object({ x: Type.String() }, { $id: 'A' })
  const B = Type.Object({ a: A, list: Type.Array(A), n: Type.Integer() }, { $id: 'B' })

  it('shared: the schema itself keeps its $id, each named schema inside it becomes a $ref', () => {
    const s = shared(B) as Node
    expect(s.$id).toBe('B')
    expect(s.properties.a).toEqual({ $ref: 'A' })
    expect(s.properties.list).toEqual({ type: 'array', items: { $ref: 'A' } })
    expect(s.properties.n).toEqual({ type: 'integer' })
    expect(s.required).toEqual(['a', 'list', 'n'])
    // A schema without any named part is unchanged.
    expect(shared(Type.Object({ s: Type.String() }) as never)).toEqual({ type: 'object', properties: { s: { type: 'string' } }, required: ['s'] })
  })

  it('shared and inline reach named schemas inside lists too (union alternatives, tuples)', () => {
    const U = Type.Object({ u: Type.Union([A, Type.Null()]) }, { $id: 'U' })
    expect((shared(U) as Node).properties.u.anyOf).toEqual([{ $ref: 'A' }, { type: 'null' }])
    expect((inline(U) as Node).properties.u.anyOf[0]).toEqual({ type: 'object', properties: { x: { type: 'string' } }, required: ['x'] })
  })

  it('inline: every named part in place, no $id left', () => {
    const s = inline(B) as Node
    expect(JSON.stringify(s)).not.toContain('$id')
    expect(s.properties.a).toEqual({ type: 'object', properties: { x: { type: 'string' } }, required: ['x'] })
    expect(s.properties.list.items).toEqual(s.properties.a)
    expect(s.type).toBe('object')
  })

  it('ref: a $ref to a named schema; a schema without $id is refused', () => {
    expect(ref(A)).toEqual({ $ref: 'A' })
    expect(() => ref(Type.String())).toThrow('ref() needs a schema with an $id')
  })

  it('namedSchemas: each named schema once, children before parents; two different ones of one name are refused', () => {
    const C = Type.Object({ b: B, a: A }, { $id: 'C' })
    expect(namedSchemas([C]).map((s) => (s as Node).$id)).toEqual(['A', 'B', 'C'])
    expect(namedSchemas([A, B, A]).map((s) => (s as Node).$id)).toEqual(['A', 'B'])
    expect(namedSchemas([Type.Array(B)]).map((s) => (s as Node).$id)).toEqual(['A', 'B'])
    expect(namedSchemas([Type.String()])).toEqual([])
    const otherA = Type.Object({ y: Type.String() }, { $id: 'A' })
    expect(() => namedSchemas([B, otherA])).toThrow('two different schemas are named A')
  })

  it('StringEnum: an enum that says it is a string; plain and isNode', () => {
    expect(plain(StringEnum(['a', 'b'], { description: 'd', $id: 'E' }))).toEqual({ $id: 'E', type: 'string', enum: ['a', 'b'], description: 'd' })
    expect(plain(StringEnum(['a']))).toEqual({ type: 'string', enum: ['a'] })
    expect([isNode({}), isNode([]), isNode(null), isNode('x'), isNode(1)]).toEqual([true, false, false, false, false])
  })
})

describe('outline', () => {
  it('keeps types, required members and enums to one level below the top (an optional member of the top: its type), merges object unions, drops the rest', () => {
    const schema = Type.Object(
      {
        a: Type.String({ minLength: 1, description: 'dropped' }),
        b: Type.Union([
          Type.Object({ k: Type.Literal('x'), n: Type.Integer(), deep: Type.Object({ z: Type.Object({ q: Type.String() }) }) }),
          Type.Object({ k: Type.Literal('y'), n: Type.Integer(), only: Type.String() }),
          Type.Null()
        ]),
        c: Type.Optional(Type.Array(Type.Object({ p: Type.String({ pattern: '^p' }), o: Type.Optional(Type.String()) }, closed))),
        d: Type.Array(Type.Object({ p: Type.String({ pattern: '^p' }), o: Type.Optional(Type.String()) }, closed))
      },
      { additionalProperties: true, description: 'dropped' }
    )
    // Worked out by hand: b's two objects share k and n (both required; k's constants are beyond the
    // first level, so only its type is left), `deep` and `only` are not in both; c is optional: its
    // JSON type alone; d's items keep p, the member every item has.
    expect(outline(schema)).toEqual({
      type: 'object',
      required: ['a', 'b', 'd'],
      properties: {
        a: { type: 'string' },
        b: { type: ['object', 'null'], required: ['k', 'n'], properties: { k: { type: 'string' }, n: { type: 'integer' } } },
        c: { type: 'array' },
        d: { type: 'array', items: { type: 'object', required: ['p'], properties: { p: { type: 'string' } } } }
      }
    })
  })

  it('merges the constants of a union at the top into an enum', () => {
    const schema = Type.Union([Type.Object({ kind: Type.Literal('a'), x: Type.Integer() }), Type.Object({ kind: Type.Literal('b') })])
    expect(outline(schema)).toEqual({ type: 'object', required: ['kind'], properties: { kind: { type: 'string', enum: ['a', 'b'] } } })
  })

  it('merging objects: a member both have alike stays whole, enums and constants join, a member required by one only is optional', () => {
    const schema = Type.Union([
      Type.Object({ same: Type.Integer(), e: StringEnum(['p', 'q']), mixed: Type.Literal(1), opt: Type.Optional(Type.String()) }),
      Type.Object({ same: Type.Integer(), e: Type.Literal('r'), mixed: Type.String(), opt: Type.String() })
    ])
    // `mixed`: a constant and a plain string, so no enum: its types. `opt`: required by the second only.
    expect(outline(schema, 2)).toEqual({
      type: 'object',
      required: ['same', 'e', 'mixed'],
      properties: { same: { type: 'integer' }, e: { type: 'string', enum: ['p', 'q', 'r'] }, mixed: { type: ['number', 'string'] }, opt: { type: 'string' } }
    })
    // Objects that share no member: an object of no members.
    expect(outline(Type.Union([Type.Object({ a: Type.String() }), Type.Object({ b: Type.String() })]))).toEqual({ type: 'object', properties: {} })
  })

  it('a union that is not `X or null`: kept as alternatives; an enum or null: alternatives too', () => {
    const schema = Type.Object({
      sn: Type.Union([Type.String(), Type.Number()]),
      en: Type.Union([StringEnum(['a', 'b']), Type.Null()]),
      cn: Type.Union([Type.Literal('only'), Type.Null()]),
      on: Type.Union([Type.Object({ x: Type.String() }), Type.Integer(), Type.Null()]),
      one: Type.Union([Type.Object({ x: Type.String() })])
    })
    expect(outline(schema)).toEqual({
      type: 'object',
      required: ['sn', 'en', 'cn', 'on', 'one'],
      properties: {
        sn: { type: ['string', 'number'] },
        en: { anyOf: [{ type: 'string', enum: ['a', 'b'] }, { type: 'null' }] },
        cn: { anyOf: [{ const: 'only', type: 'string' }, { type: 'null' }] },
        on: { type: ['object', 'integer', 'null'], required: ['x'], properties: { x: { type: 'string' } } },
        one: { type: 'object', required: ['x'], properties: { x: { type: 'string' } } }
      }
    })
  })

  it('merging objects keeps a member both have alike whole, to the depth asked', () => {
    const O = Type.Object({ a: Type.String() })
    const schema = Type.Union([Type.Object({ o: O, k: Type.Literal('x') }), Type.Object({ o: O, k: Type.Literal('y') })])
    expect(outline(schema, 2)).toEqual({ type: 'object', required: ['o', 'k'], properties: { o: { type: 'object', required: ['a'], properties: { a: { type: 'string' } } }, k: { type: 'string', enum: ['x', 'y'] } } })
  })

  it('X or null: the richest alternative is the main one, whichever comes first; anything else stays a list of alternatives', () => {
    const X = Type.Object({ x: Type.String() })
    const objectOrNull = { type: ['object', 'null'], required: ['x'], properties: { x: { type: 'string' } } }
    const schema = Type.Object({
      nullFirst: Type.Union([Type.Null(), X]),
      three: Type.Union([Type.Null(), X, Type.Integer()]),
      withEnum: Type.Union([X, StringEnum(['a', 'b'])]),
      withEnumAndNull: Type.Union([X, Type.Null(), StringEnum(['a', 'b'])]),
      withConst: Type.Union([X, Type.Unsafe({ const: 'c' })]),
      emptyOrNull: Type.Union([Type.Object({}), Type.Null()]),
      oneEnum: Type.Unsafe({ anyOf: [{ type: 'string', enum: ['a'] }] })
    })
    const p = (outline(schema) as Node).properties
    expect(p.nullFirst).toEqual(objectOrNull)
    expect(p.three).toEqual({ ...objectOrNull, type: ['object', 'null', 'integer'] })
    expect(p.withEnum).toEqual({ anyOf: [{ type: 'object', required: ['x'], properties: { x: { type: 'string' } } }, { type: 'string', enum: ['a', 'b'] }] })
    expect(p.withEnumAndNull.anyOf).toHaveLength(3)
    expect(p.withConst).toEqual({ anyOf: [{ type: 'object', required: ['x'], properties: { x: { type: 'string' } } }, { const: 'c' }] })
    expect(p.emptyOrNull).toEqual({ type: ['object', 'null'] })
    expect(p.oneEnum).toEqual({ type: 'string', enum: ['a'] })
  })

  it('below the top, a closed object of alike required members (one per topic) says their shape once', () => {
    const T = Type.Object({ s: Type.String() })
    const schema = Type.Object({
      per: Type.Object({ x: T, y: T }, closed),
      open: Type.Object({ x: T, y: T }),
      differ: Type.Object({ x: T, y: Type.Integer() }, closed),
      single: Type.Object({ x: T }, closed),
      optional: Type.Object({ x: T, y: Type.Optional(T) }, closed),
      twoAndOptional: Type.Object({ x: T, y: T, z: Type.Optional(T) }, closed)
    })
    const out = outline(schema) as Node
    expect(out.properties.per).toEqual({ type: 'object', required: ['x', 'y'], additionalProperties: { type: 'object' } })
    expect(out.properties.open).toEqual({ type: 'object', required: ['x', 'y'], properties: { x: { type: 'object' }, y: { type: 'object' } } })
    expect(out.properties.differ).toEqual({ type: 'object', required: ['x', 'y'], properties: { x: { type: 'object' }, y: { type: 'integer' } } })
    expect(out.properties.single).toEqual({ type: 'object', required: ['x'], properties: { x: { type: 'object' } } })
    expect(out.properties.optional).toEqual({ type: 'object', required: ['x'], properties: { x: { type: 'object' } } })
    // An optional member is not listed below the top, but the object is not all alike members: it keeps its names.
    expect(out.properties.twoAndOptional).toEqual({ type: 'object', required: ['x', 'y'], properties: { x: { type: 'object' }, y: { type: 'object' } } })
    // The top level always names its members, alike or not.
    expect(outline(Type.Object({ x: T, y: T }, closed))).toEqual({ type: 'object', required: ['x', 'y'], properties: { x: { type: 'object', required: ['s'], properties: { s: { type: 'string' } } }, y: { type: 'object', required: ['s'], properties: { s: { type: 'string' } } } } })
  })

  it('deeper than asked: the JSON type alone, of a constant, a type list or a union; nothing for a schema of no type', () => {
    const schema = Type.Object({
      o: Type.Object({
        c: Type.Literal(3),
        u: Type.Union([Type.String(), Type.Array(Type.String())]),
        t: Type.Unsafe({ type: ['string', 'null'] }),
        k: Type.Unsafe({ const: 'x' }),
        any: Type.Unsafe({}),
        n: Type.Union([Type.Object({ a: Type.Integer() }), Type.Null()])
      })
    })
    expect((outline(schema) as Node).properties.o.properties).toEqual({ c: { type: 'number' }, u: { type: ['string', 'array'] }, t: { type: ['string', 'null'] }, k: { type: 'string' }, any: {}, n: { type: ['object', 'null'] } })
    // One level deeper when asked.
    expect((outline(schema, 2) as Node).properties.o.properties.n).toEqual({ type: ['object', 'null'], required: ['a'], properties: { a: { type: 'integer' } } })
  })

  it('named parts are inlined before outlining, and an object without members keeps none', () => {
    const N = Type.Object({ v: Type.Integer() }, { $id: 'N' })
    expect(outline(Type.Object({ n: N, e: Type.Object({}) }))).toEqual({ type: 'object', required: ['n', 'e'], properties: { n: { type: 'object', required: ['v'], properties: { v: { type: 'integer' } } }, e: { type: 'object' } } })
  })
})

describe('version markers', () => {
  it('are OpenAPI extensions (x-…), as versions.ts names them, and annotation keywords for a strict validator', () => {
    expect([SINCE, REQUIRED_SINCE, CONTRACT_VERSION_KEYWORD]).toEqual(['x-since', 'x-required-since', 'x-contract-version'])
    expect(VERSION_KEYWORDS).toEqual(['x-since', 'x-required-since', 'x-contract-version'])
  })

  it('name the version that first has each later topic and version (docs/depth.md: 2026-12-01 adds four topics)', () => {
    expect(TOPICS_SINCE).toStrictEqual({ memory: '2026-12-01', interrupts: '2026-12-01', dma: '2026-12-01', clocks: '2026-12-01' })
    expect(VERSIONS_SINCE).toStrictEqual({ '2026-12-01': '2026-12-01' })
  })

  it('a member optional at first and required from a later version; an object with no required member gets no empty list', () => {
    const schema = Type.Object(
      { old: Type.Optional(Type.Integer()), added: Type.Optional(Type.Integer()) },
      { additionalProperties: false, [SINCE]: { added: '2026-12-01' }, [REQUIRED_SINCE]: { old: '2026-12-01' } }
    )
    const seed = forVersion(schema, '2026-08-26') as Node
    expect(seed.properties).toEqual({ old: { type: 'integer' } })
    expect('required' in seed).toBe(false)
    expect((forVersion(schema, '2026-12-01') as Node).required).toEqual(['old'])
  })
})

