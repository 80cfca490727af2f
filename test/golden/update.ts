// `npm run golden:update`: rewrites test/golden/*.jsonl from a release of ../shared/corpus, on purpose.
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { HardwareFacts } from '../../src/service/facts.js'
import { SqliteRepository } from '../../src/store/sqlite/store.js'
import { corpusDataDir } from '../helpers/corpus-release.js'
import { fileName, indexLine, SELECTIONS, snapshot } from './snapshot.js'

const HERE = dirname(fileURLToPath(import.meta.url))
const DIR = join(HERE, 'facts')

const repo = new SqliteRepository(await corpusDataDir())
const facts = new HardwareFacts(repo, 'golden')
mkdirSync(DIR, { recursive: true })
for (const f of readdirSync(DIR)) if (f.endsWith('.jsonl')) rmSync(join(DIR, f))
const index: string[] = []
let bytes = 0
for (const s of SELECTIONS) {
  const { target, lines } = await snapshot(facts, s)
  const text = lines.join('\n') + '\n'
  writeFileSync(join(DIR, fileName(s)), text)
  bytes += text.length
  index.push(indexLine(s, target, lines.length))
  process.stdout.write(`${fileName(s)}: ${lines.length} facts of ${target}\n`)
}
writeFileSync(join(HERE, 'index.jsonl'), index.join('\n') + '\n')
process.stdout.write(`${SELECTIONS.length} golden files, ${(bytes / 1e6).toFixed(2)} MB; review with git diff test/golden\n`)
await repo.close()
