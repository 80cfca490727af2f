import { TOPICS, type SeedTopic as Topic } from '../src/model/fact.js'
import type { CatalogEntity } from '../src/model/catalog.js'
import { terms } from '../src/model/text.js'
import type { HardwareFacts } from '../src/service/facts.js'
import type { ReleaseStore } from '../src/store/types.js'
import { rng } from '../test/store/model.js'

/**
 * The share of each kind of request in an agent's day (issue 17): resolve a part, read facts by
 * exact names, by name prefix, by text query, ask what a part covers, search the catalog.
 */
export const MIX_SHARES = { resolve: 0.2, names: 0.3, prefixes: 0.2, query: 0.1, coverage: 0.1, search: 0.1 } as const
export type MixKind = keyof typeof MIX_SHARES
export const MIX_KINDS = Object.keys(MIX_SHARES) as MixKind[]

export interface MixRequest {
  kind: MixKind
  /** The catalog entity the request is about (its display name). */
  part: string
  path: string
}

/** How often each topic is asked for, among the topics a part has. */
const TOPIC_WEIGHT: Record<Topic, number> = { registers: 55, pins: 20, electrical: 10, errata: 15 }
/** Phrases an agent searches registers, pins, limits and errata with. */
const PHRASES: Record<Topic, string[]> = {
  registers: ['baud rate', 'clock enable', 'interrupt enable', 'reset', 'status flag', 'prescaler', 'dma request', 'data register', 'control register', 'low power', 'watchdog', 'transmit', 'receive', 'error flag', 'pull-up', 'output speed', 'alternate function', 'calibration', 'counter', 'compare'],
  pins: ['usart tx', 'uart rx', 'spi sck', 'i2c scl', 'i2c sda', 'adc', 'timer channel', 'usb', 'can', 'oscillator', 'swd', 'analog'],
  electrical: ['supply voltage', 'temperature', 'current', 'clock', 'vdd'],
  errata: ['power', 'radio', 'gpio', 'rtc', 'usb', 'twi', 'spi', 'uart', 'timer', 'saadc', 'nvmc', 'clock', 'ram', 'temp', 'workaround']
}
const LIMITS = [undefined, undefined, 5, 10, 20, 50] as const
const MAX_TOKENS = [undefined, undefined, 2000, 4000, 8000, 16000] as const

/** What a topic of a part offers for requests: its facts' names, and the texts a query could match. */
interface TopicFacts {
  names: string[]
  /** Names grouped by their first segment (a peripheral, a pin port, an electrical quantity). */
  groups: Map<string, string[]>
  /** Per fact, the words a reader would search it by (see ownWords). */
  texts: string[][]
}

interface Part {
  entity: CatalogEntity
  /** Ways a client writes it: the name, lower case, an ordering code. */
  spellings: string[]
  topics: Array<[Topic, TopicFacts]>
}

/** `STM32F407VGTx` → `STM32F407VGT6` (the temperature digit an ordering code puts for the x). */
function orderingCodes(e: CatalogEntity): string[] {
  if (e.kind !== 'selector-part' || !/x$/.test(e.name)) return []
  const code = e.name.slice(0, -1) + '6'
  return [code, code + 'TR']
}

/**
 * What a reader knows a fact by and would type: a register's or field's description words, a
 * pin's signal names. Not every string of the value: its access (`read-write`) or enumerated
 * values match most facts of a part, and no one searches for them.
 */
function ownWords(value: unknown): string[] {
  const v = value as { description?: unknown; signals?: unknown }
  const text = [typeof v.description === 'string' ? v.description : '', ...(Array.isArray(v.signals) ? v.signals : [])].join(' ')
  return terms(text).filter((t) => t.length > 2 && !/^(?:0x)?[0-9a-f]*[0-9][0-9a-f]*$/.test(t))
}

function group(name: string, topic: Topic): string {
  if (topic === 'pins') return /^P[A-K][0-9]/.test(name) ? name.slice(0, 2) : name
  return name.split('.')[0]!
}

async function topicFacts(store: ReleaseStore, target: string, topic: Topic): Promise<TopicFacts> {
  const rows = await store.queryFacts({ target, topic, names: [], prefixes: [], terms: [], limit: 1e7 })
  const names: string[] = []
  const groups = new Map<string, string[]>()
  const texts: string[][] = []
  for (const r of rows) {
    const f = JSON.parse(r.body) as { name: string; value: unknown }
    names.push(f.name)
    const g = group(f.name, topic)
    groups.set(g, [...(groups.get(g) ?? []), f.name])
    texts.push(ownWords(f.value))
  }
  return { names, groups, texts }
}

/** Every leaf entity (selector part or device) with at least one topic that resolves to one target. */
async function parts(facts: HardwareFacts): Promise<Part[]> {
  const store = await facts.store()
  const ix = facts.index(store)
  const byTarget = new Map<string, TopicFacts>()
  const out: Part[] = []
  for (const entity of store.catalog.entities) {
    if (entity.kind === 'refname') continue
    const topics: Part['topics'] = []
    for (const topic of TOPICS) {
      const { choice } = facts.topicResolution(ix, [entity], topic, 10)
      if (!choice || !(choice.target.factCounts[topic]! > 0)) continue
      const key = `${choice.target.key}\0${topic}`
      if (!byTarget.has(key)) byTarget.set(key, await topicFacts(store, choice.target.key, topic))
      topics.push([topic, byTarget.get(key)!])
    }
    if (topics.length === 0) continue
    const spellings = [entity.name, entity.name.toLowerCase(), ...orderingCodes(entity)]
    out.push({ entity, spellings, topics })
  }
  return out
}

const query = (params: Record<string, string | number | undefined>) =>
  Object.entries(params)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${encodeURIComponent(String(v))}`)
    .join('&')

/**
 * Distinct requests of every kind, generated from the release's own catalog and facts with a
 * seeded generator, `perKind[kind]` of each (fewer only if the catalog cannot make that many).
 * Which of them every contender serves is decided by asking them (bench/mix.ts), not here.
 */
export async function generateMix(facts: HardwareFacts, perKind: Record<MixKind, number>, seed = 17): Promise<MixRequest[]> {
  const r = rng(seed)
  const all = await parts(facts)
  const pick = <T>(xs: readonly T[]): T => r.pick(xs)
  const some = <T>(xs: readonly T[], n: number): T[] => {
    const out = new Set<T>()
    for (let i = 0; i < n * 4 && out.size < Math.min(n, xs.length); i++) out.add(pick(xs))
    return [...out]
  }
  const topicOf = (p: Part): [Topic, TopicFacts] => {
    const total = p.topics.reduce((s, [t]) => s + TOPIC_WEIGHT[t], 0)
    let x = r.next() * total
    for (const tf of p.topics) if ((x -= TOPIC_WEIGHT[tf[0]]) < 0) return tf
    return p.topics[p.topics.length - 1]!
  }
  const page = () => ({ limit: pick(LIMITS), max_tokens: pick(MAX_TOKENS) })
  const make: Record<MixKind, (p: Part) => string> = {
    resolve: (p) => `/v1/parts/resolve?${query({ q: pick(p.spellings), candidate_limit: pick([undefined, undefined, 3, 5, 20]), query: r.next() < 0.2 ? (p.entity.package ?? p.entity.core) : undefined })}`,
    coverage: (p) => `/v1/coverage?${query({ part: pick(p.spellings) })}`,
    // A prefix of the part's name, as someone narrows down a family: `STM32F40`, `STM32F407V`.
    search: (p) => `/v1/catalog/search?${query({ q: p.entity.name.slice(0, 5 + r.int(Math.max(1, p.entity.name.length - 5))), candidate_limit: pick([undefined, 5, 10, 20]) })}`,
    // 1–5 names, from one group (a peripheral's registers and fields, a port's pins), as a reader asks them.
    names: (p) => {
      const [topic, tf] = topicOf(p)
      const names = some(tf.groups.get(pick([...tf.groups.keys()]))!, 1 + r.int(5))
      return `/v1/context?${query({ part: pick(p.spellings), topic, fact_names: names.join(','), ...(r.next() < 0.3 ? page() : {}) })}`
    },
    // A group (`USART2.`), a register's fields (`USART2.CR1.`), or a pin port (`PA`).
    prefixes: (p) => {
      const [topic, tf] = topicOf(p)
      const g = pick([...tf.groups.keys()])
      const name = pick(tf.groups.get(g)!)
      const prefix = topic === 'registers' && r.next() < 0.4 && name.includes('.') ? name.split('.').slice(0, 2).join('.') + '.' : topic === 'pins' ? g : `${g}.`
      return `/v1/context?${query({ part: pick(p.spellings), topic, fact_name_prefixes: prefix, ...page() })}`
    },
    // A phrase an agent would type, or words of one fact's description or signals.
    query: (p) => {
      const [topic, tf] = topicOf(p)
      const own = pick(tf.texts)
      const text = r.next() < 0.5 || own.length === 0 ? pick(PHRASES[topic]) : some(own, 1 + r.int(3)).join(' ')
      return `/v1/context?${query({ part: pick(p.spellings), topic, query: text, ...page() })}`
    }
  }
  const out: MixRequest[] = []
  const seen = new Set<string>()
  for (const kind of MIX_KINDS) {
    let made = 0
    for (let tries = 0; made < perKind[kind] && tries < perKind[kind] * 20; tries++) {
      const p = pick(all)
      const path = make[kind](p)
      if (seen.has(path)) continue
      seen.add(path)
      out.push({ kind, part: p.entity.name, path })
      made++
    }
  }
  return out
}
