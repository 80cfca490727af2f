import { execFile } from 'node:child_process'
import { createHash } from 'node:crypto'
import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { buildRelease } from '../../indexer/build.js'
import { ENCODER } from '../../indexer/encode.js'
import { readInventory, verifyArtifacts } from '../../indexer/inventory.js'
import { fileSha256 } from '../../indexer/inventory.js'
import { cachedShard, pruneCache, unitKey } from '../../indexer/parse-cache.js'
import { ownFacts, parseUnits } from '../../indexer/parse-units.js'
import { ADAPTERS } from '../../indexer/sources/index.js'
import type { FactDraft } from '../../src/model/fact.js'
import { DataDir } from '../../src/store/layout.js'
import { readStoredFacts, SqliteRepository } from '../../src/store/sqlite/store.js'
import { SAMPLE_CORPUS } from '../helpers/sample-corpus.js'
import { scratchDirs } from '../helpers/scratch.js'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..')
const run = promisify(execFile)
const scratch = scratchDirs()
const tmp = () => scratch('hwfacts-inc-')
const NOW = () => new Date('2026-01-01T00:00:00.000Z')

/** A copy of the sample corpus with one file edited and its inventory record updated. */
function edited(path: string, edit: (s: string) => string): string {
  const dir = tmp()
  cpSync(SAMPLE_CORPUS, dir, { recursive: true })
  const text = edit(readFileSync(join(dir, path), 'utf8'))
  writeFileSync(join(dir, path), text)
  const inv = JSON.parse(readFileSync(join(dir, 'sources.json'), 'utf8'))
  const rec = inv.sources.find((s: { path: string }) => s.path === path)
  rec.sha256 = createHash('sha256').update(text).digest('hex')
  rec.bytes = Buffer.byteLength(text)
  writeFileSync(join(dir, 'sources.json'), JSON.stringify(inv))
  return dir
}

/**
 * The sample corpus plus a second STM32 MCU file (another RefName) naming its own copy of the GPIO
 * modes file: two STM32 parse units.
 */
function withSecondMcu(): string {
  const dir = tmp()
  cpSync(SAMPLE_CORPUS, dir, { recursive: true })
  const inv = JSON.parse(readFileSync(join(dir, 'sources.json'), 'utf8'))
  const add = (from: string, to: string, edit: (s: string) => string) => {
    const text = edit(readFileSync(join(dir, from), 'utf8'))
    writeFileSync(join(dir, to), text)
    const rec = { ...inv.sources.find((s: { path: string }) => s.path === from), path: to }
    rec.sha256 = createHash('sha256').update(text).digest('hex')
    rec.bytes = Buffer.byteLength(text)
    delete rec.upstream
    inv.sources.push(rec)
  }
  const mcu = 'pins/stm32/mcu/'
  add(`${mcu}STM32F407V(E-G)Tx.xml`, `${mcu}STM32F417V(E-G)Tx.xml`, (s) => s.replace('RefName="STM32F407V(E-G)Tx"', 'RefName="STM32F417V(E-G)Tx"').replace('STM32F417_gpio_v1_0', 'STM32F417_gpio_v1_1'))
  add(`${mcu}IP/GPIO-STM32F417_gpio_v1_0_Modes.xml`, `${mcu}IP/GPIO-STM32F417_gpio_v1_1_Modes.xml`, (s) => s)
  writeFileSync(join(dir, 'sources.json'), JSON.stringify(inv))
  return dir
}

/** Re-records `path` of the corpus in `dir` after editing it in place. */
function editIn(dir: string, path: string, edit: (s: string) => string): void {
  const text = edit(readFileSync(join(dir, path), 'utf8'))
  writeFileSync(join(dir, path), text)
  const inv = JSON.parse(readFileSync(join(dir, 'sources.json'), 'utf8'))
  const rec = inv.sources.find((s: { path: string }) => s.path === path)
  rec.sha256 = createHash('sha256').update(text).digest('hex')
  rec.bytes = Buffer.byteLength(text)
  writeFileSync(join(dir, 'sources.json'), JSON.stringify(inv))
}

/** Every file of a release directory by its path there, with its bytes. */
function releaseFiles(dataDir: string, id: string): Map<string, Buffer> {
  const dir = new DataDir(dataDir).releaseDir(id)
  const out = new Map<string, Buffer>()
  const walk = (rel: string) => {
    for (const e of readdirSync(join(dir, rel), { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const p = rel ? `${rel}/${e.name}` : e.name
      if (e.isDirectory()) walk(p)
      else out.set(p, readFileSync(join(dir, p)))
    }
  }
  walk('')
  return out
}

/** Two releases are the same files, byte for byte (the manifests carry the same fixed createdAt). */
function expectSameFiles(a: Map<string, Buffer>, b: Map<string, Buffer>): void {
  expect([...b.keys()]).toEqual([...a.keys()])
  expect([...a.keys()].filter((k) => !a.get(k)!.equals(b.get(k)!))).toEqual([])
  expect([...a.keys()].filter((k) => k.startsWith('shards/')).length).toBeGreaterThan(0)
}

/** The shard files of the parse cache, by name. */
const cachedShards = (dataDir: string) => (existsSync(join(dataDir, 'cache', 'shards')) ? readdirSync(join(dataDir, 'cache', 'shards'), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.sqlite')) : [])

/** A release's shard files with their inode numbers. */
const shardInodes = (dataDir: string, id: string) =>
  new Map(readdirSync(join(new DataDir(dataDir).releaseDir(id), 'shards')).map((f) => [f, statSync(join(new DataDir(dataDir).releaseDir(id), 'shards', f)).ino]))

describe('incremental builds (parse cache and shards)', () => {
  it('re-parses only the unit of a changed artifact, rewrites only its shard, and writes the same bytes as a full rebuild', async () => {
    const data = tmp()
    const first = await buildRelease({ inventory: SAMPLE_CORPUS, dataDir: data, now: NOW })
    expect(first.units).toEqual({ parsed: 3, cached: 0 })
    expect(cachedShards(data)).toHaveLength(3)
    const changed = edited('errata/nordic/errata.dox', (s) => s.replace('Errata overview', 'Errata Overview'))
    const warm = await buildRelease({ inventory: changed, dataDir: data, now: NOW })
    expect(warm.units).toEqual({ parsed: 1, cached: 2 })
    expect(warm.id).not.toBe(first.id)
    // One shard written; the other two are the first release's files, linked again.
    expect(cachedShards(data)).toHaveLength(4)
    const [before, after] = [shardInodes(data, first.id), shardInodes(data, warm.id)]
    expect([...after].filter(([f, ino]) => before.get(f) === ino)).toHaveLength(2)
    expect([...after.keys()].filter((f) => !before.has(f))).toHaveLength(1)
    const cold = tmp()
    const full = await buildRelease({ inventory: changed, dataDir: cold, now: NOW })
    expect(full.units).toEqual({ parsed: 3, cached: 0 })
    expect(full.id).toBe(warm.id)
    expectSameFiles(releaseFiles(cold, full.id), releaseFiles(data, warm.id))
  })

  it('a build whose units all come from the parse cache writes the files of a full build', async () => {
    const data = tmp()
    const first = await buildRelease({ inventory: SAMPLE_CORPUS, dataDir: data, now: NOW })
    const kept = releaseFiles(data, first.id)
    // The release gone, its cache kept: nothing is parsed, and the same files come back.
    renameSync(new DataDir(data).releaseDir(first.id), join(data, 'gone'))
    const again = await buildRelease({ inventory: SAMPLE_CORPUS, dataDir: data, now: NOW })
    expect(again.units).toEqual({ parsed: 0, cached: 3 })
    expect(again.reused).toBe(false)
    expect(again.id).toBe(first.id)
    expectSameFiles(kept, releaseFiles(data, again.id))
  })

  it('after one changed STM32 MCU file, parses only that file’s unit, and writes the same bytes as a full rebuild', async () => {
    const corpus = withSecondMcu()
    const data = tmp()
    const first = await buildRelease({ inventory: corpus, dataDir: data, now: NOW })
    expect(first.units).toEqual({ parsed: 4, cached: 0 })
    const single = await buildRelease({ inventory: SAMPLE_CORPUS, dataDir: tmp(), now: NOW })
    expect(first.manifest.counts.targets).toBe(single.manifest.counts.targets + 1)
    editIn(corpus, 'pins/stm32/mcu/STM32F417V(E-G)Tx.xml', (s) => s.replace('<Voltage Max="3.6"', '<Voltage Max="3.5"'))
    const warm = await buildRelease({ inventory: corpus, dataDir: data, now: NOW })
    expect(warm.units).toEqual({ parsed: 1, cached: 3 })
    expect(warm.id).not.toBe(first.id)
    const cold = tmp()
    const full = await buildRelease({ inventory: corpus, dataDir: cold, now: NOW })
    expect(full.id).toBe(warm.id)
    expectSameFiles(releaseFiles(cold, full.id), releaseFiles(data, warm.id))
  })

  it('a RefName two STM32 units give keeps the first unit’s target, parts and facts, and says so', async () => {
    const corpus = withSecondMcu()
    editIn(corpus, 'pins/stm32/mcu/STM32F417V(E-G)Tx.xml', (s) => s.replace('RefName="STM32F417V(E-G)Tx"', 'RefName="STM32F407V(E-G)Tx"'))
    const r = await buildRelease({ inventory: corpus, dataDir: tmp(), now: NOW })
    const single = await buildRelease({ inventory: SAMPLE_CORPUS, dataDir: tmp(), now: NOW })
    expect(r.units.parsed).toBe(4)
    expect(r.manifest.counts.targets).toBe(single.manifest.counts.targets)
    expect(r.problems.filter((p) => p.reason.includes('already given'))).toEqual([
      { file: 'pins/stm32/mcu/STM32F417V(E-G)Tx.xml', reason: 'target stm32:STM32F407V(E-G)Tx already given by pins/stm32/mcu/STM32F407V(E-G)Tx.xml; skipped' }
    ])
    expect(r.manifest.counts.facts).toBe(single.manifest.counts.facts)
    expect(r.manifest.counts.parts).toBe(single.manifest.counts.parts)
  })

  it('a changed adapter version changes the cache keys of that adapter’s units only', () => {
    const data = new DataDir(tmp())
    const artifacts = verifyArtifacts(readInventory(SAMPLE_CORPUS), data)
    const { units } = parseUnits(artifacts, data)
    const svd = ADAPTERS.find((a) => a.name === 'cmsis-svd')!
    const rekeyed = units.map((u) => (u.adapter === svd.name ? unitKey(ENCODER, { name: svd.name, version: `${svd.version ?? '1'}+1` }, u.artifacts) : u.key))
    units.forEach((u, i) => expect(rekeyed[i] !== u.key).toBe(u.adapter === svd.name))
    expect(units.filter((u) => u.adapter === svd.name)).toHaveLength(1)
    expect(units).toHaveLength(3)
  })

  it('a bumped adapter version re-parses only that adapter’s units', async () => {
    const data = tmp()
    const first = await buildRelease({ inventory: SAMPLE_CORPUS, dataDir: data, now: NOW })
    const svd = ADAPTERS.find((a) => a.name === 'cmsis-svd')! as { version?: string }
    const was = svd.version
    svd.version = `${was ?? '1'}+test`
    try {
      const again = await buildRelease({ inventory: SAMPLE_CORPUS, dataDir: data, now: NOW })
      expect(again.units).toEqual({ parsed: 1, cached: 2 })
      // The adapter's output did not change: the same shard, the same release.
      expect(again.id).toBe(first.id)
      expect(again.reused).toBe(true)
      expect(cachedShards(data)).toHaveLength(3)
    } finally {
      svd.version = was
    }
  })

  it('the id names what is written: two releases differing in one stored row get two ids', async () => {
    const a = tmp()
    const first = await buildRelease({ inventory: SAMPLE_CORPUS, dataDir: a, now: NOW })
    // The same inputs, but one fact's stored token count differs in the SVD unit's shard (as an
    // indexer change would make it), recorded in the cache as a writer would record it.
    const b = tmp()
    cpSync(join(a, 'cache'), join(b, 'cache'), { recursive: true })
    const data = new DataDir(b)
    const { units } = parseUnits(verifyArtifacts(readInventory(SAMPLE_CORPUS), data), data)
    const unit = units.find((u) => u.adapter === 'cmsis-svd')!
    const entryFile = join(b, 'cache', 'parse', unit.key.slice(0, 2), `${unit.key}.json`)
    const entry = JSON.parse(readFileSync(entryFile, 'utf8'))
    const old = cachedShard(b, entry.shard.sha256)
    const scratchCopy = join(tmp(), 'shard.sqlite')
    cpSync(old, scratchCopy)
    chmodSync(scratchCopy, 0o644)
    const db = new Database(scratchCopy)
    db.prepare('UPDATE facts SET tokens = tokens + 1 WHERE ord = 1').run()
    db.close()
    Object.assign(entry.shard, fileSha256(scratchCopy))
    mkdirSync(dirname(cachedShard(b, entry.shard.sha256)), { recursive: true })
    renameSync(scratchCopy, cachedShard(b, entry.shard.sha256))
    writeFileSync(entryFile, JSON.stringify(entry))

    const second = await buildRelease({ inventory: SAMPLE_CORPUS, dataDir: b, now: NOW })
    expect(second.units).toEqual({ parsed: 0, cached: 3 })
    expect(second.id).not.toBe(first.id)
    const rows = (dir: string, id: string) => [...readStoredFacts(new DataDir(dir).releaseDb(id))]
    const [x, y] = [rows(a, first.id), rows(b, second.id)]
    expect(y).toHaveLength(x.length)
    expect(x.filter((r, i) => JSON.stringify(r) !== JSON.stringify(y[i]))).toHaveLength(1)
  })

  it('a fact naming a target its own unit does not give is a problem naming fact and file, and is not served', () => {
    const draft = (target: string, name: string): FactDraft => ({
      target,
      topic: 'registers',
      name,
      value: {},
      scope: { device: 'X' },
      evidence: [{ sourceSha256: 'a'.repeat(64), sourcePath: 'svd/Acme/X.svd', locator: 'line 1: x', excerpt: '' }]
    })
    const mine = draft('svd:Acme/X', 'R1')
    const r = ownFacts({ targets: [{ key: 'svd:Acme/X', topics: ['registers'], device: 'X', sourceSha256: 'a'.repeat(64), sourcePath: 'svd/Acme/X.svd' }], facts: [mine, draft('svd:Acme/Y', 'R2')] })
    expect(r.facts).toEqual([mine])
    expect(r.problems).toEqual([{ file: 'svd/Acme/X.svd', reason: 'fact R2 names target svd:Acme/Y, which its parse unit does not give; not served' }])
  })

  it('a release keeps its own links to its shards: it is served and verified after the cache is pruned', async () => {
    const data = tmp()
    const first = await buildRelease({ inventory: SAMPLE_CORPUS, dataDir: data, now: NOW })
    const release = new DataDir(data).releaseDir(first.id)
    for (const f of readdirSync(join(release, 'shards'))) expect(statSync(join(release, 'shards', f)).ino).toBe(statSync(cachedShard(data, f.replace('.sqlite', ''))).ino)
    // Every cache file unused for 15 days: all are removed.
    const old = new Date(Date.now() - 15 * 24 * 3600 * 1000)
    for (const f of readdirSync(join(data, 'cache'), { recursive: true, encoding: 'utf8' })) if (/\.(json|sqlite)$/.test(f)) utimesSync(join(data, 'cache', f), old, old)
    pruneCache(data)
    expect(readdirSync(join(data, 'cache'), { recursive: true, encoding: 'utf8' }).filter((f) => /\.(json|sqlite)$/.test(f))).toEqual([])
    const verified = await run(process.execPath, ['--import', 'tsx', join(ROOT, 'indexer', 'cli.ts'), 'verify', first.id, '--data-dir', data], { cwd: ROOT })
    expect(verified.stdout).toContain('release files verified (release.sqlite and 3 shards)')
    const repo = new SqliteRepository(data)
    try {
      const store = (await repo.open(first.id))!
      const target = store.catalog.targets.find((t) => t.factCounts.registers)!.key
      expect(await store.queryFacts({ target, topic: 'registers', names: [], prefixes: [], terms: [], limit: 3 })).toHaveLength(3)
    } finally {
      await repo.close()
    }
  })

  it('copies the shards into a release where the cache is on another file system (no hard link possible)', async (ctx) => {
    const data = tmp()
    const elsewhere = existsSync('/dev/shm') ? join('/dev/shm', `hwfacts-cache-${process.pid}-${Date.now()}`) : undefined
    if (!elsewhere || statSync('/dev/shm').dev === statSync(data).dev) {
      console.log('[incremental] no second file system (/dev/shm) beside the scratch directory: the copy fallback is not tested')
      return ctx.skip()
    }
    mkdirSync(elsewhere)
    symlinkSync(elsewhere, join(data, 'cache'))
    try {
      const r = await buildRelease({ inventory: SAMPLE_CORPUS, dataDir: data, now: NOW })
      const shards = join(new DataDir(data).releaseDir(r.id), 'shards')
      const files = readdirSync(shards)
      expect(files).toHaveLength(3)
      for (const f of files) {
        const st = statSync(join(shards, f))
        expect(st.nlink).toBe(1)
        expect(st.mode & 0o222).toBe(0)
        expect(fileSha256(join(shards, f)).sha256).toBe(f.replace('.sqlite', ''))
      }
    } finally {
      rmSync(elsewhere, { recursive: true, force: true })
    }
  })

  it.each([
    ['one changed unit, parsed on the main thread', 'errata'],
    ['another changed unit (an SVD), on the main thread', 'svd'],
    ['two changed units, parsed in workers', 'both']
  ] as const)(
    'a failed write ends with one line naming the file, leaves no shard or release behind and the promoted one untouched: %s',
    // Once in a full CI run (2026-11-24, the machine loaded with both engines' JVMs) the two-worker
    // case printed 22 lines instead of one and passed on every run since; one retry, and the stderr
    // printed when it happens, until the cause is found.
    { retry: 1 },
    async (_, which) => {
      const data = tmp()
      const ok = await run(process.execPath, ['--import', 'tsx', join(ROOT, 'indexer', 'cli.ts'), 'index', SAMPLE_CORPUS, '--data-dir', data, '--promote'], { cwd: ROOT })
      const promoted = ok.stdout.trim()
      const changed = edited('errata/nordic/errata.dox', (s) => (which === 'svd' ? s : s.replace('Errata overview', 'Errata Overview')))
      if (which !== 'errata') editIn(changed, 'svd/STMicro/STM32F407.svd', (s) => s + '\n<!-- changed -->\n')
      // Files may grow to 32 KiB only (a shard is at least 44 KiB): a shard cannot be written, as on a full disk.
      // (Ignoring SIGXFSZ makes the write fail with EFBIG instead of killing the process.)
      const cmd = `trap '' XFSZ; ulimit -f 32; exec "${process.execPath}" --import tsx indexer/cli.ts index "${changed}" --data-dir "${data}" --promote`
      const failed = await run('bash', ['-c', cmd], { cwd: ROOT }).then(
        () => ({ code: 0, stderr: '' }),
        (e: { code: number; stderr: string }) => e
      )
      expect(failed.code).not.toBe(0)
      const lines = failed.stderr.trim().split('\n').filter((l) => !l.startsWith('hwfacts: verify') && !l.startsWith('hwfacts: parse'))
      // Whichever unit fails first, what it failed to write is the one line (the stderr in full otherwise).
      if (lines.length !== 1) console.error(`[failed write, ${which}] stderr of ${lines.length} lines:\n${failed.stderr}`)
      expect(lines, failed.stderr).toHaveLength(1)
      // The changed unit's shard, written in the cache under a temporary name.
      expect(lines[0]).toMatch(/^hwfacts: cannot write \/\S+\/cache\/shards\/[0-9a-f]{64}\.\d+\.tmp: /)
      expect(lines[0]).not.toMatch(/\n|    at /)
      // No half-written shard: the cache holds the first build's shards only, and no temporary file.
      expect(readdirSync(join(data, 'cache', 'shards'), { recursive: true, encoding: 'utf8' }).filter((f) => !statSync(join(data, 'cache', 'shards', f)).isDirectory()).sort()).toEqual(
        cachedShards(data).sort()
      )
      expect(cachedShards(data).map((f) => f.slice(3, -'.sqlite'.length)).sort()).toEqual(readdirSync(join(new DataDir(data).releaseDir(promoted), 'shards')).map((f) => f.slice(0, -'.sqlite'.length)).sort())
      expect(new DataDir(data).releaseIds()).toEqual([promoted])
      expect(readdirSync(join(data, 'releases'))).toEqual([promoted])
      expect(new DataDir(data).promotedId()).toBe(promoted)
      expect(existsSync(new DataDir(data).releaseDb(promoted))).toBe(true)
      expect((await run(process.execPath, ['--import', 'tsx', join(ROOT, 'indexer', 'cli.ts'), 'verify', promoted, '--data-dir', data], { cwd: ROOT })).stdout).toMatch(/release files verified/)
    }
  )
})
