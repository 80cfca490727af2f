import { execFileSync } from 'node:child_process'
import { existsSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { DataDir } from '../src/store/layout.js'

/** Another commit of this project, checked out, installed and serving a release of its own indexer. */
export interface Baseline {
  commit: string
  /** The git worktree of the commit, with its own node_modules. */
  dir: string
  /** A data dir whose promoted release that commit's indexer built from the corpus. */
  dataDir: string
  /** The commit's server entry point. */
  entry: string
}

const ROOT = resolve(import.meta.dirname, '..')
const git = (...args: string[]) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim()

/**
 * A git worktree of `rev` under .cache/baseline-<sha>, installed with `npm ci` (better-sqlite3 builds
 * from source, against the running Node's headers), and the core corpus indexed by that commit's own
 * indexer into .cache/baseline-<sha>-release. Both are made once and reused: the `.ready` files say
 * a step finished (an interrupted one is redone from scratch).
 */
export function baseline(rev: string, corpus: string, log: (s: string) => void): Baseline {
  const commit = git('rev-parse', '--verify', `${rev}^{commit}`)
  const dir = join(ROOT, '.cache', `baseline-${commit.slice(0, 12)}`)
  const dataDir = `${dir}-release`
  if (!existsSync(join(dir, '.ready'))) {
    log(`baseline ${commit.slice(0, 12)}: git worktree and npm ci in ${dir} (once)`)
    if (existsSync(dir)) rmSync(dir, { recursive: true, force: true })
    git('worktree', 'prune')
    git('worktree', 'add', '--detach', dir, commit)
    const nodedir = dirname(dirname(process.execPath))
    execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, npm_config_nodedir: nodedir } })
    writeFileSync(join(dir, '.ready'), commit + '\n')
  }
  if (!existsSync(join(dataDir, '.ready')) || new DataDir(dataDir).promotedId() === undefined) {
    log(`baseline ${commit.slice(0, 12)}: indexing ${corpus} with its own indexer into ${dataDir} (once)`)
    rmSync(dataDir, { recursive: true, force: true })
    // A commit with a curation file in the repository takes it as an argument; older ones read theirs built in.
    const curation = join(dir, 'indexer', 'curation', 'curation.json')
    const args = ['--import', 'tsx', 'indexer/cli.ts', 'index', corpus, '--data-dir', dataDir, '--promote', ...(existsSync(curation) ? ['--curation', curation] : [])]
    execFileSync(process.execPath, args, { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] })
    writeFileSync(join(dataDir, '.ready'), commit + '\n')
  }
  // The real path: a server started through a symlinked .cache would not know it is the entry point.
  return { commit, dir, dataDir, entry: realpathSync(join(dir, 'src', 'server.ts')) }
}
