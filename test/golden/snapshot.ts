import type { Topic } from '../../src/model/fact.js'
import type { HardwareFacts } from '../../src/service/facts.js'

/**
 * What the golden files pin: for each selection, the facts the service serves for a part and
 * topic (optionally narrowed by fact-name prefixes), across every adapter and vendor of the core
 * corpus. Chosen to keep the files small while covering arrays, clusters, derived peripherals,
 * remapped pins, electrical limits, errata revisions and interrupts.
 */
export interface Selection {
  part: string
  topic: Topic
  prefixes?: string[]
}

export const SELECTIONS: Selection[] = [
  // cmsis-svd: STMicro
  { part: 'STM32F407VGT6', topic: 'registers', prefixes: ['RCC.', 'GPIOH.'] },
  { part: 'STM32L476RG', topic: 'registers', prefixes: ['LPUART1.'] },
  { part: 'STM32F103C8T6', topic: 'registers', prefixes: ['AFIO.', 'USART1.'] },
  { part: 'STM32H743ZI', topic: 'registers', prefixes: ['SYSCFG.'] },
  // cmsis-svd: Nordic (clusters, dim'd registers, derived peripherals)
  { part: 'nRF52832', topic: 'registers', prefixes: ['UARTE0.', 'FICR.INFO.', 'TIMER1'] },
  { part: 'nRF52840', topic: 'registers', prefixes: ['POWER.RAM1.', 'POWER.RESETREAS', 'POWER.POFCON'] },
  { part: 'nRF9160', topic: 'registers', prefixes: ['CLOCK_S.'] },
  // cmsis-svd: Espressif (field arrays with dimIncrement), Raspberry Pi, Microchip
  { part: 'esp32', topic: 'registers', prefixes: ['RMT.INT_', 'TIMG0.WDTCONFIG0'] },
  { part: 'esp32c3', topic: 'registers', prefixes: ['UART0.CONF0'] },
  { part: 'RP2040', topic: 'registers', prefixes: ['RESETS.'] },
  { part: 'ATSAMD21G18A', topic: 'registers', prefixes: ['PORT.DIR', 'PORT.PINCFG0_2', 'PORT.PMUX0_1'] },
  // stm32-pin-data (+ GPIO modes): pins per package, remapped pads, electrical limits
  { part: 'STM32F407VGT6', topic: 'pins' },
  { part: 'STM32F030C6T6', topic: 'pins' },
  { part: 'STM32G071KBT6', topic: 'pins' },
  { part: 'STM32F407VGT6', topic: 'electrical' },
  { part: 'STM32L476RG', topic: 'electrical' },
  { part: 'STM32G0B1RET6', topic: 'electrical' },
  { part: 'STM32H743ZI', topic: 'electrical' },
  // cmsis-svd interrupts (contract 2026-12-01): shared lines (nRF, ADC1-3), every vendor's numbering
  { part: 'STM32F407VGT6', topic: 'interrupts' },
  { part: 'nRF52840', topic: 'interrupts' },
  { part: 'RP2040', topic: 'interrupts' },
  { part: 'esp32', topic: 'interrupts' },
  { part: 'ATSAMD21G18A', topic: 'interrupts' },
  // nordic errata header + nrfx matrix
  { part: 'nRF52832', topic: 'errata' },
  { part: 'nRF52840', topic: 'errata' },
  { part: 'nRF5340_application', topic: 'errata' },
  { part: 'nRF9160', topic: 'errata' }
]

export const fileName = (s: Selection) => `${s.part}.${s.topic}.jsonl`

const nameOf = (line: string) => (JSON.parse(line) as { name: string }).name

/** One fact a line, as served (the stored public JSON), sorted by name so a change shows as a line diff. */
export async function snapshot(facts: HardwareFacts, s: Selection): Promise<{ target: string; lines: string[] }> {
  const lines: string[] = []
  let target = ''
  let cursor: string | undefined
  do {
    const { body } = await facts.context({
      part: s.part,
      topic: s.topic,
      limit: 50,
      max_tokens: 16000,
      ...(s.prefixes ? { fact_name_prefixes: s.prefixes.join(',') } : {}),
      ...(cursor ? { cursor } : {})
    })
    const r = JSON.parse(body) as { status: string; target: { key: string } | null; facts: unknown[]; page: { nextCursor: string | null } }
    if (r.status !== 'ok' || !r.target) throw new Error(`golden selection ${fileName(s)}: status ${r.status}`)
    target = r.target.key
    lines.push(...r.facts.map((f) => JSON.stringify(f)))
    cursor = r.page.nextCursor ?? undefined
  } while (cursor)
  if (lines.length === 0) throw new Error(`golden selection ${fileName(s)}: no facts`)
  return { target, lines: lines.map((l) => [nameOf(l), l] as const).sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : 1)).map(([, l]) => l) }
}

/** The index file: which target each selection resolved to, and how many facts it pins. */
export const indexLine = (s: Selection, target: string, count: number) => JSON.stringify({ file: fileName(s), part: s.part, topic: s.topic, prefixes: s.prefixes ?? null, target, facts: count })

interface GoldenFact {
  name: string
  value: Record<string, unknown>
  scope: { package?: string }
  evidence: unknown
}

/** A fact's key within a selection: its name, and its package where one name has several. */
const keyOf = (f: GoldenFact) => (f.scope.package ? `${f.name} [${f.scope.package}]` : f.name)
const show = (v: unknown) => (v === undefined ? '(absent)' : JSON.stringify(v))

/**
 * What changed between two snapshots of a selection, one line per fact: added and removed facts by
 * name, and for a changed fact each value member that differs (old → new), or its scope or evidence.
 * `npm run golden:update` prints it, so the commit can say why each fact changed.
 */
export function describeChanges(before: string[], after: string[]): string[] {
  const index = (lines: string[]) => new Map(lines.map((l) => JSON.parse(l) as GoldenFact).map((f) => [keyOf(f), f]))
  const was = index(before)
  const is = index(after)
  const out: string[] = []
  for (const [k, f] of is) if (!was.has(k)) out.push(`+ ${k}: ${show(f.value)}`)
  for (const k of was.keys()) if (!is.has(k)) out.push(`- ${k}`)
  for (const [k, now] of is) {
    const old = was.get(k)
    if (!old) continue
    const changes: string[] = []
    for (const m of [...new Set([...Object.keys(old.value), ...Object.keys(now.value)])].sort())
      if (show(old.value[m]) !== show(now.value[m])) changes.push(`${m} ${show(old.value[m])} → ${show(now.value[m])}`)
    if (show(old.scope) !== show(now.scope)) changes.push(`scope ${show(old.scope)} → ${show(now.scope)}`)
    if (show(old.evidence) !== show(now.evidence)) changes.push('evidence changed')
    if (changes.length > 0) out.push(`~ ${k}: ${changes.join('; ')}`)
  }
  return out
}
