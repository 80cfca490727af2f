import { describe, expect, it } from 'vitest'
import { erratumApplies, erratumColumn, revisionColumn } from '../../src/store/revisions.js'
import { factSearchBody } from '../../src/store/search-engine/query.js'
import type { FactQuery } from '../../src/store/types.js'

/**
 * Columns as the indexer stores them and, worked out by hand from the rule (no column, the code
 * listed as applying, or `*` without `!code`), whether revision 0x05 and 0x01 see each fact.
 */
const TABLE: Array<{ column: string | null; sees05: boolean; sees01: boolean; why: string }> = [
  { column: null, sees05: true, sees01: true, why: 'not an errata fact' },
  { column: ' 0x05 ', sees05: true, sees01: false, why: 'listed as applying' },
  { column: ' !0x05 * ', sees05: false, sees01: true, why: 'unlisted codes apply, 0x05 listed as not' },
  { column: ' * ', sees05: true, sees01: true, why: 'applies to every unlisted code' },
  { column: ' 0x01 !0x05 ', sees05: false, sees01: true, why: 'listed both ways' },
  { column: '  ', sees05: false, sees01: false, why: 'applies to no revision' },
  { column: ' 0x050 !0x15 ', sees05: false, sees01: false, why: 'codes that merely contain 0x05 or end in it' }
]

describe('the revisions column', () => {
  it('lists applying codes, !code for listed codes that do not apply, and * when unlisted ones do', () => {
    expect(revisionColumn([{ code: '0x05', applies: true }], false)).toBe(' 0x05 ')
    expect(revisionColumn([{ code: '0x05', applies: false }], true)).toBe(' !0x05 * ')
    expect(revisionColumn([{ code: '0x01', applies: true }, { code: '0x05', applies: false }], false)).toBe(' 0x01 !0x05 ')
    expect(revisionColumn([], true)).toBe(' * ')
    expect(revisionColumn([], false)).toBe('  ')
  })
})

describe('the rule on an errata value (the indexer\'s column, /v1/check\'s reading)', () => {
  it('a value without a revisions list applies to every revision: its source does not narrow by revision', () => {
    expect(erratumColumn({})).toBe(' * ')
    expect(erratumApplies({}, '0x05')).toBe(true)
  })
  it('a listed value reads as its column does', () => {
    const v = { revisions: [{ code: '0x01', applies: true }, { code: '0x05', applies: false }] }
    expect(erratumColumn(v)).toBe(' 0x01 !0x05 ')
    expect([erratumApplies(v, '0x01'), erratumApplies(v, '0x05'), erratumApplies(v, '0x07')]).toEqual([true, false, false])
    expect(erratumApplies({ ...v, appliesToUnlistedRevisions: true }, '0x07')).toBe(true)
    expect(erratumApplies({ ...v, appliesToUnlistedRevisions: true }, '0x05')).toBe(false)
  })
})

/** The engine query DSL that the revision clause uses, evaluated on one document. */
function matches(clause: any, doc: { revisions?: string }): boolean {
  if (clause.wildcard) {
    const pattern: string = clause.wildcard.revisions.value
    const re = new RegExp('^' + pattern.replace(/\\(.)|([*?])|([^\\*?]+)/g, (_, esc, wild, lit) => (esc ? `\\${esc}` : wild === '*' ? '[^]*' : wild === '?' ? '[^]' : lit.replace(/[.+^${}()|[\]\\]/g, '\\$&'))) + '$')
    return doc.revisions !== undefined && re.test(doc.revisions)
  }
  if (clause.exists) return doc.revisions !== undefined
  const b = clause.bool
  if (!b) throw new Error(`unexpected clause ${JSON.stringify(clause)}`)
  const all = [...(b.filter ?? []), ...(b.must ?? [])].every((c: unknown) => matches(c, doc))
  const none = (b.must_not ?? []).every((c: unknown) => !matches(c, doc))
  const should = b.should ? b.should.filter((c: unknown) => matches(c, doc)).length >= (b.minimum_should_match ?? 1) : true
  return all && none && should
}

describe('the revision rule as the search engines are asked it (src/store/search-engine/query.ts)', () => {
  const base: FactQuery = { target: 't', topic: 'errata', names: [], prefixes: [], terms: [], limit: 10 }
  const clause = (code: string) => {
    const filters = (factSearchBody({ ...base, siliconRevision: code }).query as any).bool.filter as unknown[]
    expect(filters).toHaveLength(3) // target, topic, revision
    return filters[2]
  }

  it.each(TABLE)('$why: $column', ({ column, sees05, sees01 }) => {
    // A null column is not indexed: the document has no such field.
    const doc = column === null ? {} : { revisions: column }
    expect(matches(clause('0x05'), doc)).toBe(sees05)
    expect(matches(clause('0x01'), doc)).toBe(sees01)
  })
})
