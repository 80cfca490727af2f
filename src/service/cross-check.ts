import type { CrossCheckRule } from '../model/catalog.js'
import type { Topic } from '../model/fact.js'
import { countTokens } from '../model/tokens.js'
import { decodeFact, type DecodedFact } from '../store/fact-body.js'
import type { FactRow, FactRowHead, ReleaseStore } from '../store/types.js'
import type { TargetChoice } from './catalog-index.js'
import { readAll } from './read-all.js'

/**
 * Cross-checking a topic that several kinds of source give (issue "Depth"): a part is served the
 * facts of one source, by the release's rule (curation `crossCheck`), and every other source's
 * facts are matched against them. A matched fact carries every source's evidence and
 * `agreement: "agree"`; where the values differ, each source's value is a fact of its own, scoped
 * to its source and marked `disagree` — never one picked silently.
 */

/** The targets of one topic of a part: the one served, the ones checked against it, why, and how they are compared. */
export interface CrossPlan {
  served: TargetChoice
  checked: TargetChoice[]
  reason: string
  /** Kinds left unchecked because several of their targets match the part (never one picked). */
  unchecked: Array<{ kind: string; targets: string[] }>
  /** The rule's value members compared (absent: the whole value), and whether a checked list may be within the served one. */
  compare?: string[]
  subset?: boolean
}

/** One disagreement: the served source's fact and the checked source's, both with their evidence. */
export interface Discrepancy {
  topic: Topic
  name: string
  facts: [DecodedFact, DecodedFact]
}

/** What a cross-check found over a whole topic of the served target. */
export interface CrossCheckResult {
  /** Rows of the served target whose answer differs from the stored one, by the row's `ord`. */
  rows: Map<number, { body: string; tokens: number }>
  agree: number
  disagree: number
  /** Facts of a checked target matched by none served, by target key: names only. */
  onlyChecked: Record<string, string[]>
  discrepancies: Discrepancy[]
}

interface Match {
  served: DecodedFact
  checked: DecodedFact[]
  agree: boolean
  /** The checked facts' names are other names of the served one (interrupts matched by number). */
  alias?: boolean
}

/** What a cross-check rule says (curation `crossCheck`, indexer/curation/curation.ts). */
export type Rule = Pick<CrossCheckRule, 'order' | 'reason' | 'compare' | 'subset'>

/**
 * Plans a topic whose rule lists the kinds of its candidates. Choices are grouped by package (pins
 * are per package; other topics are one group); in each group the first kind of the rule's order it
 * has leads. One group led by one target: that target is served, and each other kind with one
 * target in the group is checked against it. Otherwise no plan: the topic stays ambiguous between
 * the `leads`, never a target that would only be checked.
 */
export function planCrossCheck(choices: TargetChoice[], rule: Rule, kindOf: (c: TargetChoice) => string): { plan?: CrossPlan; leads: TargetChoice[] } {
  const rank = (k: string) => (rule.order.includes(k) ? rule.order.indexOf(k) : rule.order.length)
  const groups = new Map<string, Map<string, TargetChoice[]>>()
  for (const c of choices) {
    const byKind = groups.get(c.package ?? '') ?? new Map<string, TargetChoice[]>()
    groups.set(c.package ?? '', byKind)
    const k = kindOf(c)
    byKind.set(k, [...(byKind.get(k) ?? []), c])
  }
  const ranked = [...groups.values()].map((byKind) => [...byKind].sort(([a], [b]) => rank(a) - rank(b) || (a < b ? -1 : 1)))
  const leads = ranked.flatMap((kinds) => kinds[0]![1])
  if (ranked.length !== 1 || leads.length !== 1) return { leads }
  const rest = ranked[0]!.slice(1).map(([kind, targets]) => ({ kind, targets }))
  const plan: CrossPlan = {
    served: leads[0]!,
    checked: rest.filter((r) => r.targets.length === 1).map((r) => r.targets[0]!),
    reason: rule.reason,
    unchecked: rest.filter((r) => r.targets.length > 1).map((r) => ({ kind: r.kind, targets: r.targets.map((t) => t.target.key) })),
    ...(rule.compare ? { compare: rule.compare } : {}),
    ...(rule.subset ? { subset: true } : {})
  }
  return { plan, leads }
}

/** A target's facts of a topic, and the row position each is stored at, by fact id. */
async function factsOf(store: ReleaseStore, choice: TargetChoice, topic: Topic): Promise<{ facts: DecodedFact[]; ords: Map<string, number> }> {
  const rows = await readAll(store, choice, topic, [], [])
  const facts = rows.map((r) => decodeFact(r.body))
  return { facts, ords: new Map(facts.map((f, i) => [f.id, rows[i]!.ord])) }
}

/** Reads the plan's targets and matches their facts. Deterministic: rows in stored order. */
export async function crossCheck(store: ReleaseStore, topic: Topic, plan: CrossPlan): Promise<CrossCheckResult> {
  const { facts: served, ords } = await factsOf(store, plan.served, topic)
  const out: CrossCheckResult = { rows: new Map(), agree: 0, disagree: 0, onlyChecked: {}, discrepancies: [] }
  const merged = new Map<string, { fact: DecodedFact; disagree: DecodedFact[] }>()
  for (const c of plan.checked) {
    const { facts: checked } = await factsOf(store, c, topic)
    const { matches, unmatched } = (MATCHERS[topic] ?? byName(valueOf(plan)))(served, checked)
    if (unmatched.length) out.onlyChecked[c.target.key] = unmatched.map((f) => f.name)
    for (const m of matches) {
      const entry = merged.get(m.served.id) ?? { fact: { ...m.served, evidence: [...m.served.evidence] }, disagree: [] }
      merged.set(m.served.id, entry)
      if (m.agree) {
        entry.fact.evidence.push(...m.checked.flatMap((f) => f.evidence))
        const aliases = m.alias ? m.checked.map((f) => f.name).filter((n) => !entry.fact.aliases?.includes(n)) : []
        if (aliases.length) entry.fact.aliases = [...(entry.fact.aliases ?? []), ...aliases]
        if (entry.fact.agreement !== 'disagree') entry.fact.agreement = 'agree'
      } else {
        entry.fact.agreement = 'disagree'
        for (const f of m.checked) {
          const own: DecodedFact = { ...f, scope: { ...f.scope, source: f.evidence[0]?.sourcePath ?? c.target.sourcePath }, agreement: 'disagree' }
          entry.disagree.push(own)
          out.discrepancies.push({ topic, name: m.served.name, facts: [m.served, own] })
        }
      }
    }
  }
  for (const { fact, disagree } of merged.values()) {
    if (fact.agreement === 'disagree') {
      fact.scope = { ...fact.scope, source: fact.evidence[0]?.sourcePath ?? plan.served.target.sourcePath }
      out.disagree++
    } else out.agree++
    const body = [fact, ...disagree].map(serialize).join(',')
    out.rows.set(ords.get(fact.id)!, { body, tokens: countTokens(body) })
  }
  for (const d of out.discrepancies) d.facts[0] = merged.get(d.facts[0].id)!.fact
  return out
}

/** A stored fact's JSON, members in the indexer's order (indexer/encode.ts), the alias list after the name. */
function serialize(f: DecodedFact): string {
  const { id, topic, name, aliases, value, scope, evidence, agreement } = f
  return JSON.stringify({ id, topic, name, ...(aliases ? { aliases } : {}), value, scope, evidence, ...(agreement ? { agreement } : {}) })
}

/** A served target's row as the cross-check answers it: its tokens, and its body once the store has read it. */
export function crossCheckedRow<R extends FactRowHead | FactRow>(r: R, result: CrossCheckResult): R {
  const m = result.rows.get(r.ord)
  if (!m) return r
  return 'body' in r ? { ...r, body: m.body, tokens: m.tokens } : { ...r, tokens: m.tokens }
}

type Matcher = (served: DecodedFact[], checked: DecodedFact[]) => { matches: Match[]; unmatched: DecodedFact[] }

const key = (s: string) => s.toUpperCase().replace(/[^A-Z0-9]/g, '')
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b)

/** Whether a checked fact's value agrees with the served one's, by the plan's rule. */
type ValueCheck = (served: DecodedFact, checked: DecodedFact) => boolean

/**
 * The rule's `compare` members (else the whole value) must be equal; with `subset`, a checked
 * member that is a list agrees when each of its entries is in the served one's (pins: every AF
 * stm32-data gives is ST's, with the same number; an absent list is an empty one).
 */
function valueOf(plan: CrossPlan): ValueCheck {
  const members = plan.compare
  if (!members) return (s, c) => same(s.value, c.value)
  const within = (s: unknown, c: unknown) => {
    const mine = new Set((Array.isArray(s) ? s : []).map((x) => JSON.stringify(x)))
    return (Array.isArray(c) ? c : []).every((x) => mine.has(JSON.stringify(x)))
  }
  return (s, c) => members.every((m) => (plan.subset && (Array.isArray(s.value[m]) || Array.isArray(c.value[m])) ? within(s.value[m], c.value[m]) : same(s.value[m], c.value[m])))
}

/** dma, clocks, pins: by name; the values agree by the rule (valueOf). */
const byName =
  (agrees: ValueCheck): Matcher =>
  (served, checked) => {
    const byKey = new Map(served.map((f) => [key(f.name), f]))
    const matches: Match[] = []
    const unmatched: DecodedFact[] = []
    for (const c of checked) {
      const s = byKey.get(key(c.name))
      if (s) matches.push({ served: s, checked: [c], agree: agrees(s, c) })
      else unmatched.push(c)
    }
    return { matches, unmatched }
  }

/**
 * Interrupts: one line by name and number agrees; the same name at another number disagrees; a
 * line at the same number under another name (`DMA1_CH1`, `DMA1_Channel1`) agrees, the other name
 * kept as an alias.
 */
const interrupts: Matcher = (served, checked) => {
  const num = (f: DecodedFact) => f.value.number as number | null
  const matches: Match[] = []
  const taken = new Set<DecodedFact>()
  let rest = checked.filter((c) => {
    const s = served.find((f) => !taken.has(f) && key(f.name) === key(c.name))
    if (!s) return true
    taken.add(s)
    matches.push({ served: s, checked: [c], agree: num(s) === num(c) })
    return false
  })
  rest = rest.filter((c) => {
    const s = served.find((f) => !taken.has(f) && num(f) !== null && num(f) === num(c))
    if (!s) return true
    taken.add(s)
    matches.push({ served: s, checked: [c], agree: true, alias: true })
    return false
  })
  return { matches, unmatched: rest }
}

interface Extent {
  kind: string
  start: number
  end: number
  facts: DecodedFact[]
}

/** Regions of one kind merged where they touch: what a source says that kind of memory covers. */
function extents(facts: DecodedFact[]): Extent[] {
  const regions = facts
    .map((f) => ({ f, kind: String(f.value.kind), start: Number.parseInt(String(f.value.start), 16), size: Number(f.value.size) }))
    .filter((r) => Number.isFinite(r.start) && Number.isFinite(r.size))
    .sort((a, b) => (a.kind < b.kind ? -1 : a.kind > b.kind ? 1 : a.start - b.start))
  const out: Extent[] = []
  for (const r of regions) {
    const last = out[out.length - 1]
    if (last && last.kind === r.kind && r.start <= last.end) {
      last.end = Math.max(last.end, r.start + r.size)
      last.facts.push(r.f)
    } else out.push({ kind: r.kind, start: r.start, end: r.start + r.size, facts: [r.f] })
  }
  return out
}

/**
 * Memory: regions of a kind are compared by the address ranges they cover together, so one flash
 * region of 1 MiB agrees with three sectors that cover the same addresses. Overlapping ranges that
 * differ disagree: the checked regions are shown beside the first served region of the range.
 */
const memory: Matcher = (served, checked) => {
  const mine = extents(served)
  const matches: Match[] = []
  const unmatched: DecodedFact[] = []
  for (const e of extents(checked)) {
    const over = mine.filter((m) => m.kind === e.kind && m.start < e.end && e.start < m.end)
    if (over.length === 0) {
      unmatched.push(...e.facts)
      continue
    }
    const agree = over.length === 1 && over[0]!.start === e.start && over[0]!.end === e.end
    if (agree) for (const s of over[0]!.facts) matches.push({ served: s, checked: e.facts, agree })
    else {
      // Shown: the checked regions no served one equals (modm's sram2 where the chip's SRAM ends), else all of them.
      const equal = (f: DecodedFact) => over.some((m) => m.facts.some((s) => s.value.start === f.value.start && s.value.size === f.value.size))
      const differing = e.facts.filter((f) => !equal(f))
      matches.push({ served: over[0]!.facts[0]!, checked: differing.length ? differing : e.facts, agree })
    }
  }
  return { matches, unmatched }
}

const MATCHERS: Partial<Record<Topic, Matcher>> = { interrupts, memory }
