#!/usr/bin/env node
import { parseArgs } from 'node:util'
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import cliProgress from 'cli-progress'
import type { ApiKey } from '../src/auth/keys.js'
import { DataDir } from '../src/store/layout.js'
import { buildRelease } from './build.js'
import { fetchSources } from './fetch.js'
import { InventoryError, WriteError } from './inventory.js'
import { CurationError } from './curation/curation.js'
import { promote, PromotionError, readManifest, verify, verifyFiles } from './releases.js'

const USAGE = `usage:
  hwfacts index <sources-dir|sources.json> [--data-dir D] [--curation F] [--promote] [--allow-partial]
      (curation: F, else curation.json beside the inventory, else none)
  hwfacts releases [--data-dir D]
  hwfacts promote <release-id> [--data-dir D] [--allow-partial]
  hwfacts verify <release-id> [--data-dir D]
  hwfacts fetch <sources.json> [--data-dir D] [--out DIR] [--mirror URL]
  hwfacts keys create <key-id> [--keys-file F]   (prints the key once; stores only its sha256)
  hwfacts sample [--data-dir D]                  (builds and promotes the sample release unless D has a promoted one)
  hwfacts engine load|promote|retire|list …        (search-engine releases; see README)
The data dir defaults to $HWFACTS_DATA_DIR, else ./data.`

/**
 * The small hand-written corpus `npm start` serves on a fresh clone, found upwards from this file
 * (indexer/ when run by tsx, dist/indexer/ when built).
 */
function sampleCorpus(): string {
  for (let dir = dirname(fileURLToPath(import.meta.url)); dirname(dir) !== dir; dir = dirname(dir)) {
    const corpus = join(dir, 'test', 'fixtures', 'sample-corpus')
    if (existsSync(join(corpus, 'sources.json'))) return corpus
  }
  throw new InventoryError('the sample corpus (test/fixtures/sample-corpus) is not in this installation')
}

/** A bar on a terminal; plain, greppable log lines otherwise (CI, pipes). */
function progressReporter(): { update: (stage: string, done: number, total: number) => void; stop: () => void } {
  if (process.stderr.isTTY) {
    const bar = new cliProgress.SingleBar(
      { stream: process.stderr, format: '{stage} [{bar}] {value}/{total}', hideCursor: true },
      cliProgress.Presets.shades_classic
    )
    let current = ''
    return {
      update(stage, done, total) {
        if (stage !== current) {
          if (current) bar.stop()
          current = stage
          bar.start(total, done, { stage: stage.padEnd(6) })
        } else bar.update(done)
      },
      stop: () => current && bar.stop()
    }
  }
  const last = new Map<string, number>()
  return {
    update(stage, done, total) {
      // One line per stage start and end, and at most every 10%.
      const step = Math.floor((done / Math.max(total, 1)) * 10)
      if (last.get(stage) === step) return
      last.set(stage, step)
      process.stderr.write(`hwfacts: ${stage} ${done}/${total}\n`)
    },
    stop() {}
  }
}

/** What a command is given: the data directory, its arguments and the options. */
interface CommandArgs {
  data: DataDir
  arg: string | undefined
  arg2: string | undefined
  values: { promote?: boolean; 'allow-partial'?: boolean; out?: string; mirror?: string; 'keys-file'?: string; curation?: string }
}

/** Each command: its exit code, or undefined when its arguments are missing (the usage is printed). */
const COMMANDS: Record<string, (a: CommandArgs) => Promise<number | undefined>> = {
  async index({ data, arg, values }) {
    if (!arg) return undefined
    const bar = progressReporter()
    const r = await buildRelease({ inventory: arg, dataDir: data.root, onProgress: bar.update, ...(values.curation ? { curation: resolve(values.curation) } : {}) })
    bar.stop()
    for (const p of r.problems) process.stderr.write(`hwfacts: problem: ${p.file}${p.line ? `:${p.line}` : ''}: ${p.reason}\n`)
    for (const n of r.manifest.coverageNotes) process.stderr.write(`hwfacts: coverage: ${n}\n`)
    process.stderr.write(
      `hwfacts: release ${r.id} ${r.reused ? '(already kept, unchanged)' : 'written'}: ${r.manifest.counts.facts} facts, ` +
        `${r.manifest.counts.parts} parts, ${r.manifest.counts.targets} targets, ${r.manifest.sources.length} sources, ${r.problems.length} problems; ${r.units.parsed} units parsed, ${r.units.cached} from the parse cache; ${JSON.stringify(r.timingsMs)}\n`
    )
    process.stdout.write(r.id + '\n')
    if (values.promote) {
      promote(data, r.id, values['allow-partial'])
      process.stderr.write(`hwfacts: promoted ${r.id}\n`)
    }
    return r.problems.length > 0 ? 1 : 0
  },
  async releases({ data }) {
    const promoted = data.promotedId()
    for (const id of data.releaseIds()) {
      const m = readManifest(data, id)!
      process.stdout.write(`${id === promoted ? '*' : ' '} ${id}  ${m.createdAt}  ${m.counts.facts} facts  ${m.sources.length} sources${m.problems.length ? `  PARTIAL (${m.problems.length} problems)` : ''}\n`)
    }
    return 0
  },
  async promote({ data, arg, values }) {
    if (!arg) return undefined
    promote(data, arg, values['allow-partial'])
    process.stdout.write(`promoted ${arg}\n`)
    return 0
  },
  async verify({ data, arg }) {
    if (!arg) return undefined
    const results = verify(data, arg)
    const bad = results.filter((r) => !r.ok)
    for (const b of bad) process.stderr.write(`hwfacts: ${b.path}: ${b.reason}\n`)
    process.stdout.write(`${results.length - bad.length}/${results.length} archived artifacts verified\n`)
    const files = await verifyFiles(data, arg)
    if (files.length === 0) process.stdout.write(`release files verified (release.sqlite and ${readManifest(data, arg)!.shards?.length ?? 0} shards)\n`)
    for (const f of files) process.stderr.write(`hwfacts: ${data.releaseDir(arg)}/${f}\n`)
    return bad.length === 0 && files.length === 0 ? 0 : 1
  },
  async fetch({ data, arg, values }) {
    if (!arg) return undefined
    const r = await fetchSources(arg, data, {
      ...(values.mirror ? { mirror: values.mirror } : {}),
      ...(values.out ? { outDir: resolve(values.out) } : {}),
      onEach: (p) => process.stderr.write(`hwfacts: fetched ${p}\n`)
    })
    for (const f of r.failures) process.stderr.write(`hwfacts: ${f.path}: ${f.reason}\n`)
    process.stdout.write(`${r.fetched} fetched, ${r.failures.length} failed\n`)
    return r.failures.length === 0 ? 0 : 1
  },
  async sample({ data }) {
    if (data.promotedId() !== undefined) return 0
    const corpus = sampleCorpus()
    const r = await buildRelease({ inventory: corpus, dataDir: data.root })
    promote(data, r.id)
    process.stdout.write(`Built and promoted the sample release ${r.id} from ${corpus}\n`)
    return 0
  },
  async keys({ data, arg, arg2, values }) {
    if (arg !== 'create' || !arg2 || !/^[A-Za-z0-9._-]{1,64}$/.test(arg2)) return undefined
    const file = resolve(values['keys-file'] ?? process.env.HWFACTS_API_KEYS_FILE ?? join(data.root, 'api-keys.json'))
    const doc = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as { keys: ApiKey[] }) : { keys: [] }
    if (doc.keys.some((k) => k.id === arg2)) throw new PromotionError(`${file} already has a key ${arg2}`)
    // Loaded only here: the keys module's schema library takes about half a second to load.
    const { generateKey } = await import('../src/auth/keys.js')
    const { secret, record } = generateKey(arg2)
    doc.keys.push(record)
    mkdirSync(dirname(file), { recursive: true })
    writeFileSync(file, JSON.stringify(doc, null, 2) + '\n', { mode: 0o600 })
    process.stderr.write(`hwfacts: added key ${arg2} to ${file}; the secret below is not stored anywhere\n`)
    process.stdout.write(secret + '\n')
    return 0
  }
}

export async function main(argv: string[]): Promise<number> {
  // The engine commands have options of their own; hand them the rest of the line untouched.
  if (argv[0] === 'engine') return (await import('./engine-cli.js')).engineCommand(argv.slice(1))
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      'data-dir': { type: 'string' },
      promote: { type: 'boolean', default: false },
      'allow-partial': { type: 'boolean', default: false },
      out: { type: 'string' },
      mirror: { type: 'string' },
      'keys-file': { type: 'string' },
      curation: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false }
    }
  })
  const [cmd, arg, arg2] = positionals
  if (values.help || !cmd) {
    process.stdout.write(USAGE + '\n')
    return cmd || values.help ? 0 : 2
  }
  const data = new DataDir(resolve(values['data-dir'] ?? process.env.HWFACTS_DATA_DIR ?? 'data'))
  const run = Object.hasOwn(COMMANDS, cmd) ? COMMANDS[cmd] : undefined
  const code = run ? await run({ data, arg, arg2, values }) : undefined
  if (code !== undefined) return code
  process.stderr.write(USAGE + '\n')
  return 2
}

/**
 * Ends the process with `code` once stdout and stderr have passed on everything written to them.
 * Through a pipe (CI logs, `| tee`, a parent process) their writes are asynchronous, and
 * process.exit() drops what is still queued: problem lines went missing. It still exits rather
 * than wait for the event loop to empty, as it always has, so no idle handle can hold it open.
 */
function exitWhenFlushed(code: number): void {
  process.exitCode = code
  let pending = 2
  // Writes complete in order: the callback of an empty write runs once every earlier one has.
  const flushed = () => --pending === 0 && process.exit(code)
  process.stdout.write('', flushed)
  process.stderr.write('', flushed)
}

// Run as a program (also through the npm bin symlink), not when imported by tests.
const isMain = process.argv[1] !== undefined && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href
if (isMain) {
  main(process.argv.slice(2)).then(exitWhenFlushed, (err: unknown) => {
    const known = err instanceof InventoryError || err instanceof PromotionError || err instanceof CurationError || err instanceof WriteError
    // Anything else is a bug: its stack, and the exit code of an uncaught error.
    process.stderr.write(`hwfacts: ${known ? err.message : err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`)
    exitWhenFlushed(known ? 2 : 1)
  })
}
