import { Type, type Static, type TInteger } from 'typebox'
import { ReleaseId, SourceProblem, suggestions, Target } from './catalog.js'
import { StringEnum } from './components.js'
import { Evidence, Fact, RegisterArray, Topic } from './facts.js'
import { CORPUS_RELEASE_PATTERN, CorpusRelease, Cursor, FactTopic } from './params.js'
import { ContextTarget, Page } from './responses.js'

/**
 * Parameters and bodies of the two comparisons: one part and topic across two releases
 * (/v1/compare/releases), and two parts of one release (/v1/compare/parts). Limits as /v1/context.
 */
const closed = { additionalProperties: false } as const
const open = { additionalProperties: true } as const

const part = (description: string) => Type.String({ minLength: 2, maxLength: 128, description })
const common = {
  topic: FactTopic,
  fact_names: Type.Optional(Type.String({ minLength: 1, maxLength: 2000, description: 'Comma-separated exact fact names (case-insensitive; pins: signal names), ORed with fact_name_prefixes.' })),
  fact_name_prefixes: Type.Optional(Type.String({ minLength: 1, maxLength: 2000, description: 'Comma-separated fact-name prefixes (pins: signal-name prefixes), e.g. `USART1.`.' })),
  peripheral: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'Registers only: one peripheral instance, e.g. `USART1`.' })),
  max_tokens: Type.Optional(Type.Integer({ minimum: 256, maximum: 16000, default: 4000, description: 'Token budget of the whole response (cl100k_base).' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, default: 20, description: 'Maximum number of entries returned.' })),
  cursor: Type.Optional(Cursor)
}

export const CompareReleasesParams = Type.Object(
  {
    part: part('Part identifier that resolves for this topic in both releases.'),
    ...common,
    from_release: Type.String({ pattern: CORPUS_RELEASE_PATTERN, description: 'The older corpus release id (16 lowercase hex).' }),
    to_release: Type.Optional(Type.String({ pattern: CORPUS_RELEASE_PATTERN, description: 'The newer corpus release id (16 lowercase hex); omit for the promoted release.' }))
  },
  { additionalProperties: false }
)
export type CompareReleasesParams = Static<typeof CompareReleasesParams>

export const ComparePartsParams = Type.Object(
  {
    part: part('The part ported from (ordering code, selector part, RefName or device name).'),
    other: part('The part compared with it.'),
    ...common,
    signal: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'Pins only: one signal, e.g. `USART1_TX`.' })),
    include_same: Type.Optional(Type.Boolean({ default: false, description: 'Also list identical entries (counted in counts.same either way).' })),
    corpus_release: Type.Optional(CorpusRelease)
  },
  { additionalProperties: false }
)
export type ComparePartsParams = Static<typeof ComparePartsParams>

/** How one side of a comparison resolved: its target, or why there is none (never picked). */
export const CompareSide = Type.Object(
  {
    part: Type.String({ description: 'The part as asked.' }),
    release: ReleaseId,
    status: StringEnum(['resolved', 'ambiguous', 'not_covered', 'source_failed', 'not_found']),
    target: Type.Union([ContextTarget, Type.Null()], { description: 'The target compared; null when the side did not resolve to one, or left out of an answer without entries to fit max_tokens (`elided`).' }),
    candidates: Type.Optional(Type.Array(Target, { description: 'Ambiguous: the document targets to choose from.' })),
    candidateCount: Type.Optional(Type.Integer({ minimum: 0 })),
    hint: Type.Optional(Type.String()),
    reason: Type.Optional(Type.String()),
    failures: Type.Optional(Type.Array(SourceProblem)),
    suggestions
  },
  { ...closed, $id: 'CompareSide', description: 'One side of a comparison: resolved to one target, or refused with candidates or a reason.' }
)

export const ReleaseChange = Type.Object(
  {
    change: StringEnum(['added', 'removed', 'changed']),
    name: Type.String(),
    package: Type.Optional(Type.String()),
    changedMembers: Type.Array(Type.String(), { description: 'Members of `value` (or `scope`) that differ; empty unless changed.' }),
    from: Type.Union([Fact, Type.Null()], { description: 'The fact as from_release has it (as /v1/context returns it: value, scope, evidence); null when added.' }),
    to: Type.Union([Fact, Type.Null()], { description: 'The fact as to_release has it; null when removed.' })
  },
  { ...closed, $id: 'ReleaseChange', description: 'One fact added, removed or changed, matched by topic, name and package.' }
)

export const ArtifactChange = Type.Object(
  {
    path: Type.String(),
    status: StringEnum(['changed', 'added', 'removed', 'unchanged']),
    fromSha256: Type.Union([Type.String(), Type.Null()]),
    toSha256: Type.Union([Type.String(), Type.Null()])
  },
  { ...closed, $id: 'ArtifactChange', description: 'A source artifact behind the compared facts, by path: its sha256 in each release.' }
)

const counts = <N extends string>(names: readonly N[], id: string) =>
  Type.Object(Object.fromEntries(names.map((n) => [n, Type.Integer({ minimum: 0 })])) as Record<N, TInteger>, { ...closed, $id: id, description: 'Entries of the whole comparison by status (not only this page).' })

export const ReleaseChangeCounts = counts(['added', 'removed', 'changed', 'unchanged'], 'ReleaseChangeCounts')
export const PartDiffCounts = counts(['onlyPart', 'onlyOther', 'differs', 'same'], 'PartDiffCounts')

const elided = Type.Optional(
  Type.Literal(true, { description: 'An answer without entries whose budget could not hold the sides\' targets (and artifacts) either: they were left out; repeat with page.neededMaxTokens for them and the entries.' })
)

const responseStatus = StringEnum(['ok', 'ambiguous', 'not_covered', 'source_failed', 'not_found'], {
  description: 'Only `ok` compares; otherwise a side could not be resolved to one target and `from`/`to` or `part`/`other` say why (no entries).'
})

export const CompareFilters = Type.Object(
  {
    factNames: Type.Optional(Type.Array(Type.String())),
    factNamePrefixes: Type.Optional(Type.Array(Type.String())),
    peripheral: Type.Optional(Type.String()),
    signal: Type.Optional(Type.String()),
    includeSame: Type.Optional(Type.Boolean())
  },
  { ...closed, $id: 'CompareFilters', description: 'The filters applied, normalized.' }
)

export const CompareReleasesResponse = Type.Object(
  {
    topic: Topic,
    status: responseStatus,
    from: CompareSide,
    to: CompareSide,
    filters: CompareFilters,
    artifacts: Type.Array(ArtifactChange, { description: 'The source artifacts behind these facts in either release; `changed` when the same path has another sha256.' }),
    counts: ReleaseChangeCounts,
    elided,
    changes: Type.Array(ReleaseChange, { description: 'Ordered by name, then package.' }),
    page: Page,
    notes: Type.Optional(Type.Array(Type.String()))
  },
  { ...open, $id: 'CompareReleasesResponse', description: 'What changed for one part and topic between two releases, with both values and both evidences.' }
)
export type CompareReleasesResponse = Static<typeof CompareReleasesResponse>

export const PinAssignment = Type.Object(
  {
    pin: Type.String({ description: 'Pin name, e.g. `PA9`.' }),
    position: Type.String({ description: 'Pin number or ball in the package.' }),
    af: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description: 'Alternate-function number, null when the signal is not an AF (or unknown).' }),
    evidence: Type.Array(Evidence, { minItems: 1 })
  },
  { ...closed, $id: 'PinAssignment' }
)

export const SignalPins = Type.Object(
  { pins: Type.Array(PinAssignment, { description: 'Where the signal is on this part, with its AF number.' }) },
  { ...closed, $id: 'SignalPins', description: 'Pins: one part\'s side of a signal.' }
)

export const ComparedValue = Type.Union([Type.String(), Type.Number(), Type.Null(), Type.Array(Type.String()), RegisterArray], {
  $id: 'ComparedValue',
  description: 'A compared member\'s value: a hex string (addresses, reset values), an integer (size, bit offset and width), a string (access, unit), a number (electrical value), null when absent, (pins) a `PA9/AF7` list, or (`array`) a register array\'s count and increment.'
})

const partSide = (which: string) =>
  Type.Union([Fact, SignalPins, Type.Null()], {
    description: `The ${which}'s side: the fact as /v1/context returns it (registers, electrical, errata), its pins for the signal (pins), or null when the ${which} does not have it.`
  })

export const PartDiff = Type.Object(
  {
    name: Type.String({ description: 'Fact name (registers, electrical, errata) or signal (pins).' }),
    kind: Type.Optional(StringEnum(['peripheral', 'register', 'field'])),
    status: StringEnum(['only_part', 'only_other', 'differs', 'same']),
    differences: Type.Array(
      Type.Object({ member: Type.String({ description: 'A member of the facts\' `value` (pins: `pins`).' }), part: ComparedValue, other: ComparedValue }, closed),
      { description: 'Members whose values differ: registers on their kind\'s address, offset, size, resetValue, resetMask, access, array (a register array too long to list), baseAddress, bitOffset, bitWidth; electrical on value and unit; pins on the `PA9/AF7` lists.' }
    ),
    part: partSide('part'),
    other: partSide('other part')
  },
  { ...closed, $id: 'PartDiff', description: 'One name compared between the two parts.' }
)

export const ComparePartsResponse = Type.Object(
  {
    release: ReleaseId,
    topic: Topic,
    status: responseStatus,
    part: CompareSide,
    other: CompareSide,
    filters: CompareFilters,
    counts: PartDiffCounts,
    elided,
    entries: Type.Array(PartDiff, { description: 'Ordered by name.' }),
    page: Page,
    notes: Type.Optional(Type.Array(Type.String()))
  },
  { ...open, $id: 'ComparePartsResponse', description: 'How two parts differ for one topic: entries present on one only, or with different values.' }
)
export type ComparePartsResponse = Static<typeof ComparePartsResponse>

export const COMPARE_ROOTS = [CompareReleasesResponse, ComparePartsResponse]
