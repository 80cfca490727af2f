import { Type, type Static } from 'typebox'
import { StringEnum } from './components.js'
import { ALL_TOPICS, type Topic } from '../model/fact.js'
import { CONTRACT_VERSIONS } from '../model/versions.js'
import { SINCE, TOPICS_SINCE } from './versions.js'

/**
 * Request parameters of every fact operation, with the limits of the contract (spec §4, §8).
 * The REST routes validate with them, /openapi.json documents them, the MCP tools take them as input.
 */
export const CORPUS_RELEASE_PATTERN = '^[a-f0-9]{16}$'
export const CorpusRelease = Type.String({
  pattern: CORPUS_RELEASE_PATTERN,
  description: 'Corpus release id; omit for the promoted release.'
})
const CandidateLimit = Type.Integer({ minimum: 1, maximum: 20, default: 10, description: 'Maximum number of candidates returned: the page size.' })
/** The topic parameter of the fact and comparison operations: the topics of the request's contract version. */
export const FactTopic = StringEnum(ALL_TOPICS, { description: 'Fact topic.', [SINCE]: TOPICS_SINCE })
/** The cursor parameter of every paged operation (spec §8: at most 512 characters). */
export const Cursor = Type.String({ minLength: 1, maxLength: 512, description: '`page.nextCursor` of the previous page of the same query.' })

export const ResolveParams = Type.Object(
  {
    q: Type.String({ minLength: 2, maxLength: 128, description: 'Part identifier: ordering code, selector part, RefName, device name or family prefix.' }),
    query: Type.Optional(Type.String({ minLength: 3, maxLength: 1000, description: 'Free text that ranks candidates (e.g. a package or feature); it never picks one.' })),
    corpus_release: Type.Optional(CorpusRelease),
    candidate_limit: Type.Optional(CandidateLimit),
    cursor: Type.Optional(Cursor)
  },
  { additionalProperties: false }
)
export type ResolveParams = Static<typeof ResolveParams>

export const CatalogSearchParams = Type.Object(
  {
    q: Type.String({ minLength: 2, maxLength: 128, description: 'Selector part, ordering code or prefix of one.' }),
    candidate_limit: Type.Optional(CandidateLimit),
    cursor: Type.Optional(Cursor)
  },
  { additionalProperties: false }
)
export type CatalogSearchParams = Static<typeof CatalogSearchParams>

export const CatalogPartParams = Type.Object(
  { part: Type.String({ minLength: 4, maxLength: 128, description: 'One selector part, ordering code, RefName or device name.' }) },
  { additionalProperties: false }
)
export type CatalogPartParams = Static<typeof CatalogPartParams>

export const ContextParams = Type.Object(
  {
    part: Type.String({ minLength: 2, maxLength: 128, description: 'Part identifier that resolves for this topic (resolve it first).' }),
    topic: FactTopic,
    query: Type.Optional(Type.String({ minLength: 3, maxLength: 2000, description: 'Free text: only facts matching at least one term are returned, most matching terms first.' })),
    fact_names: Type.Optional(Type.String({ minLength: 1, maxLength: 2000, description: 'Comma-separated exact fact names (case-insensitive), e.g. `RCC.AHB1ENR,GPIOA.MODER`; at most 100 names. ORed with fact_name_prefixes.' })),
    fact_name_prefixes: Type.Optional(Type.String({ minLength: 1, maxLength: 2000, description: 'Comma-separated fact-name prefixes, e.g. `USART1.`; at most 100 prefixes. ORed with fact_names.' })),
    peripheral: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'Peripheral instance, e.g. `USART1` (registers: the peripheral; pins: a signal of the pin).' })),
    silicon_revision: Type.Optional(Type.String({ minLength: 1, maxLength: 32, description: 'Silicon revision code (errata), e.g. `0x05`.' })),
    revision: Type.Optional(Type.String({ minLength: 1, maxLength: 32, deprecated: true, description: 'Deprecated: use silicon_revision.' })),
    package: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'Package, e.g. `LQFP100`; narrows pins to one package.' })),
    corpus_release: Type.Optional(CorpusRelease),
    max_tokens: Type.Optional(Type.Integer({ minimum: 256, maximum: 16000, default: 4000, description: 'Token budget of the whole response (cl100k_base).' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, default: 20, description: 'Maximum number of facts returned.' })),
    cursor: Type.Optional(Cursor)
  },
  { additionalProperties: false }
)
export type ContextParams = Omit<Static<typeof ContextParams>, 'topic'> & { topic: Topic }

export const PartParams = Type.Object(
  {
    part: Type.String({ minLength: 2, maxLength: 128, description: 'Part identifier.' }),
    corpus_release: Type.Optional(CorpusRelease)
  },
  { additionalProperties: false }
)
export type PartParams = Static<typeof PartParams>

export const ErrorCodeParams = Type.Object(
  { code: Type.String({ minLength: 1, maxLength: 64, description: 'An error code, e.g. `INVALID_CURSOR`.' }) },
  { additionalProperties: false }
)
export type ErrorCodeParams = Static<typeof ErrorCodeParams>

export const NoParams = Type.Object({}, { additionalProperties: false })

export const OpenApiParams = Type.Object(
  { version: Type.Optional(StringEnum(CONTRACT_VERSIONS, { description: 'The contract version whose document is served, as Service-Version selects it; when both are given they must agree.' })) },
  { additionalProperties: false }
)
export type OpenApiParams = Static<typeof OpenApiParams>
