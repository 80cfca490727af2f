import { HardwareFacts } from '../src/service/facts.js'
import type { Discrepancy } from '../src/service/cross-check.js'
import { SqliteRepository } from '../src/store/sqlite/store.js'

/**
 * `node --import tsx bench/discrepancies.ts <data-dir> [examples]`: over the promoted release, every
 * cross-checked topic of every part, as /v1/discrepancies answers it: how many (served, checked)
 * pairs were checked, how many facts agree and disagree (each pair counted once, however many
 * parts share it), and the first disagreements with both values and evidences (docs/depth.md).
 */
const [dataDir, examples = '3'] = process.argv.slice(2)
if (!dataDir) throw new Error('usage: bench/discrepancies.ts <data-dir> [examples]')
const repo = new SqliteRepository(dataDir)
const facts = new HardwareFacts(repo, 'report', { contextCacheBytes: 0 })
const store = await facts.store()
const ix = facts.index(store)
const seen = new Set<string>()
const byTopic: Record<string, { pairs: number; agree: number; disagree: number; parts: number }> = {}
const found: Array<{ part: string; d: Discrepancy }> = []
for (const e of store.catalog.entities) {
  for (const rule of store.catalog.crossCheck ?? []) {
    const { plan } = facts.topicResolution(ix, [e], rule.topic, 10)
    if (!plan?.checked.length) continue
    const t = (byTopic[rule.topic] ??= { pairs: 0, agree: 0, disagree: 0, parts: 0 })
    t.parts++
    const key = [rule.topic, plan.served.target.key, ...plan.checked.map((c) => c.target.key)].join(' ')
    if (seen.has(key)) continue
    seen.add(key)
    const r = await facts.crossChecked(store, rule.topic, plan)
    t.pairs++
    t.agree += r.agree
    t.disagree += r.disagree
    for (const d of r.discrepancies) found.push({ part: e.name, d })
  }
}
process.stdout.write(`release ${store.manifest.id}\n${JSON.stringify(byTopic, null, 2)}\n`)
// Examples from every topic in turn, so one topic's many do not hide the others'.
const topics = [...new Set(found.map((f) => f.d.topic))]
const picked = [...found].sort((a, b) => topics.indexOf(a.d.topic) - topics.indexOf(b.d.topic)).filter((f, i, all) => all.findIndex((x) => x.d.topic === f.d.topic) === i)
for (const f of found) if (picked.length < Number(examples) && !picked.includes(f)) picked.push(f)
for (const { part, d } of picked.slice(0, Number(examples)))
  process.stdout.write(`\n${part} ${d.topic} ${d.name}:\n${d.facts.map((f) => `  ${JSON.stringify(f.value)}\n    ${f.evidence.map((e) => `${e.sourcePath} (${e.sourceSha256.slice(0, 12)}…) ${e.locator}`).join('\n    ')}`).join('\n')}\n`)
await repo.close()
