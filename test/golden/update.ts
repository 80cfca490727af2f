// `npm run golden:update`: rewrites test/golden/*.jsonl from a release of ../shared/corpus, on purpose.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { HardwareFacts } from '../../src/service/facts.js'
import { SqliteRepository } from '../../src/store/sqlite/store.js'
import { corpusDataDir } from '../helpers/corpus-release.js'
import { describeChanges, fileName, indexLine, SELECTIONS, snapshot } from './snapshot.js'

const HERE = dirname(fileURLToPath(import.meta.url))
const DIR = join(HERE, 'facts')

const repo = new SqliteRepository(await corpusDataDir())
const facts = new HardwareFacts(repo, 'golden')
mkdirSync(DIR, { recursive: true })
// The files as committed, read before they are replaced: what changed is printed fact by fact.
const previous = new Map<string, string[]>()
for (const f of readdirSync(DIR)) {
  if (!f.endsWith('.jsonl')) continue
  previous.set(f, readFileSync(join(DIR, f), 'utf8').trimEnd().split('\n').filter(Boolean))
  rmSync(join(DIR, f))
}
const index: string[] = []
let bytes = 0
let changed = 0
for (const s of SELECTIONS) {
  const { target, lines } = await snapshot(facts, s)
  const text = lines.join('\n') + '\n'
  writeFileSync(join(DIR, fileName(s)), text)
  bytes += text.length
  index.push(indexLine(s, target, lines.length))
  const changes = describeChanges(previous.get(fileName(s)) ?? [], lines)
  changed += changes.length
  process.stdout.write(`${fileName(s)}: ${lines.length} facts of ${target}${previous.has(fileName(s)) ? `, ${changes.length} changed` : ' (new selection)'}\n`)
  for (const c of changes) process.stdout.write(`  ${c}\n`)
}
for (const f of previous.keys()) if (!SELECTIONS.some((s) => fileName(s) === f)) process.stdout.write(`${f}: removed (no longer a selection)\n`)
process.stdout.write(`${changed} facts changed\n`)
writeFileSync(join(HERE, 'index.jsonl'), index.join('\n') + '\n')
process.stdout.write(`${SELECTIONS.length} golden files, ${(bytes / 1e6).toFixed(2)} MB; review with git diff test/golden\n`)
await repo.close()
