import { Type, type TSchema } from 'typebox'
import { ALL_TOPICS, type Topic as TopicName } from '../model/fact.js'
import { DEPTH_VERSION as DEPTH } from '../model/versions.js'
import { REQUIRED_SINCE, SINCE, TOPICS_SINCE } from './versions.js'
import { StringEnum } from './components.js'
import { Topic } from './facts.js'

/** The parts of resolution, catalog, coverage and provenance answers (src/service/facts.ts builds them). */

const closed = { additionalProperties: false } as const
/**
 * Resolution and coverage answers grow with the curation (reasons, per-core detail): these stay
 * open so a member added in the service is not dropped by the serializer before it is described
 * here. The contract tests check them as closed, so an undescribed member still fails a test.
 */
const growing = { additionalProperties: true } as const
const Sha256 = Type.String({ pattern: '^[a-f0-9]{64}$' })
export const ReleaseId = Type.String({ pattern: '^[a-f0-9]{16}$', description: 'Id of the corpus release that answered.' })

export const MatchKind = Type.Union([StringEnum(['exact', 'ordering-code', 'prefix']), Type.Null()], {
  $id: 'MatchKind',
  description: 'How the query matched: its exact name, an ordering code of a selector part, or a name prefix; null when nothing matched.'
})

const partProps = {
  name: Type.String({ description: 'As the publisher writes it: `STM32F407VGTx`, `STM32F407V(E-G)Tx`, `nRF52840`.' }),
  kind: StringEnum(['selector-part', 'refname', 'device'], { description: 'selector-part: orderable; refname and device: a group of parts.' }),
  package: Type.Optional(Type.String()),
  family: Type.Optional(Type.String()),
  line: Type.Optional(Type.String()),
  core: Type.Optional(Type.String()),
  flashKb: Type.Optional(Type.Number()),
  ramKb: Type.Optional(Type.Number()),
  maxFrequencyMhz: Type.Optional(Type.Number()),
  memberCount: Type.Optional(Type.Integer({ description: 'Parts this group stands for.' }))
}
const why = Type.String({ description: 'Why it matched, e.g. `ordering code of this selector part`.' })
const reason = Type.Optional(Type.String({ description: 'Why this curated mapping exists.' }))

export const Part = Type.Object({ ...partProps, reason }, { ...closed, $id: 'Part', description: 'The one catalog entity the query named.' })
export const PartDetail = Type.Object(
  { ...partProps, members: Type.Optional(Type.Array(Type.String(), { description: 'Names of the parts this group stands for.' })), reason },
  { ...closed, $id: 'PartDetail', description: 'One catalog entity with its members.' }
)
export const Candidate = Type.Object({ ...partProps, name: Type.String({ description: 'Pass it as `part` (or `q`) to choose this candidate.' }), why }, {
  ...closed,
  $id: 'Candidate',
  description: 'A part the query may mean. Never chosen for the client: pass its name explicitly.'
})
export const CatalogHit = Type.Object({ ...partProps, why, topics: Type.Array(Topic, { description: 'Topics this entity has a document target for.' }) }, { ...closed, $id: 'CatalogHit' })
export const Suggestion = Type.Object({ name: Type.String(), distance: Type.Integer({ minimum: 0, description: 'Edit distance to the query.' }) }, { ...closed, $id: 'Suggestion', description: 'A known name close to an unknown one.' })
export const suggestions = Type.Optional(Type.Array(Suggestion, { description: 'Present when nothing matched: the nearest known names.' }))

export const SourceRef = Type.Object({ path: Type.String({ description: 'Artifact path in the source inventory.' }), sha256: Sha256 }, { ...closed, $id: 'SourceRef' })

export const SourceProblem = Type.Object(
  { file: Type.String(), line: Type.Optional(Type.Integer({ minimum: 1 })), reason: Type.String() },
  { ...closed, $id: 'SourceProblem', description: 'A problem reading a source artifact, where it is.' }
)

export const Target = Type.Object(
  {
    key: Type.String({ description: 'Document target: one source\'s facts for one device, e.g. `svd:STMicro/STM32F407`.' }),
    device: Type.String(),
    package: Type.Optional(Type.String({ description: 'Pins targets are per package.' })),
    factCount: Type.Integer({ minimum: 0, description: 'Facts of the topic in this target.' }),
    source: SourceRef,
    failure: Type.Optional(SourceProblem),
    sourceProblems: Type.Optional(
      Type.Object({ count: Type.Integer({ minimum: 0 }), first: Type.Array(SourceProblem) }, { ...closed, description: 'Problems reported while its facts were read: how many, and the first few.' })
    ),
    parts: Type.Optional(Type.Array(Type.String(), { description: 'Up to 20 of the matched parts this target serves.' })),
    partCount: Type.Optional(Type.Integer({ minimum: 0 }))
  },
  { ...growing, $id: 'Target', description: 'A document target a part maps to for one topic.' }
)

const crossCheckMembers = {
    reason: Type.String({ description: 'Why `target` is the source served and the others are checked against it (the release\'s rule).' }),
    checked: Type.Array(
      Type.Object({ key: Type.String(), device: Type.String(), factCount: Type.Integer({ minimum: 0 }), source: SourceRef }, closed),
      { description: 'The other sources of this topic for the part: their facts are matched against the served ones (`agreement` on each fact).' }
    ),
    unchecked: Type.Optional(
      Type.Array(Type.Object({ kind: Type.String(), targets: Type.Array(Type.String()) }, closed), { description: 'Kinds of source not checked: several of their targets match the part, and none is picked.' })
    )
}
export const CrossCheckRef = Type.Object(crossCheckMembers, { ...closed, $id: 'CrossCheckRef', [SINCE]: DEPTH, description: 'Several kinds of source give this topic for the part: which one is served, which are checked against it.' })
/** A context answer's cross-check: the sources, and what matching the whole topic found. */
export const ContextCrossCheck = Type.Object(
  {
    checked: Type.Array(Type.Object({ key: Type.String(), source: SourceRef }, closed), { description: 'The other sources of this topic for the part, checked against the served one.' }),
    unchecked: crossCheckMembers.unchecked,
    agree: Type.Integer({ minimum: 0, description: 'Served facts every checked source agrees with (over the whole topic, not this page).' }),
    disagree: Type.Integer({ minimum: 0, description: 'Served facts a checked source gives another value: each source\'s value is a fact of its own, `agreement: "disagree"` (see /v1/discrepancies).' }),
    onlyChecked: Type.Record(Type.String(), Type.Integer({ minimum: 0 }), { description: 'Per checked target, how many of its facts match none served (an SVD of a whole line lists interrupts a chip lacks).' })
  },
  { ...closed, $id: 'ContextCrossCheck', [SINCE]: DEPTH, description: 'Several kinds of source give this topic for the part: the ones checked against the served one (`target`), and what the check found; why that one is served: resolve or coverage (`crossCheck.reason`).' }
)
const crossCheck = Type.Optional(CrossCheckRef)
/** The members cross-checking added (contract 2026-12-01). */
const CROSS_CHECK_SINCE = { crossCheck: DEPTH }

export const TopicResolved = Type.Object({ status: Type.Literal('resolved'), target: Target, crossCheck }, { ...growing, $id: 'TopicResolved', [SINCE]: CROSS_CHECK_SINCE, description: 'Exactly one document target: facts can be read.' })
export const TopicAmbiguous = Type.Object(
  {
    status: Type.Literal('ambiguous'),
    candidates: Type.Array(Target),
    candidateCount: Type.Integer({ minimum: 0 }),
    hint: Type.String({ description: 'What to pass to make it unambiguous.' })
  },
  { ...growing, $id: 'TopicAmbiguous', description: 'Several document targets match: none is picked.' }
)
export const TopicNotCovered = Type.Object(
  {
    status: Type.Literal('not_covered'),
    reason: Type.String(),
    availablePackages: Type.Optional(Type.Array(Type.String(), { description: 'Packages the part does come in, when `package` matched none.' }))
  },
  { ...growing, $id: 'TopicNotCovered', description: 'No source in this release gives this topic for the part.' }
)
export const TopicSourceFailed = Type.Object(
  { status: Type.Literal('source_failed'), reason: Type.String(), failures: Type.Array(SourceProblem) },
  { ...growing, $id: 'TopicSourceFailed', description: 'A source for the topic is in this release but could not be read: not the same as no source.' }
)
export const TopicResolution = Type.Union([TopicResolved, TopicAmbiguous, TopicNotCovered, TopicSourceFailed], { $id: 'TopicResolution' })
export const TopicCoverage = Type.Union(
  [Type.Object({ status: Type.Literal('covered'), factCount: Type.Integer({ minimum: 0 }), target: Target, crossCheck }, { ...growing, $id: 'TopicCovered', [SINCE]: CROSS_CHECK_SINCE }), TopicAmbiguous, TopicNotCovered, TopicSourceFailed],
  { $id: 'TopicCoverage' }
)
export const TopicSource = Type.Union(
  [Type.Object({ status: Type.Literal('resolved'), target: Type.String({ description: 'Document target key.' }), sourcePath: Type.String(), crossCheck }, { ...growing, $id: 'TopicSourceResolved', [SINCE]: CROSS_CHECK_SINCE }), TopicAmbiguous, TopicNotCovered, TopicSourceFailed],
  { $id: 'TopicSource' }
)
/** One member per topic, always there; those a later contract version adds are optional here and marked (src/schemas/versions.ts). */
export const perTopic = <T extends TSchema>(id: string, t: T, description: string) =>
  Type.Object(Object.fromEntries(ALL_TOPICS.map((k) => [k, k in TOPICS_SINCE ? Type.Optional(t) : t])) as Record<TopicName, T>, { ...closed, $id: id, description, [SINCE]: TOPICS_SINCE, [REQUIRED_SINCE]: TOPICS_SINCE })
export const TopicResolutions = perTopic('TopicResolutions', TopicResolution, 'Resolution per topic: a part may be unambiguous for registers and ambiguous for pins.')

export const Source = Type.Object(
  {
    path: Type.String({ description: 'Path in the source inventory.' }),
    sha256: Sha256,
    bytes: Type.Integer({ minimum: 0 }),
    kind: Type.String({ description: 'Source kind, e.g. `svd`, `stm32-mcu`, `nordic-errata-header`.' }),
    publisher: Type.String(),
    distributor: Type.Optional(Type.String()),
    license: Type.String(),
    mediaType: Type.String(),
    upstream: Type.Optional(
      Type.Object(
        {
          repository: Type.Optional(Type.String()),
          commit: Type.Optional(Type.String()),
          path: Type.Optional(Type.String()),
          url: Type.Optional(Type.String()),
          rawUrl: Type.Optional(Type.String()),
          derivedFrom: Type.Optional(Type.String({ description: 'The upstream file this trimmed copy was cut from.' }))
        },
        closed
      )
    ),
    archivePath: Type.String({ description: 'Content-addressed location in the data directory.' }),
    targets: Type.Array(Type.String(), { description: 'Document targets of this answer read from it.' }),
    trust: Type.Object(
      {
        checksumVerified: Type.Boolean(),
        checksumNote: Type.String(),
        publisherDistributed: Type.Boolean({ description: 'Distributed by the publisher itself.' }),
        license: Type.String()
      },
      closed
    )
  },
  { ...closed, $id: 'Source', description: 'A source artifact behind the answer, with its provenance.' }
)

export const Release = Type.Object(
  {
    id: ReleaseId,
    createdAt: Type.String({ format: 'date-time' }),
    format: Type.String(),
    indexerFormat: Type.Integer(),
    tokenizer: Type.String({ description: 'Tokenizer of `max_tokens` and fact token counts.' }),
    counts: Type.Object(
      {
        facts: Type.Integer({ minimum: 0 }),
        parts: Type.Integer({ minimum: 0, description: 'Parts of every vendor: the catalog entities that stand for no others.' }),
        partsByVendor: Type.Optional(Type.Record(Type.String(), Type.Integer({ minimum: 0 }), { description: 'Parts per vendor (`unknown` where no source names it).' })),
        targets: Type.Integer({ minimum: 0 }),
        byTopic: Type.Object(Object.fromEntries(ALL_TOPICS.map((k) => [k, Type.Optional(Type.Integer())])), { ...closed, [SINCE]: TOPICS_SINCE, description: 'Facts per topic of the contract version.' })
      },
      closed
    ),
    sourceCount: Type.Integer({ minimum: 0 }),
    complete: Type.Boolean({ description: 'Every source parsed without a problem.' }),
    kept: Type.Array(ReleaseId, { description: 'Ids of the kept releases, usable as `corpus_release`.' }),
    store: StringEnum(['sqlite', 'search-engine'])
  },
  { additionalProperties: true, $id: 'Release', description: 'The promoted immutable corpus release (spec: a free-form object; these members are always present).' }
)

