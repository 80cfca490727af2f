#!/usr/bin/env node
import { resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { loadConfig } from '../src/config.js'
import { DataDir } from '../src/store/layout.js'
import { EngineRepository } from '../src/store/search-engine/repository.js'
import { EngineError } from '../src/store/search-engine/transport.js'
import { EngineCommandError, listReleases, loadRelease, promoteRelease, retireRelease } from './engine.js'

const USAGE = `usage:
  hwfacts engine load [<release-id>] [--promote] [--allow-partial] [--data-dir D] [--bulk-docs N] [--concurrency N] [--no-merge]
  hwfacts engine promote <release-id> [--allow-partial]
  hwfacts engine retire <release-id>
  hwfacts engine list
The engine is $ELASTICSEARCH_URL (else $OPENSEARCH_URL); indices are named after $HWFACTS_INDEX_PREFIX (default hwfacts).
load copies a kept SQLite release (default: the data dir's promoted one) into <prefix>-facts-<id>;
promote moves the <prefix>-facts alias to it in one atomic call; retire deletes a release that is not promoted.`

const positiveInt = (v: string | undefined, name: string, fallback: number) => {
  if (v === undefined) return fallback
  const n = Number(v)
  if (!Number.isInteger(n) || n <= 0) throw new EngineCommandError(`--${name} must be a positive integer`)
  return n
}

/** `hwfacts engine …`: returns the exit code; messages go to stderr, results to stdout. */
export async function engineCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      'data-dir': { type: 'string' },
      promote: { type: 'boolean', default: false },
      'allow-partial': { type: 'boolean', default: false },
      'bulk-docs': { type: 'string' },
      concurrency: { type: 'string' },
      'no-merge': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false }
    }
  })
  const [cmd, arg] = positionals
  if (values.help || !cmd) {
    process.stdout.write(USAGE + '\n')
    return values.help ? 0 : 2
  }
  const cfg = loadConfig(values['data-dir'] ? { ...process.env, HWFACTS_DATA_DIR: values['data-dir'] } : process.env)
  if (!cfg.searchEngineUrl || !cfg.searchEngineFlavor) {
    process.stderr.write('hwfacts: set ELASTICSEARCH_URL or OPENSEARCH_URL\n')
    return 2
  }
  const repo = await EngineRepository.connect(cfg.searchEngineUrl, cfg.searchEngineFlavor, cfg.indexPrefix)
  const say = (m: string) => process.stderr.write(`hwfacts: ${m}\n`)
  try {
    switch (cmd) {
      case 'load':
        return await loadCommand(repo, cfg.dataDir, arg, values, say)
      case 'promote': {
        if (!arg) break
        const p = await promoteRelease(repo, arg, { allowPartial: values['allow-partial'] })
        process.stdout.write(`promoted ${arg}${p.previous && p.previous !== arg ? ` (was ${p.previous})` : ''}\n`)
        return 0
      }
      case 'retire': {
        if (!arg) break
        await retireRelease(repo, arg)
        process.stdout.write(`retired ${arg}\n`)
        return 0
      }
      case 'list':
        return await listCommand(repo)
    }
    process.stderr.write(USAGE + '\n')
    return 2
  } catch (err) {
    if (err instanceof EngineCommandError || err instanceof EngineError) {
      say(err.message)
      return 1
    }
    throw err
  } finally {
    await repo.close()
  }
}

/** The options `engine load` reads. */
interface LoadOptions {
  promote: boolean
  'allow-partial': boolean
  'bulk-docs'?: string
  concurrency?: string
  'no-merge': boolean
}

/** `engine load [<id>]`: the release (default: the promoted one) into its index, then promoted if asked; prints its id. */
async function loadCommand(repo: EngineRepository, dataDir: string, arg: string | undefined, values: LoadOptions, say: (m: string) => void): Promise<number> {
  const data = new DataDir(resolve(dataDir))
  const id = arg ?? data.promotedId()
  if (!id) throw new EngineCommandError(`no release id given and none is promoted in ${data.root}`)
  let lastTenth = -1
  const r = await loadRelease(repo, data, id, {
    bulkDocs: positiveInt(values['bulk-docs'], 'bulk-docs', 2000),
    concurrency: positiveInt(values.concurrency, 'concurrency', 2),
    forceMerge: !values['no-merge'],
    log: say,
    onProgress: (done, total) => {
      const tenth = Math.floor((done / total) * 10)
      if (tenth !== lastTenth) say(`load ${done}/${total}`)
      lastTenth = tenth
    }
  })
  say(r.reused ? `release ${id} is already loaded in ${r.index}` : `loaded ${r.facts} facts into ${r.index}, ${r.retries} bulk retries; ${JSON.stringify(r.timingsMs)}`)
  if (values.promote) {
    const p = await promoteRelease(repo, id, { allowPartial: values['allow-partial'] })
    say(`promoted ${id}${p.previous && p.previous !== id ? ` (was ${p.previous})` : ''}`)
  }
  process.stdout.write(id + '\n')
  return 0
}

/** `engine list`: one line per release index, `*` on the promoted one. */
async function listCommand(repo: EngineRepository): Promise<number> {
  for (const r of await listReleases(repo))
    process.stdout.write(
      `${r.promoted ? '*' : ' '} ${r.id}  ${r.loaded ? `${r.createdAt}  ${r.facts} facts${r.complete ? '' : '  PARTIAL'}` : `unfinished load (${r.documents ?? 0} documents; retire it or load again)`}\n`
    )
  return 0
}
