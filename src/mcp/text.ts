/**
 * Compact text renderings of the service's results, for the `text` content of each MCP tool
 * result. The JSON is in `structuredContent`; the text is what an agent reads first, so it says
 * the status, the values with their evidence, and what to call next, in a few lines. Each body is
 * read through the Static type of its TypeBox schema, so a member renamed there fails to compile here.
 */
import type { Static } from 'typebox'
import type { Candidate, CatalogHit, Part, PartDetail, Source, Suggestion, Target, TopicCoverage, TopicResolution, TopicSource } from '../schemas/catalog.js'
import type { CheckResponse } from '../schemas/check.js'
import type { ComparePartsResponse, CompareReleasesResponse, CompareSide, SignalPins } from '../schemas/compare.js'
import type { DiscrepanciesResponse } from '../schemas/discrepancies.js'
import type { Evidence, Fact } from '../schemas/facts.js'
import type {
  CatalogPartResponse,
  CatalogSearchResponse,
  ContextResponse,
  ContextTarget,
  CoverageResponse,
  ErrorCodeGuidance,
  ListPage,
  Page,
  ReleaseResponse,
  ResolveResponse,
  SourcesResponse
} from '../schemas/responses.js'

/** A catalog entity as resolve, search and catalog answers list it (every one has the part members). */
type Entity = Static<typeof Part> | Static<typeof PartDetail> | Static<typeof Candidate> | Static<typeof CatalogHit>
/** A document target in full (resolution) or as a context, comparison or check answer names it. */
type AnyTarget = Static<typeof Target> | Static<typeof ContextTarget>
type TopicEntry = Static<typeof TopicResolution> | Static<typeof TopicCoverage> | Static<typeof TopicSource>
type Suggestions = Array<Static<typeof Suggestion>> | undefined

/** A scalar as text; undefined for anything else (objects, arrays, null). */
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : undefined)
/** Joins the present parts with `sep`. */
const join = (parts: Array<string | undefined | null | false>, sep = ', '): string => parts.filter((p): p is string => typeof p === 'string' && p !== '').join(sep)
const list = (items: readonly string[] = [], max = 12): string => (items.length > max ? `${items.slice(0, max).join(', ')}, … (${items.length} in all)` : items.join(', '))

/** `STM32F407VGTx (selector-part, LQFP100, STM32F4, Arm Cortex-M4, 1024 KB flash, 128 KB RAM, 168 MHz)` */
function entity(p: Entity): string {
  const details = join([
    p.kind,
    p.package,
    p.family,
    p.core,
    p.flashKb !== undefined ? `${p.flashKb} KB flash` : undefined,
    p.ramKb !== undefined ? `${p.ramKb} KB RAM` : undefined,
    p.maxFrequencyMhz !== undefined ? `${p.maxFrequencyMhz} MHz` : undefined,
    p.memberCount !== undefined ? `${p.memberCount} members` : undefined
  ])
  return `${p.name}${details ? ` (${details})` : ''}`
}

/** `svd:STMicro/STM32F407 [LQFP100], 13978 facts, from svd/STMicro/STM32F407.svd` */
function target(t: AnyTarget): string {
  // A context answer's target lacks the counts and parts a resolution's has.
  const x: Static<typeof ContextTarget> & Partial<Pick<Static<typeof Target>, 'factCount' | 'parts' | 'partCount'>> = t
  const parts = x.parts ?? []
  return join([
    `${x.key}${x.package ? ` [${x.package}]` : ''}`,
    x.factCount !== undefined ? `${x.factCount} facts` : undefined,
    x.source.path ? `from ${x.source.path}` : undefined,
    parts.length ? `parts ${list(parts.slice(0, 6))}${(x.partCount ?? 0) > 6 ? `, … (${x.partCount} in all)` : ''}` : undefined
  ])
}

/** One line per topic of a resolution: resolved/covered target, ambiguous candidates, or the gap. */
function topicLines(topics: Partial<Record<string, TopicEntry>>, indent = '  '): string[] {
  const out: string[] = []
  for (const [topic, x] of Object.entries(topics)) {
    if (x === undefined) continue
    if (x.status === 'resolved' || x.status === 'covered')
      out.push(`${indent}${topic}: ${x.status} → ${'sourcePath' in x ? join([x.target, x.sourcePath], ' from ') : target(x.target)}`)
    else if (x.status === 'ambiguous') {
      out.push(`${indent}${topic}: ambiguous, ${x.candidateCount} targets — ${x.hint}`)
      for (const c of x.candidates) out.push(`${indent}  - ${target(c)}`)
    } else {
      const packages = x.status === 'not_covered' ? (x.availablePackages ?? []) : []
      out.push(`${indent}${topic}: ${x.status.replace('_', ' ')}${x.reason ? ` — ${x.reason}` : ''}${packages.length ? ` (packages: ${list(packages)})` : ''}`)
    }
  }
  return out
}

function suggestionLine(suggestions: Suggestions): string | undefined {
  return suggestions?.length ? `Did you mean: ${suggestions.map((s) => s.name).join(', ')}?` : undefined
}

function candidateLines(candidates: Array<Static<typeof Candidate>>, count: number | undefined): string[] {
  return [`Candidates (${candidates.length} of ${count}):`, ...candidates.map((c) => `  - ${entity(c)}: ${c.why}`)]
}

/** The line that continues a paged list, when there is more. */
function moreLine(page: Static<typeof ListPage>, tool: string, noun: string): string[] {
  return page.nextCursor ? [`More ${noun}: call ${tool} again with the same arguments and cursor="${page.nextCursor}"`] : []
}

const DO_NOT_PICK = 'Do not pick a candidate yourself: ask the user which one is meant, or call again with a full selector part or ordering code'
const DO_NOT_PICK_CONTEXT = `${DO_NOT_PICK} (for pins, package=… also narrows it).`

export function renderResolve(r: Static<typeof ResolveResponse>): string {
  const lines = [`${r.q} → ${r.status}${r.match ? ` (${r.match} match)` : ''}, release ${r.release}`]
  if (r.part) lines.push(`Part: ${entity(r.part)}${r.part.reason ? ` — ${r.part.reason}` : ''}`)
  lines.push('Topics:', ...topicLines(r.topics))
  if (r.candidates.length && !(r.status === 'resolved' && r.candidates.length === 1))
    lines.push(...candidateLines(r.candidates, r.candidateCount), ...moreLine(r.page, 'resolve_part', 'candidates'))
  const sug = suggestionLine(r.suggestions)
  if (sug) lines.push(sug)
  lines.push(
    r.status === 'resolved'
      ? `Next: call get_context with part="${r.q}" and a topic whose status is resolved.`
      : r.status === 'ambiguous'
        ? `Next: ${DO_NOT_PICK}.`
        : 'Next: no part has this name. Check the suggestions, or call search_catalog.'
  )
  return lines.join('\n')
}

export function renderSearch(r: Static<typeof CatalogSearchResponse>): string {
  const lines = [`Catalog search "${r.q}": ${r.status}, ${r.total} matches${r.match ? ` (${r.match})` : ''}, showing ${r.results.length}; release ${r.release}`]
  for (const x of r.results) lines.push(`  - ${entity(x)}; topics: ${list(x.topics) || 'none'}; ${x.why}`)
  lines.push(...moreLine(r.page, 'search_catalog', 'results'))
  const sug = suggestionLine(r.suggestions)
  if (sug) lines.push(sug)
  if (r.results.length) lines.push('Next: call resolve_part with one of these names, then get_context.')
  return lines.join('\n')
}

function sourceLines(sources: Array<Static<typeof Source>>): string[] {
  return sources.map(
    (x) =>
      `  - ${x.path} — ${join([
        x.publisher && `publisher ${x.publisher}`,
        x.distributor && x.distributor !== x.publisher ? `via ${x.distributor}` : undefined,
        x.license && `license ${x.license}`,
        x.kind,
        x.sha256 && `sha256 ${x.sha256}`,
        x.upstream?.url ?? x.upstream?.repository,
        x.targets.length ? `targets ${list(x.targets)}` : undefined,
        x.trust.checksumVerified ? 'checksum re-verified by this service' : undefined
      ])}`
  )
}

export function renderCatalogPart(r: Static<typeof CatalogPartResponse>): string {
  const lines = [`${r.part ? entity(r.part) : 'No single part'}: ${r.status}${r.match ? ` (${r.match} match)` : ''}, release ${r.release}`]
  if (r.part?.reason) lines.push(`Mapping: ${r.part.reason}`)
  if (r.part?.members?.length) lines.push(`Members: ${list(r.part.members, 20)}`)
  lines.push('Documents:', ...topicLines(r.documents))
  if (r.sources.length) lines.push(`Sources (${r.sources.length}):`, ...sourceLines(r.sources))
  if (r.candidates?.length) lines.push(...candidateLines(r.candidates, r.candidateCount), `${DO_NOT_PICK}.`)
  const sug = suggestionLine(r.suggestions)
  if (sug) lines.push(sug)
  return lines.join('\n')
}

export function renderCoverage(r: Static<typeof CoverageResponse>): string {
  const lines = [`${r.part}: ${r.status}, release ${r.release}; covered: ${list(r.covered) || 'none'}; not covered: ${list(r.notCovered) || 'none'}`, ...topicLines(r.topics)]
  if (r.candidates?.length) lines.push(...candidateLines(r.candidates, r.candidateCount))
  const sug = suggestionLine(r.suggestions)
  if (sug) lines.push(sug)
  return lines.join('\n')
}

export function renderDiscrepancies(r: DiscrepanciesResponse): string {
  const lines = [`${r.part}: ${r.status}, release ${r.release}; ${r.count} discrepancies`]
  for (const c of r.checked)
    lines.push(`${c.topic}: ${c.target} served, checked against ${list(c.checked.map((x) => x.key))}: ${c.agree} agree, ${c.disagree} disagree`)
  for (const d of r.discrepancies) {
    lines.push(`- ${d.topic} ${d.name}:`)
    for (const f of d.facts) lines.push(`    ${JSON.stringify(f.value)} from ${f.scope.source} (${f.evidence[0]?.locator})`)
  }
  lines.push(...r.notes)
  if (r.page.nextCursor) lines.push(`More: call again with cursor=${r.page.nextCursor}`)
  const sug = suggestionLine(r.suggestions)
  if (sug) lines.push(sug)
  return lines.join('\n')
}

export function renderSources(r: Static<typeof SourcesResponse>): string {
  const lines = [`${r.part}: ${r.status}, release ${r.release}, ${r.sources.length} source artifacts`, 'Topics:', ...topicLines(r.topics)]
  if (r.sources.length) lines.push('Sources:', ...sourceLines(r.sources))
  const sug = suggestionLine(r.suggestions)
  if (sug) lines.push(sug)
  return lines.join('\n')
}

export function renderRelease({ release: rel, api }: Static<typeof ReleaseResponse>): string {
  const byTopic = Object.entries(rel.counts.byTopic)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ')
  return [
    `Promoted corpus release ${rel.id} (created ${rel.createdAt}, ${rel.format}, indexer ${rel.indexerFormat}, tokenizer ${rel.tokenizer}, store ${rel.store})`,
    `Counts: ${rel.counts.facts} facts (${byTopic}), ${rel.counts.parts} parts, ${rel.counts.targets} targets, ${rel.sourceCount} sources; complete: ${rel.complete ? 'yes' : 'no'}`,
    `Kept releases (usable as corpus_release): ${list(rel.kept) || 'none'}`,
    `API contract ${api.version}, ${api.openapi_sha256}`
  ].join('\n')
}

export function renderErrorCode(r: Static<typeof ErrorCodeGuidance>): string {
  return `${r.code} (HTTP ${r.status} ${r.title}; ${r.retryable ? 'retryable' : 'not retryable'}): ${r.guidance}`
}

type RegisterFactValue = Extract<Fact, { topic: 'registers' }>['value']
type ErratumFactValue = Extract<Fact, { topic: 'errata' }>['value']

/** `address 0x40023830, offset 0x30, 32 bits, reset 0x00100000, read-write — AHB1 peripheral clock register` */
function registerValue(v: RegisterFactValue): string {
  const tail = (s: string) => (v.description ? `${s} — ${v.description}` : s)
  if ('address' in v)
    return tail(
      join([`address ${v.address}`, `offset ${v.offset}`, v.size != null && `${v.size} bits`, v.resetValue != null && `reset ${v.resetValue}`, v.access, v.protection && `protection ${v.protection}`, v.array && `array of ${v.array.count} elements ${v.array.increment} bytes apart (address is element 0's)`])
    )
  if ('baseAddress' in v) {
    const irqs = v.interrupts.map((i) => `${i.name}=${i.value ?? '?'}`)
    return tail(join([`peripheral at base address ${v.baseAddress}`, v.derivedFrom && `derived from ${v.derivedFrom}`, irqs.length ? `IRQ ${irqs.join(' ')}` : undefined]))
  }
  const lo = v.bitOffset
  const w = v.bitWidth
  const enums = (v.enumeratedValues ?? []).map((e) => `${e.value ?? '?'}=${e.name}`)
  return tail(join([w > 1 ? `bits [${lo + w - 1}:${lo}]` : `bit ${lo}`, v.access, enums.length ? `values ${enums.slice(0, 8).join(' ')}${enums.length > 8 ? ' …' : ''}` : undefined]))
}

function erratumValue(v: ErratumFactValue): string {
  // An NXP SDK feature header's erratum: its id, module and one-line title, no revisions.
  if ('id' in v) return join([`erratum ${v.id}`, v.module, v.title], '; ')
  const applies = v.revisions.filter((r) => r.applies).map((r) => r.code)
  const not = v.revisions.filter((r) => !r.applies).map((r) => r.code)
  const handling = (v.handling ?? []).map((h) => join([h.handling, h.module, list(h.functions, 4)], ' '))
  return join(
    [
      `${v.kind} ${v.number}`,
      v.function,
      `applies to revisions ${applies.join(' ') || 'none listed'}${v.appliesToUnlistedRevisions ? ' and unlisted ones' : ''}`,
      not.length ? `not ${not.join(' ')}` : undefined,
      handling.length ? `handling: ${handling.join(' / ')}` : undefined,
      v.workaroundEnabledByDefault !== undefined ? `workaround enabled by default: ${v.workaroundEnabledByDefault ? 'yes' : 'no'}` : undefined
    ],
    '; '
  )
}

/** A fact's value in a line, by its topic. */
function factValue(f: Fact): string {
  switch (f.topic) {
    case 'registers':
      return registerValue(f.value)
    case 'pins': {
      const v = f.value
      const afs = (v.alternateFunctions ?? []).map((a) => `AF${a.af} ${a.signal}`)
      return join([`pin ${list(v.positions) || v.position}${v.package ? ` (${v.package})` : ''}`, v.type, v.signals.length ? `signals ${list(v.signals, 16)}` : undefined, afs.length ? afs.join(', ') : undefined], '; ')
    }
    case 'electrical':
      return `${f.value.value}${f.value.unit ? ` ${f.value.unit}` : ''}`
    case 'errata':
      return erratumValue(f.value)
    default:
      // The depth topics: their scalar members, in the order the source gave them.
      return join(Object.entries(f.value).flatMap(([k, x]) => (str(x) !== undefined ? [`${k} ${str(x)}`] : [])))
  }
}

/** `[svd/STMicro/STM32F407.svd line 5954: /device/…/register[name=AHB1ENR]]` */
function evidence(ev: ReadonlyArray<Static<typeof Evidence>>): string {
  const first = ev[0]
  return first ? ` [${join([first.sourcePath, first.locator], ' ')}${ev.length > 1 ? ` +${ev.length - 1} more` : ''}]` : ''
}

/** How a page line names what comes next: the entry, the call for more, and what a bigger budget repeats. */
interface PageWords {
  tool: string
  next: string
  more: string
  repeat: string
}

/** The end of a page line: how to get the next entry (a bigger budget, or the cursor), else `end`. */
function pageTail(page: Static<typeof Page>, w: PageWords, end: string): string {
  if (page.budgetTooSmall) return `; max_tokens is too small for the next ${w.next}: call ${w.tool} again with ${w.repeat}max_tokens=${page.neededMaxTokens}`
  if (page.nextCursor) return `; ${w.more}: call ${w.tool} again with the same arguments and cursor="${page.nextCursor}"`
  return end
}

/** One line per fact, `NAME = value … [evidence]`, between a header and the paging line. */
export function renderContext(r: ContextResponse): string {
  const page = r.page
  const lines = [`${r.part} · ${r.topic} · ${r.status} · release ${r.release}${r.target ? ` · target ${target(r.target)}` : ''}`]
  const filters = Object.entries(r.filters).map(([k, v]) => `${k}=${Array.isArray(v) ? v.join(',') : String(v)}`)
  if (filters.length) lines.push(`Filters: ${filters.join('; ')}`)
  for (const f of r.facts) lines.push(`${f.name} = ${factValue(f)}${evidence(f.evidence)}`)
  if (r.status === 'ok')
    lines.push(
      `Page: ${page.returned} facts (limit ${page.limit}, ${page.tokens}/${page.maxTokens} tokens)` +
        pageTail(page, { tool: 'get_context', next: 'fact', more: 'more facts', repeat: 'the same arguments and ' }, page.truncatedBy ? `; truncated by ${page.truncatedBy}` : '; end of the result set')
    )
  if (r.status === 'ambiguous') {
    lines.push(`Ambiguous: ${r.candidateCount} targets — ${r.hint ?? ''}`)
    for (const c of r.candidates ?? []) lines.push(`  - ${target(c)}`)
    lines.push(DO_NOT_PICK_CONTEXT)
  }
  if (r.status === 'not_covered') lines.push(`Not covered: ${r.reason ?? ''}${r.availablePackages?.length ? ` (packages: ${list(r.availablePackages)})` : ''}`)
  const sug = suggestionLine(r.suggestions)
  if (sug) lines.push(sug)
  for (const n of r.notes ?? []) lines.push(`Note: ${n}`)
  return lines.join('\n')
}

/** A compared value (a ComparedValue, or a member a comparison names) as text: `0x40011000`, `PA9/AF7, PB6/AF7`, `168 MHz`. */
function compared(v: unknown): string {
  if (Array.isArray(v)) return v.length ? v.map((x: unknown) => str(x) ?? JSON.stringify(x)).join(', ') : '[]'
  return str(v) ?? JSON.stringify(v)
}

/** A member of a fact's value that a comparison names (`changedMembers`): named by the data, not by this code. */
const memberNamed = (f: Fact | null, name: string) => (f ? new Map(Object.entries(f.value)).get(name) : undefined)

/** One side of a comparison that did not resolve: why, and its candidates. */
function sideLines(label: string, s: Static<typeof CompareSide>): string[] {
  if (s.status === 'resolved') return []
  const out = [`${label} ${s.part} (release ${s.release}): ${s.status}${s.reason ? ` — ${s.reason}` : ''}${s.hint ? ` — ${s.hint}` : ''}`]
  for (const c of s.candidates ?? []) out.push(`  - ${target(c)}`)
  const sug = suggestionLine(s.suggestions)
  if (sug) out.push(`  ${sug}`)
  return out
}

/** What a comparison that did not compare adds: the refusal to pick, when a side has candidates. */
function notCompared(lines: string[], a: Static<typeof CompareSide>, b: Static<typeof CompareSide>): string {
  if (a.candidates?.length || b.candidates?.length) lines.push(`${DO_NOT_PICK}.`)
  return lines.join('\n')
}

function pageLine(page: Static<typeof Page>, tool: string, noun: string): string {
  return `Page: ${page.returned} ${noun} (limit ${page.limit}, ${page.tokens}/${page.maxTokens} tokens)` + pageTail(page, { tool, next: 'one', more: 'more', repeat: '' }, '; end of the comparison')
}

/** `changed FSMC.BWTR3: address 0xA0000114 → 0xA0000104, offset …  [from …] [to …]` per change. */
export function renderCompareReleases(r: CompareReleasesResponse): string {
  const { from, to } = r
  const lines = [`${from.part} · ${r.topic} · ${r.status} · release ${from.release} → ${to.release}`, ...sideLines('From', from), ...sideLines('To', to)]
  if (r.status !== 'ok') return notCompared(lines, from, to)
  const c = r.counts
  lines.push(`Counts: ${c.added} added, ${c.removed} removed, ${c.changed} changed, ${c.unchanged} unchanged`)
  for (const a of r.artifacts) if (a.status !== 'unchanged') lines.push(`Artifact ${a.status}: ${a.path}`)
  for (const ch of r.changes) {
    const shown = ch.change === 'added' ? ch.to : ch.from
    const what =
      ch.change === 'changed'
        ? ch.changedMembers.map((m) => (m === 'scope' ? 'scope' : `${m} ${compared(memberNamed(ch.from, m))} → ${compared(memberNamed(ch.to, m))}`)).join(', ')
        : shown
          ? factValue(shown)
          : ''
    lines.push(`${ch.change} ${ch.name}${ch.package ? ` [${ch.package}]` : ''}: ${what}${ch.from ? evidence(ch.from.evidence) : ''}${ch.to ? evidence(ch.to.evidence) : ''}`)
  }
  lines.push(pageLine(r.page, 'compare_releases', 'changes'), ...(r.notes ?? []).map((n) => `Note: ${n}`))
  return lines.join('\n')
}

type PartSide = Fact | Static<typeof SignalPins> | null

/** `differs USART1.BRR: address 0x40011008 vs 0x4001380C …` or `USART1_TX: PA9/AF7, PB6/AF7 | PA9/AF7, …` per entry. */
export function renderCompareParts(r: ComparePartsResponse): string {
  const { part: a, other: b } = r
  const lines = [`${a.part} vs ${b.part} · ${r.topic} · ${r.status} · release ${r.release}`, ...sideLines('Part', a), ...sideLines('Other', b)]
  if (r.status !== 'ok') return notCompared(lines, a, b)
  const c = r.counts
  lines.push(`Counts: ${c.onlyPart} only on ${a.part}, ${c.onlyOther} only on ${b.part}, ${c.differs} differ, ${c.same} the same`)
  const side = (s: PartSide) => {
    if (s === null) return ''
    if ('pins' in s) return s.pins.map((p) => `${p.pin}${p.af === null ? '' : `/AF${p.af}`}`).join(', ')
    return r.topic === 'errata' ? 'listed' : factValue(s)
  }
  const ev = (s: PartSide) => (s === null ? '' : evidence('pins' in s ? s.pins.flatMap((p) => p.evidence.slice(0, 1)) : s.evidence))
  for (const e of r.entries) {
    const what =
      e.status === 'differs'
        ? e.differences.map((d) => `${d.member} ${compared(d.part)} vs ${compared(d.other)}`).join(', ')
        : e.status === 'only_part'
          ? `only on ${a.part} (${side(e.part)})`
          : e.status === 'only_other'
            ? `only on ${b.part} (${side(e.other)})`
            : `same (${side(e.part)})`
    lines.push(`${e.status} ${e.name}${e.kind ? ` (${e.kind})` : ''}: ${what}${ev(e.part)}${ev(e.other)}`)
  }
  lines.push(pageLine(r.page, 'compare_parts', 'entries'), ...(r.notes ?? []).map((n) => `Note: ${n}`))
  return lines.join('\n')
}

/** `error PIN_CONFLICT [USART1_TX:PA9, TIM1_CH2:PA9]: PA9 is assigned 2 times … [pins/… line 534 …]` per finding. */
export function renderCheck(r: CheckResponse): string {
  const { counts: c, page } = r
  const lines = [`${r.part} · check · ${r.status}${r.status === 'checked' ? ` · valid: ${r.valid ?? 'null (something asked is not covered)'}` : ''} · release ${r.release}`]
  if (r.pinsTarget) lines.push(`Pins: ${target(r.pinsTarget)}`)
  if (r.status === 'ambiguous') {
    lines.push(`Ambiguous: ${r.hint ?? ''}`)
    for (const x of r.candidates ?? []) lines.push(`  - ${target(x)}`)
    lines.push(DO_NOT_PICK_CONTEXT)
  }
  const sug = suggestionLine(r.suggestions)
  if (sug) lines.push(sug)
  if (r.status === 'checked') lines.push(`Findings: ${c.error} errors, ${c.warning} warnings, ${c.info} info`)
  for (const f of r.findings) lines.push(`${f.severity} ${f.code} [${list(f.inputs, 6)}]: ${f.message}${evidence(f.evidence)}`)
  if (page.truncatedBy) lines.push(`Listed ${page.returned} of ${page.total}: call check_configuration again with max_tokens=${page.neededMaxTokens} for all.`)
  for (const n of r.notes ?? []) lines.push(`Note: ${n}`)
  return lines.join('\n')
}
