/**
 * The silicon_revision filter of errata facts, in one place: how a fact's revisions are stored
 * (the `revisions` column of the SQLite stores and the engine documents) and the rule that says
 * whether a fact applies to a revision code. Each store renders the same rule in its own terms.
 */

/**
 * The stored form: ` code … !code … * `, the codes the fact applies to, `!code` for listed codes
 * it does not apply to, and `*` when it applies to codes its source does not list. Null for
 * facts of other topics, which the filter never hides.
 */
export function revisionColumn(revisions: Array<{ code: string; applies: boolean }>, appliesToUnlisted: boolean): string {
  const toks = revisions.map((r) => (r.applies ? r.code : `!${r.code}`))
  if (appliesToUnlisted) toks.push('*')
  return ` ${toks.join(' ')} `
}

/** An errata fact's value, as far as the rule reads it. */
export interface ErratumRevisions {
  revisions?: Array<{ code: string; applies: boolean }>
  appliesToUnlistedRevisions?: boolean
}

/**
 * The column of an errata fact's value. A value without a revisions list is one its source does
 * not narrow by revision (an NXP feature header's flag: the device is affected): it applies to every
 * revision, so no silicon_revision hides it.
 */
export function erratumColumn(v: ErratumRevisions): string {
  return v.revisions ? revisionColumn(v.revisions, v.appliesToUnlistedRevisions === true) : revisionColumn([], true)
}

/** The rule on one value: whether an errata fact applies to revision `code` (the /v1/check reading). */
export function erratumApplies(v: ErratumRevisions, code: string): boolean {
  const column = erratumColumn(v)
  return revisionApplies<boolean>(code, {
    isNull: false,
    contains: (needle) => column.includes(needle),
    or: (...xs) => xs.some(Boolean),
    and: (a, b) => a && b,
    not: (a) => !a
  })
}

/** The terms a store states the rule in: a null column, a substring of it, and the connectives. */
export interface RevisionTerms<T> {
  isNull: T
  contains(needle: string): T
  or(...xs: T[]): T
  and(a: T, b: T): T
  not(a: T): T
}

/**
 * Whether a fact applies to silicon revision `code` (canonical, `0x05`): it has no revisions
 * column (not an errata fact), or lists the code as applying, or applies to unlisted codes and
 * does not list this one as not applying. The needles are asked for in this order, left to right.
 */
export function revisionApplies<T>(code: string, t: RevisionTerms<T>): T {
  return t.or(t.isNull, t.contains(` ${code} `), t.and(t.contains(' * '), t.not(t.contains(` !${code} `))))
}
