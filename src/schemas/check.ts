import { Type, type Static } from 'typebox'
import { ReleaseId, suggestions, Target } from './catalog.js'
import { StringEnum } from './components.js'
import { DmaOption, Evidence } from './facts.js'
import { CorpusRelease } from './params.js'
import { ContextTarget } from './responses.js'
import { DEPTH_VERSION } from '../model/versions.js'
import { SINCE } from './versions.js'

/**
 * Parameters and answer of a configuration check (/v1/check, MCP `check_configuration`): one
 * part's pin assignments, DMA channels, operating point and silicon revision checked against its
 * facts, each finding with the evidence of every fact it rests on.
 */
const closed = { additionalProperties: false } as const
const open = { additionalProperties: true } as const

/** Entries of `assign` and of `dma`, each: a bound a person never meets, and the URL's length well within 8 KiB. */
export const MAX_ENTRIES = 64

export const CheckParams = Type.Object(
  {
    part: Type.String({ minLength: 2, maxLength: 128, description: 'Part identifier, resolved as everywhere (never picked among candidates).' }),
    package: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'Package, e.g. `LQFP100`, when the part does not fix it.' })),
    assign: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 2000,
        description: `Comma-separated \`SIGNAL:PIN\`, e.g. \`USART1_TX:PA9,SPI1_SCK:PA5\`; at most ${MAX_ENTRIES}. \`USART1_TX:\` asks for its pins.`
      })
    ),
    dma: Type.Optional(
      Type.String({ minLength: 1, maxLength: 2000, description: `Comma-separated \`SIGNAL:CHANNEL\`, e.g. \`USART1_TX:DMA2_CH7\`; at most ${MAX_ENTRIES}.` })
    ),
    vdd: Type.Optional(Type.Number({ minimum: 0, maximum: 60, description: 'Supply voltage, V.' })),
    temperature: Type.Optional(Type.Number({ minimum: -273, maximum: 500, description: 'Ambient temperature, °C.' })),
    sysclk: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000_000_000, description: 'CPU clock, Hz.' })),
    silicon_revision: Type.Optional(Type.String({ minLength: 1, maxLength: 32, description: 'Silicon revision (errata), e.g. `0x03`; else every revision\'s.' })),
    corpus_release: Type.Optional(CorpusRelease),
    max_tokens: Type.Optional(Type.Integer({ minimum: 256, maximum: 16000, default: 4000, description: 'Token budget of the whole response (cl100k_base).' }))
  },
  { additionalProperties: false }
)
export type CheckParams = Static<typeof CheckParams>

export const FINDING_CODES = [
  'PIN_NOT_IN_PACKAGE',
  'SIGNAL_NOT_ON_PIN',
  'PIN_CONFLICT',
  'DMA_NOT_AVAILABLE',
  'DMA_CONFLICT',
  'OUT_OF_LIMITS',
  'ERRATUM_APPLIES',
  'NOT_COVERED',
  'CLOCK_ENABLE',
  'SIGNAL_PINS',
  'PIN_OK',
  'DMA_OK',
  'WITHIN_LIMITS'
] as const
export type FindingCode = (typeof FINDING_CODES)[number]

export const Severity = StringEnum(['error', 'warning', 'info'], {
  $id: 'Severity', [SINCE]: DEPTH_VERSION,
  description: '`error`: the configuration is not valid on this part; `warning`: it may work but needs attention (errata, what could not be checked); `info`: what it needs or uses.'
})

export const CheckPin = Type.Object(
  {
    pin: Type.String({ description: 'Pin name as `assign` takes it, e.g. `PA9`.' }),
    position: Type.String({ description: 'Pin number or ball in the package.' }),
    af: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description: 'Alternate-function number of the signal on this pin; null when it is not an AF (analog, additional function) or the source gives none.' }),
    remap: Type.Optional(Type.String({ description: 'The SYSCFG remap (`PINREMAP`) that puts this pin on its pad, which it shares with another.' }))
  },
  { ...closed, $id: 'CheckPin', [SINCE]: DEPTH_VERSION, description: 'A pin of the package, for one signal.' }
)

export const LimitCheck = Type.Object(
  {
    parameter: StringEnum(['vdd', 'temperature', 'sysclk']),
    given: Type.Number({ description: 'The value asked about, in the limit\'s unit.' }),
    limit: Type.String({ description: 'Fact name of the limit, e.g. `supply.vdd.max`.' }),
    bound: StringEnum(['min', 'max']),
    value: Type.Number(),
    unit: Type.String()
  },
  { ...closed, $id: 'LimitCheck', [SINCE]: DEPTH_VERSION, description: 'A value asked about against one limit of the part.' }
)

export const ErratumRef = Type.Object(
  {
    id: Type.String({ description: 'Fact name, e.g. `errata.109`.' }),
    title: Type.Union([Type.String(), Type.Null()], { description: 'As the source writes it; null where the source gives none (Nordic headers).' }),
    module: Type.Union([Type.String(), Type.Null()], { description: 'The module or peripheral the source says it concerns.' }),
    workaround: Type.Union([Type.String(), Type.Null()], { description: 'What the source says about the workaround (Nordic: the errata matrix and whether the MDK implements it); null where it says nothing.' }),
    revisions: Type.Union([Type.Array(Type.String()), Type.Null()], { description: 'Silicon revisions it applies to; null where the source does not narrow it (NXP feature headers: the device).' })
  },
  { ...closed, $id: 'ErratumRef', [SINCE]: DEPTH_VERSION }
)

export const ClockNeed = Type.Object(
  {
    peripheral: Type.String(),
    enable: Type.Union([Type.String(), Type.Null()], { description: 'Enable bit, e.g. `RCC.APB2ENR.USART1EN`.' }),
    reset: Type.Union([Type.String(), Type.Null()]),
    busClock: Type.Union([Type.String(), Type.Null()]),
    kernelClock: Type.Union([Type.String(), Type.Null()])
  },
  { ...closed, $id: 'ClockNeed', [SINCE]: DEPTH_VERSION }
)


export const Finding = Type.Object(
  {
    severity: Severity,
    code: StringEnum([...FINDING_CODES], { description: 'Stable: what the finding says (see the README).' }),
    inputs: Type.Array(Type.String(), { description: 'The entries and values it concerns, as given: `USART1_TX:PA9`, `vdd=4`.' }),
    message: Type.String(),
    evidence: Type.Array(Evidence, { description: 'Of every fact the finding rests on; empty when it rests on the inputs alone (two entries on one DMA channel) or on the absence of a source.' }),
    pins: Type.Optional(Type.Array(CheckPin, { description: 'SIGNAL_NOT_ON_PIN, PIN_NOT_IN_PACKAGE, SIGNAL_PINS: the pins of this package that carry the signal; PIN_OK, PIN_CONFLICT: the pins assigned.' })),
    limits: Type.Optional(Type.Array(LimitCheck, { description: 'OUT_OF_LIMITS: the limit exceeded; WITHIN_LIMITS: the limits met.' })),
    erratum: Type.Optional(ErratumRef),
    clock: Type.Optional(ClockNeed),
    dma: Type.Optional(Type.Array(DmaOption, { description: 'DMA_NOT_AVAILABLE, DMA_OK: the channels the signal can use.' })),
    topic: Type.Optional(StringEnum(['pins', 'electrical', 'errata', 'dma', 'clocks'], { description: 'NOT_COVERED: the topic this release has no facts of for the part.' }))
  },
  { ...closed, $id: 'Finding', [SINCE]: DEPTH_VERSION, description: 'One finding about the configuration.' }
)
export type Finding = Static<typeof Finding>

export const CheckPage = Type.Object(
  {
    returned: Type.Integer({ minimum: 0 }),
    total: Type.Integer({ minimum: 0, description: 'Every finding of the check, of which `findings` lists the first.' }),
    maxTokens: Type.Integer({ minimum: 256 }),
    tokens: Type.Integer({ minimum: 0, description: 'Tokens of the whole response (cl100k_base), at most maxTokens.' }),
    truncatedBy: Type.Union([Type.Literal('max_tokens'), Type.Null()], { description: 'max_tokens when findings were left out; null when all are listed.' }),
    budgetTooSmall: Type.Boolean({ description: 'True when max_tokens could not hold even the first finding.' }),
    neededMaxTokens: Type.Union([Type.Integer(), Type.Null()], { description: 'When findings were left out, the max_tokens that lists them all; else null.' })
  },
  { ...closed, $id: 'CheckPage', [SINCE]: DEPTH_VERSION }
)

export const CheckResponse = Type.Object(
  {
    release: ReleaseId,
    part: Type.String({ description: 'The part as asked.' }),
    status: StringEnum(['checked', 'ambiguous', 'not_found'], { description: 'Only `checked` has findings; `ambiguous` lists the candidates (never picked), `not_found` suggestions.' }),
    valid: Type.Union([Type.Boolean(), Type.Null()], { description: 'false with any error; null without errors when something asked could not be checked (NOT_COVERED); else true.' }),
    resolvedPart: Type.Optional(Type.Object({ name: Type.String(), kind: StringEnum(['selector-part', 'refname', 'device']) }, closed)),
    pinsTarget: Type.Union([ContextTarget, Type.Null()], { description: 'The pin data the assignments were checked against (one package), null when none.' }),
    counts: Type.Object({ error: Type.Integer({ minimum: 0 }), warning: Type.Integer({ minimum: 0 }), info: Type.Integer({ minimum: 0 }) }, { ...closed, description: 'Findings by severity, all of them (not only those listed).' }),
    findings: Type.Array(Finding, { description: 'Errors first, then warnings, then info; in the order of the inputs within each.' }),
    page: CheckPage,
    candidates: Type.Optional(Type.Array(Target, { description: 'Ambiguous: the document targets to choose from.' })),
    candidateCount: Type.Optional(Type.Integer({ minimum: 0 })),
    hint: Type.Optional(Type.String()),
    suggestions,
    notes: Type.Optional(Type.Array(Type.String()))
  },
  { ...open, $id: 'CheckResponse', [SINCE]: DEPTH_VERSION, description: 'Findings about one configuration of one part, each with the evidence it rests on.' }
)
export type CheckResponse = Static<typeof CheckResponse>
