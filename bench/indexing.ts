import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { readInventory } from '../indexer/inventory.js'
import { DataDir } from '../src/store/layout.js'
import type { ReleaseManifest } from '../src/store/types.js'

const ROOT = resolve(import.meta.dirname, '..')

/** RSS of a process and all its descendants, in bytes (Linux /proc). */
function treeRss(pid: number): number {
  const children = new Map<number, number[]>()
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue
    try {
      const ppid = Number(readFileSync(`/proc/${d}/stat`, 'utf8').split(') ')[1]!.split(' ')[1])
      children.set(ppid, [...(children.get(ppid) ?? []), Number(d)])
    } catch {
      // gone meanwhile
    }
  }
  let total = 0
  for (const stack = [pid]; stack.length; ) {
    const p = stack.pop()!
    try {
      total += Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${p}/status`, 'utf8'))?.[1] ?? 0) * 1024
    } catch {
      // exited
    }
    stack.push(...(children.get(p) ?? []))
  }
  return total
}

export interface IndexRun {
  id: string
  wallS: number
  /** Highest sum of RSS over the indexer's process tree, sampled every 100 ms. */
  peakRssMb: number
  facts: number
  factsPerS: number
  /** Every file of the release directory: the top file and the shards. */
  releaseMb: number
  topFileKb: number
  shards: number
  problems: number
  units: string
  stagesMs: Record<string, number>
}

/** Runs `hwfacts <args>` as its own process, as a curator would, sampling its process tree's RSS every 100 ms. */
export async function hwfacts(args: string[], env: Record<string, string> = {}): Promise<{ code: number; out: string; err: string; wallS: number; peakRssMb: number }> {
  const t0 = performance.now()
  const proc = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'indexer', 'cli.ts'), ...args], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  let peak = 0
  const timer = setInterval(() => (peak = Math.max(peak, treeRss(proc.pid!))), 100)
  let out = ''
  let err = ''
  proc.stdout.on('data', (d: Buffer) => (out += d))
  proc.stderr.on('data', (d: Buffer) => (err += d))
  const code = await new Promise<number>((r) => proc.on('exit', (c) => r(c ?? 1)))
  clearInterval(timer)
  return { code, out, err, wallS: +((performance.now() - t0) / 1000).toFixed(1), peakRssMb: Math.round(peak / 2 ** 20) }
}

/** `hwfacts index` of one inventory into a data dir. */
export async function indexRun(inventory: string, dataDir: string): Promise<IndexRun> {
  // The project's curation, as a curator indexes (the corpora carry none).
  const { code, out, err, wallS, peakRssMb } = await hwfacts(['index', inventory, '--data-dir', dataDir, '--curation', join(ROOT, 'indexer', 'curation', 'curation.json')])
  const id = out.trim()
  const line = /release \S+ .*?: (\d+) facts.*?; (\d+ units parsed, \d+ from the parse cache); (\{.*\})/.exec(err)
  if (!/^[a-f0-9]{16}$/.test(id) || !line) throw new Error(`hwfacts index exited with ${code}: ${err.split('\n').slice(-5).join('\n')}`)
  const data = new DataDir(dataDir)
  const m = JSON.parse(readFileSync(data.manifestPath(id), 'utf8')) as ReleaseManifest
  return {
    id,
    wallS,
    peakRssMb,
    facts: m.counts.facts,
    factsPerS: Math.round(m.counts.facts / wallS),
    releaseMb: +(((m.database?.bytes ?? 0) + (m.shards ?? []).reduce((n, x) => n + x.bytes, 0)) / 2 ** 20).toFixed(1),
    topFileKb: Math.round(statSync(data.releaseDb(id)).size / 1024),
    shards: m.shards?.length ?? 0,
    problems: m.problems.length,
    units: line[2]!,
    stagesMs: JSON.parse(line[3]!) as Record<string, number>
  }
}

/**
 * A view of a corpus with one artifact's bytes changed (a comment appended) and the inventory
 * updated: every other file is a symlink to the original, so nothing is copied.
 */
export function corpusWithOneChange(inventory: string, pick: (path: string) => boolean): { dir: string; changed: string } {
  const inv = readInventory(inventory)
  const dir = mkdtempSync(join(tmpdir(), 'hwfacts-changed-'))
  const doc = JSON.parse(readFileSync(join(inv.root, 'sources.json'), 'utf8')) as { sources: Array<{ path: string; sha256: string; bytes?: number }> }
  const rec = doc.sources.find((s) => pick(s.path))
  if (!rec) throw new Error('no artifact to change')
  for (const r of doc.sources) {
    const to = join(dir, r.path)
    mkdirSync(dirname(to), { recursive: true })
    if (r !== rec) symlinkSync(join(inv.root, r.path), to)
  }
  const bytes = Buffer.concat([readFileSync(join(inv.root, rec.path)), Buffer.from('\n<!-- changed by the indexing benchmark -->\n')])
  writeFileSync(join(dir, rec.path), bytes)
  rec.sha256 = createHash('sha256').update(bytes).digest('hex')
  rec.bytes = bytes.length
  writeFileSync(join(dir, 'sources.json'), JSON.stringify(doc))
  return { dir, changed: rec.path }
}

export interface IndexingResult {
  corpus: string
  artifacts: number
  sourceMb: number
  full: IndexRun
  /** Release size over source bytes. */
  sizeRatio: number
  /** Re-index after one changed artifact, with the full run's parse cache. */
  incremental: Array<IndexRun & { changed: string; ofFull: string }>
}

/**
 * The whole corpus into a fresh data dir, then re-indexed after one changed SVD and after one
 * changed STM32 pin file (each with the parse cache of the full run).
 */
export async function benchIndexing(inventory: string, dataDir: string): Promise<IndexingResult> {
  const inv = readInventory(inventory)
  const sourceBytes = inv.records.reduce((n, r) => n + statSync(join(inv.root, r.path)).size, 0)
  const full = await indexRun(inventory, dataDir)
  const incremental: IndexingResult['incremental'] = []
  for (const pick of [(p: string) => p.startsWith('svd/STMicro/'), (p: string) => p.startsWith('pins/stm32/mcu/STM32F4')]) {
    const { dir, changed } = corpusWithOneChange(inventory, pick)
    try {
      const r = await indexRun(dir, dataDir)
      incremental.push({ ...r, changed, ofFull: `${Math.round((100 * r.wallS) / full.wallS)}%` })
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }
  return {
    corpus: inventory,
    artifacts: inv.records.length,
    sourceMb: +(sourceBytes / 2 ** 20).toFixed(1),
    full,
    sizeRatio: +((full.releaseMb * 2 ** 20) / sourceBytes).toFixed(2),
    incremental
  }
}

// `tsx bench/indexing.ts <corpus> [--data-dir D] [--check WALL_S,RSS_MB]`: one corpus; with --check,
// exits non-zero when the release has problems or the full index misses a bound by more than 50%.
if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  const args = process.argv.slice(2)
  const opt = (n: string) => (args.includes(n) ? args[args.indexOf(n) + 1] : undefined)
  const corpus = resolve(args[0] ?? join(ROOT, '..', 'shared', 'corpus'))
  const dataDir = opt('--data-dir') ?? mkdtempSync(join(tmpdir(), 'hwfacts-bench-'))
  const check = opt('--check')?.split(',').map(Number)
  try {
    const full = check ? await indexRun(corpus, dataDir) : undefined
    const r = full ?? (await benchIndexing(corpus, dataDir))
    process.stdout.write(JSON.stringify(r, null, 2) + '\n')
    if (check && full) {
      const [wallS, rssMb] = check as [number, number]
      const failures = [
        ...(full.problems > 0 ? [`${full.problems} source problems (see ${new DataDir(dataDir).manifestPath(full.id)})`] : []),
        ...(full.wallS > 1.5 * wallS ? [`wall ${full.wallS} s > 1.5 × ${wallS} s`] : []),
        ...(full.peakRssMb > 1.5 * rssMb ? [`peak RSS ${full.peakRssMb} MB > 1.5 × ${rssMb} MB`] : [])
      ]
      for (const f of failures) process.stderr.write(`index check: ${f}\n`)
      if (failures.length) process.exitCode = 1
    }
  } finally {
    if (!opt('--data-dir') && existsSync(dataDir)) rmSync(dataDir, { recursive: true, force: true })
  }
}
