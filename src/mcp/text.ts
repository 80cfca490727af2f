/**
 * Compact text renderings of the service's results, for the `text` content of each MCP tool
 * result. The JSON is in `structuredContent`; the text is what an agent reads first, so it says
 * the status, the values with their evidence, and what to call next, in a few lines.
 */

type Obj = Record<string, unknown>

const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v)
const obj = (v: unknown): Obj => (isObj(v) ? v : {})
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : [])
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : undefined)
/** Joins the present parts with `sep`. */
const join = (parts: Array<string | undefined | null | false>, sep = ', '): string => parts.filter((p): p is string => typeof p === 'string' && p !== '').join(sep)
const list = (v: unknown, max = 12): string => {
  const items = arr(v).map((x) => str(x) ?? JSON.stringify(x))
  return items.length > max ? `${items.slice(0, max).join(', ')}, … (${items.length} in all)` : items.join(', ')
}

/** `STM32F407VGTx (selector-part, LQFP100, STM32F4, Arm Cortex-M4, 1024 KB flash, 128 KB RAM, 168 MHz)` */
function entity(e: unknown): string {
  const p = obj(e)
  const details = join([
    str(p.kind),
    str(p.package),
    str(p.family),
    str(p.core),
    p.flashKb !== undefined ? `${str(p.flashKb)} KB flash` : undefined,
    p.ramKb !== undefined ? `${str(p.ramKb)} KB RAM` : undefined,
    p.maxFrequencyMhz !== undefined ? `${str(p.maxFrequencyMhz)} MHz` : undefined,
    p.memberCount !== undefined ? `${str(p.memberCount)} members` : undefined
  ])
  return `${str(p.name) ?? '?'}${details ? ` (${details})` : ''}`
}

/** `svd:STMicro/STM32F407 [LQFP100], 13978 facts, from svd/STMicro/STM32F407.svd` */
function target(t: unknown): string {
  const x = obj(t)
  const parts = arr(x.parts)
  return join([
    `${str(x.key) ?? '?'}${x.package ? ` [${str(x.package)}]` : ''}`,
    x.factCount !== undefined ? `${str(x.factCount)} facts` : undefined,
    str(obj(x.source).path) ? `from ${str(obj(x.source).path)}` : undefined,
    parts.length ? `parts ${list(parts.slice(0, 6))}${Number(x.partCount) > 6 ? `, … (${str(x.partCount)} in all)` : ''}` : undefined
  ])
}

/** One line per topic of a resolution: resolved/covered target, ambiguous candidates, or the gap. */
function topicLines(topics: unknown, indent = '  '): string[] {
  const out: string[] = []
  for (const [topic, r] of Object.entries(obj(topics))) {
    const x = obj(r)
    const status = str(x.status) ?? '?'
    if (x.target !== undefined && (status === 'resolved' || status === 'covered'))
      out.push(`${indent}${topic}: ${status} → ${typeof x.target === 'string' ? join([x.target, str(x.sourcePath)], ' from ') : target(x.target)}`)
    else if (status === 'ambiguous') {
      out.push(`${indent}${topic}: ambiguous, ${str(x.candidateCount) ?? arr(x.candidates).length} targets — ${str(x.hint) ?? ''}`)
      for (const c of arr(x.candidates)) out.push(`${indent}  - ${target(c)}`)
    } else
      out.push(
        `${indent}${topic}: ${status.replace('_', ' ')}${x.reason ? ` — ${str(x.reason)}` : ''}${arr(x.availablePackages).length ? ` (packages: ${list(x.availablePackages)})` : ''}`
      )
  }
  return out
}

function suggestionLine(v: unknown): string | undefined {
  const s = arr(v).map((x) => str(obj(x).name) ?? str(x))
  return s.length ? `Did you mean: ${s.join(', ')}?` : undefined
}

/** The line that continues a paged list, when there is more. */
function moreLine(page: unknown, tool: string, noun: string): string[] {
  const next = str(obj(page).nextCursor)
  return next ? [`More ${noun}: call ${tool} again with the same arguments and cursor="${next}"`] : []
}

const DO_NOT_PICK = 'Do not pick a candidate yourself: ask the user which one is meant, or call again with a full selector part or ordering code'
const DO_NOT_PICK_CONTEXT = `${DO_NOT_PICK} (for pins, package=… also narrows it).`

export function renderResolve(r: Obj): string {
  const lines = [`${str(r.q)} → ${str(r.status)}${r.match ? ` (${str(r.match)} match)` : ''}, release ${str(r.release)}`]
  if (r.part) lines.push(`Part: ${entity(r.part)}${obj(r.part).reason ? ` — ${str(obj(r.part).reason)}` : ''}`)
  lines.push('Topics:', ...topicLines(r.topics))
  const cands = arr(r.candidates)
  if (cands.length && !(r.status === 'resolved' && cands.length === 1)) {
    lines.push(`Candidates (${cands.length} of ${str(r.candidateCount)}):`)
    for (const c of cands) lines.push(`  - ${entity(c)}: ${str(obj(c).why) ?? ''}`)
    lines.push(...moreLine(r.page, 'resolve_part', 'candidates'))
  }
  const sug = suggestionLine(r.suggestions)
  if (sug) lines.push(sug)
  lines.push(
    r.status === 'resolved'
      ? `Next: call get_context with part="${str(r.q)}" and a topic whose status is resolved.`
      : r.status === 'ambiguous'
        ? `Next: ${DO_NOT_PICK}.`
        : 'Next: no part has this name. Check the suggestions, or call search_catalog.'
  )
  return lines.join('\n')
}

export function renderSearch(r: Obj): string {
  const results = arr(r.results)
  const lines = [`Catalog search "${str(r.q)}": ${str(r.status)}, ${str(r.total)} matches${r.match ? ` (${str(r.match)})` : ''}, showing ${results.length}; release ${str(r.release)}`]
  for (const x of results) lines.push(`  - ${entity(x)}; topics: ${list(obj(x).topics) || 'none'}; ${str(obj(x).why) ?? ''}`)
  lines.push(...moreLine(r.page, 'search_catalog', 'results'))
  const sug = suggestionLine(r.suggestions)
  if (sug) lines.push(sug)
  if (results.length) lines.push('Next: call resolve_part with one of these names, then get_context.')
  return lines.join('\n')
}

function sourceLines(sources: unknown): string[] {
  const out: string[] = []
  for (const s of arr(sources)) {
    const x = obj(s)
    const up = obj(x.upstream)
    out.push(
      `  - ${str(x.path)} — ${join([
        str(x.publisher) && `publisher ${str(x.publisher)}`,
        x.distributor && x.distributor !== x.publisher ? `via ${str(x.distributor)}` : undefined,
        str(x.license) && `license ${str(x.license)}`,
        str(x.kind),
        str(x.sha256) && `sha256 ${str(x.sha256)}`,
        str(up.url) ?? str(up.repository),
        arr(x.targets).length ? `targets ${list(x.targets)}` : undefined,
        obj(x.trust).checksumVerified === true ? 'checksum re-verified by this service' : undefined
      ])}`
    )
  }
  return out
}

export function renderCatalogPart(r: Obj): string {
  const lines = [`${r.part ? entity(r.part) : 'No single part'}: ${str(r.status)}${r.match ? ` (${str(r.match)} match)` : ''}, release ${str(r.release)}`]
  if (obj(r.part).reason) lines.push(`Mapping: ${str(obj(r.part).reason)}`)
  if (arr(obj(r.part).members).length) lines.push(`Members: ${list(obj(r.part).members, 20)}`)
  lines.push('Documents:', ...topicLines(r.documents))
  const src = arr(r.sources)
  if (src.length) lines.push(`Sources (${src.length}):`, ...sourceLines(src))
  const cands = arr(r.candidates)
  if (cands.length) {
    lines.push(`Candidates (${cands.length} of ${str(r.candidateCount)}):`)
    for (const c of cands) lines.push(`  - ${entity(c)}: ${str(obj(c).why) ?? ''}`)
    lines.push(`${DO_NOT_PICK}.`)
  }
  const sug = suggestionLine(r.suggestions)
  if (sug) lines.push(sug)
  return lines.join('\n')
}

export function renderCoverage(r: Obj): string {
  const lines = [
    `${str(r.part)}: ${str(r.status)}, release ${str(r.release)}; covered: ${list(r.covered) || 'none'}; not covered: ${list(r.notCovered) || 'none'}`,
    ...topicLines(r.topics)
  ]
  const cands = arr(r.candidates)
  if (cands.length) {
    lines.push(`Candidates (${cands.length} of ${str(r.candidateCount)}):`)
    for (const c of cands) lines.push(`  - ${entity(c)}: ${str(obj(c).why) ?? ''}`)
  }
  const sug = suggestionLine(r.suggestions)
  if (sug) lines.push(sug)
  return lines.join('\n')
}

export function renderDiscrepancies(r: Obj): string {
  const lines = [`${str(r.part)}: ${str(r.status)}, release ${str(r.release)}; ${str(r.count)} discrepancies`]
  for (const c of arr(r.checked).map(obj))
    lines.push(`${str(c.topic)}: ${str(c.target)} served, checked against ${list(arr(c.checked).map((x) => obj(x).key))}: ${str(c.agree)} agree, ${str(c.disagree)} disagree`)
  for (const d of arr(r.discrepancies).map(obj)) {
    lines.push(`- ${str(d.topic)} ${str(d.name)}:`)
    for (const f of arr(d.facts).map(obj)) lines.push(`    ${JSON.stringify(f.value)} from ${str(obj(f.scope).source)} (${str(obj(arr(f.evidence)[0]).locator)})`)
  }
  for (const n of arr(r.notes)) lines.push(str(n) ?? '')
  const next = str(obj(r.page).nextCursor)
  if (next) lines.push(`More: call again with cursor=${next}`)
  const sug = suggestionLine(r.suggestions)
  if (sug) lines.push(sug)
  return lines.join('\n')
}

export function renderSources(r: Obj): string {
  const src = arr(r.sources)
  const lines = [`${str(r.part)}: ${str(r.status)}, release ${str(r.release)}, ${src.length} source artifacts`, 'Topics:', ...topicLines(r.topics)]
  if (src.length) lines.push('Sources:', ...sourceLines(src))
  const sug = suggestionLine(r.suggestions)
  if (sug) lines.push(sug)
  return lines.join('\n')
}

export function renderRelease(r: Obj): string {
  const rel = obj(r.release)
  const api = obj(r.api)
  const counts = obj(rel.counts)
  const byTopic = Object.entries(obj(counts.byTopic))
    .map(([k, v]) => `${k} ${str(v)}`)
    .join(', ')
  return [
    `Promoted corpus release ${str(rel.id)} (created ${str(rel.createdAt)}, ${str(rel.format)}, indexer ${str(rel.indexerFormat)}, tokenizer ${str(rel.tokenizer)}, store ${str(rel.store)})`,
    `Counts: ${str(counts.facts)} facts (${byTopic}), ${str(counts.parts)} parts, ${str(counts.targets)} targets, ${str(rel.sourceCount)} sources; complete: ${rel.complete === true ? 'yes' : 'no'}`,
    `Kept releases (usable as corpus_release): ${list(rel.kept) || 'none'}`,
    `API contract ${str(api.version)}, ${str(api.openapi_sha256)}`
  ].join('\n')
}

export function renderErrorCode(r: Obj): string {
  return `${str(r.code)} (HTTP ${str(r.status)} ${str(r.title)}; ${r.retryable === true ? 'retryable' : 'not retryable'}): ${str(r.guidance)}`
}

/** `address 0x40023830, offset 0x30, 32 bits, reset 0x00100000, read-write — AHB1 peripheral clock register` */
function factValue(topic: string, v: Obj): string {
  const desc = str(v.description)
  const tail = (s: string) => (desc ? `${s} — ${desc}` : s)
  if (topic === 'registers') {
    if (v.address !== undefined)
      return tail(
        join([`address ${str(v.address)}`, v.offset !== undefined && `offset ${str(v.offset)}`, v.size != null && `${str(v.size)} bits`, v.resetValue != null && `reset ${str(v.resetValue)}`, str(v.access), str(v.protection) && `protection ${str(v.protection)}`, v.array !== undefined && `array of ${str(obj(v.array).count)} elements ${str(obj(v.array).increment)} bytes apart (address is element 0's)`])
      )
    if (v.baseAddress !== undefined) {
      const irqs = arr(v.interrupts).map((i) => `${str(obj(i).name)}=${str(obj(i).value)}`)
      return tail(join([`peripheral at base address ${str(v.baseAddress)}`, str(v.derivedFrom) && `derived from ${str(v.derivedFrom)}`, irqs.length ? `IRQ ${irqs.join(' ')}` : undefined]))
    }
    if (v.bitOffset !== undefined) {
      const lo = Number(v.bitOffset)
      const w = Number(v.bitWidth)
      const enums = arr(v.enumeratedValues).map((e) => `${str(obj(e).value)}=${str(obj(e).name)}`)
      return tail(join([w > 1 ? `bits [${lo + w - 1}:${lo}]` : `bit ${lo}`, str(v.access), enums.length ? `values ${enums.slice(0, 8).join(' ')}${enums.length > 8 ? ' …' : ''}` : undefined]))
    }
  }
  if (topic === 'pins') {
    const afs = arr(v.alternateFunctions).map((a) => `AF${str(obj(a).af)} ${str(obj(a).signal)}`)
    return join(
      [
        `pin ${list(v.positions) || str(v.position)}${v.package ? ` (${str(v.package)})` : ''}`,
        str(v.type),
        arr(v.signals).length ? `signals ${list(v.signals, 16)}` : undefined,
        afs.length ? afs.join(', ') : undefined
      ],
      '; '
    )
  }
  if (topic === 'electrical' && v.value !== undefined) return `${str(v.value)}${v.unit ? ` ${str(v.unit)}` : ''}`
  // An NXP SDK feature header's erratum: its id, module and one-line title, no revisions.
  if (topic === 'errata' && v.id !== undefined) return join([`erratum ${str(v.id) ?? ''}`, str(v.module), str(v.title)], '; ')
  if (topic === 'errata') {
    const revs = arr(v.revisions).map(obj)
    const applies = revs.filter((r) => r.applies === true).map((r) => str(r.code))
    const not = revs.filter((r) => r.applies === false).map((r) => str(r.code))
    const handling = arr(v.handling).map((h) => join([str(obj(h).handling), str(obj(h).module), list(obj(h).functions, 4)], ' '))
    return join(
      [
        `${str(v.kind) ?? 'erratum'} ${str(v.number) ?? ''}`.trim(),
        str(v.function),
        `applies to revisions ${applies.join(' ') || 'none listed'}${v.appliesToUnlistedRevisions === true ? ' and unlisted ones' : ''}`,
        not.length ? `not ${not.join(' ')}` : undefined,
        handling.length ? `handling: ${handling.join(' / ')}` : undefined,
        v.workaroundEnabledByDefault !== undefined ? `workaround enabled by default: ${v.workaroundEnabledByDefault === true ? 'yes' : 'no'}` : undefined
      ],
      '; '
    )
  }
  // A value shape this renderer does not know: its scalar members.
  return join(Object.entries(v).flatMap(([k, x]) => (str(x) !== undefined ? [`${k} ${str(x)}`] : [])))
}

/** `[svd/STMicro/STM32F407.svd line 5954: /device/…/register[name=AHB1ENR]]` */
function evidence(f: Obj): string {
  const ev = arr(f.evidence).map(obj)
  if (!ev.length) return ''
  const first = ev[0]!
  return ` [${join([str(first.sourcePath), str(first.locator)], ' ')}${ev.length > 1 ? ` +${ev.length - 1} more` : ''}]`
}

/** One line per fact, `NAME = value … [evidence]`, between a header and the paging line. */
export function renderContext(r: Obj): string {
  const page = obj(r.page)
  const lines = [
    `${str(r.part)} · ${str(r.topic)} · ${str(r.status)} · release ${str(r.release)}${r.target ? ` · target ${target(r.target)}` : ''}`
  ]
  const filters = Object.entries(obj(r.filters)).map(([k, v]) => `${k}=${Array.isArray(v) ? v.join(',') : str(v)}`)
  if (filters.length) lines.push(`Filters: ${filters.join('; ')}`)
  for (const f of arr(r.facts).map(obj)) lines.push(`${str(f.name)} = ${factValue(str(r.topic) ?? '', obj(f.value))}${evidence(f)}`)
  if (r.status === 'ok') {
    lines.push(
      `Page: ${str(page.returned)} facts (limit ${str(page.limit)}, ${str(page.tokens)}/${str(page.maxTokens)} tokens)` +
        (page.budgetTooSmall
          ? `; max_tokens is too small for the next fact: call get_context again with the same arguments and max_tokens=${str(page.neededMaxTokens)}`
          : page.nextCursor
            ? `; more facts: call get_context again with the same arguments and cursor="${str(page.nextCursor)}"`
            : page.truncatedBy
              ? `; truncated by ${str(page.truncatedBy)}`
              : '; end of the result set')
    )
  }
  if (r.status === 'ambiguous') {
    lines.push(`Ambiguous: ${str(r.candidateCount)} targets — ${str(r.hint) ?? ''}`)
    for (const c of arr(r.candidates)) lines.push(`  - ${target(c)}`)
    lines.push(DO_NOT_PICK_CONTEXT)
  }
  if (r.status === 'not_covered') lines.push(`Not covered: ${str(r.reason) ?? ''}${arr(r.availablePackages).length ? ` (packages: ${list(r.availablePackages)})` : ''}`)
  const sug = suggestionLine(r.suggestions)
  if (sug) lines.push(sug)
  for (const n of arr(r.notes)) lines.push(`Note: ${str(n)}`)
  return lines.join('\n')
}

/** A compared value as text: `0x40011000`, `PA9/AF7, PB6/AF7`, `168 MHz`. */
function compared(v: unknown): string {
  if (Array.isArray(v)) return v.length ? v.map((x) => str(x) ?? JSON.stringify(x)).join(', ') : '[]'
  return str(v) ?? JSON.stringify(v)
}

/** One side of a comparison that did not resolve: why, and its candidates. */
function sideLines(label: string, s: Obj): string[] {
  if (s.status === 'resolved') return []
  const out = [`${label} ${str(s.part)} (release ${str(s.release)}): ${str(s.status)}${s.reason ? ` — ${str(s.reason)}` : ''}${s.hint ? ` — ${str(s.hint)}` : ''}`]
  for (const c of arr(s.candidates)) out.push(`  - ${target(c)}`)
  const sug = suggestionLine(s.suggestions)
  if (sug) out.push(`  ${sug}`)
  return out
}

function pageLine(page: Obj, tool: string, noun: string): string {
  return (
    `Page: ${str(page.returned)} ${noun} (limit ${str(page.limit)}, ${str(page.tokens)}/${str(page.maxTokens)} tokens)` +
    (page.budgetTooSmall
      ? `; max_tokens is too small for the next one: call ${tool} again with max_tokens=${str(page.neededMaxTokens)}`
      : page.nextCursor
        ? `; more: call ${tool} again with the same arguments and cursor="${str(page.nextCursor)}"`
        : '; end of the comparison')
  )
}

/** `changed FSMC.BWTR3: address 0xA0000114 → 0xA0000104, offset …  [from …] [to …]` per change. */
export function renderCompareReleases(r: Obj): string {
  const from = obj(r.from)
  const to = obj(r.to)
  const lines = [`${str(from.part)} · ${str(r.topic)} · ${str(r.status)} · release ${str(from.release)} → ${str(to.release)}`]
  lines.push(...sideLines('From', from), ...sideLines('To', to))
  if (r.status !== 'ok') {
    if (arr(from.candidates).length || arr(to.candidates).length) lines.push(`${DO_NOT_PICK}.`)
    return lines.join('\n')
  }
  const c = obj(r.counts)
  lines.push(`Counts: ${str(c.added)} added, ${str(c.removed)} removed, ${str(c.changed)} changed, ${str(c.unchanged)} unchanged`)
  for (const a of arr(r.artifacts).map(obj)) if (a.status !== 'unchanged') lines.push(`Artifact ${str(a.status)}: ${str(a.path)}`)
  for (const ch of arr(r.changes).map(obj)) {
    const f = obj(ch.from)
    const t = obj(ch.to)
    const members = arr(ch.changedMembers).map((m) => str(m) ?? '')
    const what =
      ch.change === 'changed'
        ? members.map((m) => (m === 'scope' ? 'scope' : `${m} ${compared(obj(f.value)[m])} → ${compared(obj(t.value)[m])}`)).join(', ')
        : factValue(str(r.topic) ?? '', obj((ch.change === 'added' ? t : f).value))
    lines.push(`${str(ch.change)} ${str(ch.name)}${ch.package ? ` [${str(ch.package)}]` : ''}: ${what}${ch.from ? evidence(f) : ''}${ch.to ? evidence(t) : ''}`)
  }
  lines.push(pageLine(obj(r.page), 'compare_releases', 'changes'))
  for (const n of arr(r.notes)) lines.push(`Note: ${str(n)}`)
  return lines.join('\n')
}

/** `differs USART1.BRR: address 0x40011008 vs 0x4001380C …` or `USART1_TX: PA9/AF7, PB6/AF7 | PA9/AF7, …` per entry. */
export function renderCompareParts(r: Obj): string {
  const a = obj(r.part)
  const b = obj(r.other)
  const lines = [`${str(a.part)} vs ${str(b.part)} · ${str(r.topic)} · ${str(r.status)} · release ${str(r.release)}`]
  lines.push(...sideLines('Part', a), ...sideLines('Other', b))
  if (r.status !== 'ok') {
    if (arr(a.candidates).length || arr(b.candidates).length) lines.push(`${DO_NOT_PICK}.`)
    return lines.join('\n')
  }
  const c = obj(r.counts)
  lines.push(`Counts: ${str(c.onlyPart)} only on ${str(a.part)}, ${str(c.onlyOther)} only on ${str(b.part)}, ${str(c.differs)} differ, ${str(c.same)} the same`)
  const side = (s: unknown) => {
    const x = obj(s)
    if (x.pins) return arr(x.pins).map((p) => `${str(obj(p).pin)}${obj(p).af === null ? '' : `/AF${str(obj(p).af)}`}`).join(', ')
    return r.topic === 'errata' ? 'listed' : factValue(str(r.topic) ?? '', obj(x.value))
  }
  for (const e of arr(r.entries).map(obj)) {
    const diffs = arr(e.differences).map(obj)
    const what =
      e.status === 'differs'
        ? diffs.map((d) => `${str(d.member)} ${compared(d.part)} vs ${compared(d.other)}`).join(', ')
        : e.status === 'only_part'
          ? `only on ${str(a.part)} (${side(e.part)})`
          : e.status === 'only_other'
            ? `only on ${str(b.part)} (${side(e.other)})`
            : `same (${side(e.part)})`
    const ev = (s: unknown) => {
      const x = obj(s)
      return evidence({ evidence: x.evidence ?? arr(x.pins).flatMap((p) => arr(obj(p).evidence).slice(0, 1)) })
    }
    lines.push(`${str(e.status)} ${str(e.name)}${e.kind ? ` (${str(e.kind)})` : ''}: ${what}${e.part ? ev(e.part) : ''}${e.other ? ev(e.other) : ''}`)
  }
  lines.push(pageLine(obj(r.page), 'compare_parts', 'entries'))
  for (const n of arr(r.notes)) lines.push(`Note: ${str(n)}`)
  return lines.join('\n')
}

/** `error PIN_CONFLICT [USART1_TX:PA9, TIM1_CH2:PA9]: PA9 is assigned 2 times … [pins/… line 534 …]` per finding. */
export function renderCheck(r: Obj): string {
  const c = obj(r.counts)
  const page = obj(r.page)
  const lines = [
    `${str(r.part)} · check · ${str(r.status)}${r.status === 'checked' ? ` · valid: ${str(r.valid) ?? 'null (something asked is not covered)'}` : ''} · release ${str(r.release)}`
  ]
  if (r.pinsTarget) lines.push(`Pins: ${target(r.pinsTarget)}`)
  if (r.status === 'ambiguous') {
    lines.push(`Ambiguous: ${str(r.hint) ?? ''}`)
    for (const x of arr(r.candidates)) lines.push(`  - ${target(x)}`)
    lines.push(`${DO_NOT_PICK_CONTEXT}`)
  }
  const sug = suggestionLine(r.suggestions)
  if (sug) lines.push(sug)
  if (r.status === 'checked') lines.push(`Findings: ${str(c.error)} errors, ${str(c.warning)} warnings, ${str(c.info)} info`)
  for (const f of arr(r.findings).map(obj)) lines.push(`${str(f.severity)} ${str(f.code)} [${list(f.inputs, 6)}]: ${str(f.message)}${evidence(f)}`)
  if (page.truncatedBy) lines.push(`Listed ${str(page.returned)} of ${str(page.total)}: call check_configuration again with max_tokens=${str(page.neededMaxTokens)} for all.`)
  for (const n of arr(r.notes)) lines.push(`Note: ${str(n)}`)
  return lines.join('\n')
}
