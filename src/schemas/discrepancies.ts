import { Type, type Static } from 'typebox'
import { ALL_TOPICS } from '../model/fact.js'
import { CrossCheckRef, ReleaseId, suggestions } from './catalog.js'
import { DEPTH_VERSION } from '../model/versions.js'
import { StringEnum } from './components.js'
import { Fact } from './facts.js'
import { CorpusRelease, Cursor } from './params.js'
import { ListPage } from './responses.js'
import { SINCE } from './versions.js'

/**
 * /v1/discrepancies (contract 2026-12-01): where the sources of a part's cross-checked topics
 * disagree, each with both sources' facts and evidence.
 */
const closed = { additionalProperties: false } as const

export const DiscrepanciesParams = Type.Object(
  {
    part: Type.String({ minLength: 2, maxLength: 128, description: 'Part identifier (resolve it first).' }),
    topic: Type.Optional(StringEnum([...ALL_TOPICS], { description: 'Only this topic (default: all).' })),
    corpus_release: Type.Optional(CorpusRelease),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, default: 20 })),
    cursor: Type.Optional(Cursor)
  },
  { additionalProperties: false }
)
export type DiscrepanciesParams = Static<typeof DiscrepanciesParams>

export const Discrepancy = Type.Object(
  {
    topic: StringEnum([...ALL_TOPICS]),
    name: Type.String({ description: 'The served fact\'s name.' }),
    facts: Type.Array(Fact, { minItems: 2, maxItems: 2, description: 'The served source\'s fact, then the checked source\'s, each scoped to its source (`scope.source`) with its evidence.' })
  },
  { ...closed, $id: 'Discrepancy', [SINCE]: DEPTH_VERSION, description: 'Two sources give one fact of a part different values: both shown, none picked.' }
)

export const CheckedTopic = Type.Object(
  {
    topic: StringEnum([...ALL_TOPICS]),
    target: Type.String({ description: 'The served target.' }),
    ...CrossCheckRef.properties,
    agree: Type.Integer({ minimum: 0 }),
    disagree: Type.Integer({ minimum: 0 }),
    onlyChecked: Type.Record(Type.String(), Type.Integer({ minimum: 0 }), { description: 'Per checked target, how many of its facts match none served.' })
  },
  { ...closed, $id: 'CheckedTopic', [SINCE]: DEPTH_VERSION, description: 'One cross-checked topic of the part: the sources and what matching found.' }
)

export const DiscrepanciesResponse = Type.Object(
  {
    release: ReleaseId,
    part: Type.String({ description: 'The part as asked.' }),
    status: StringEnum(['resolved', 'ambiguous', 'not_found']),
    resolvedPart: Type.Optional(Type.Object({ name: Type.String(), kind: StringEnum(['selector-part', 'refname', 'device']) }, closed)),
    checked: Type.Array(CheckedTopic, { description: 'The topics cross-checked for this part (several kinds of source give them).' }),
    discrepancies: Type.Array(Discrepancy),
    count: Type.Integer({ minimum: 0, description: 'Discrepancies over all pages.' }),
    page: ListPage,
    notes: Type.Array(Type.String(), { description: 'Topics not cross-checked for this part, and why.' }),
    suggestions
  },
  { ...closed, $id: 'DiscrepanciesResponse', [SINCE]: DEPTH_VERSION, description: 'Where the sources of a part disagree: every disagreement with both values and evidences.' }
)
export type DiscrepanciesResponse = Static<typeof DiscrepanciesResponse>

/** Named schemas of this operation, registered as components (src/http/routes/openapi.ts). */
export const DISCREPANCIES_ROOTS = [DiscrepanciesResponse]
