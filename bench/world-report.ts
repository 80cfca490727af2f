// `tsx bench/world-report.ts <data-dir> <release-id> [part …]`: what a release reaches, for the
// README and issue notes: parts per vendor, targets and parts per topic, and how each given part
// number resolves (status, how it matched, the part, and per topic the target's source or why none).
import { HardwareFacts } from '../src/service/facts.js'
import { SqliteRepository } from '../src/store/sqlite/store.js'
import { ALL_TOPICS } from '../src/model/fact.js'

const [dataDir, id, ...parts] = process.argv.slice(2)
if (!dataDir || !id) {
  process.stderr.write('usage: tsx bench/world-report.ts <data-dir> <release-id> [part …]\n')
  process.exit(2)
}
const repo = new SqliteRepository(dataDir)
const facts = new HardwareFacts(repo, 'report', { archiveRoot: dataDir })
const store = await repo.open(id)
if (!store) throw new Error(`no release ${id} in ${dataDir}`)
const { catalog } = store
const byTopic = Object.fromEntries(
  ALL_TOPICS.map((t) => [t, { targets: catalog.targets.filter((x) => !x.failure && x.topics.includes(t)).length, parts: catalog.entities.filter((e) => !e.members && e.kind !== 'refname' && e.targets[t]?.length).length }])
)
process.stdout.write(JSON.stringify({ release: id, counts: store.manifest.counts, byTopic, problems: store.manifest.problems.length }, null, 2) + '\n')
for (const q of parts) {
  const r = (await facts.resolve({ q, corpus_release: id, candidate_limit: 5 })) as Record<string, any>
  const topics = Object.entries(r.topics ?? {})
    .map(([t, v]: [string, any]) => `${t}: ${v.status}${v.status === "resolved" ? ` ${v.target?.key}` : ""}`)
    .join('; ')
  process.stdout.write(`${q}\t${r.status}\t${r.match ?? ''}\t${r.part?.name ?? (r.candidates ?? []).map((c: any) => c.name).join('|')}\t${topics}\n`)
}
await repo.close()
