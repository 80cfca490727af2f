import { execFile } from 'node:child_process'
import { createHash } from 'node:crypto'
import { cpSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { buildRelease } from '../../indexer/build.js'
import { ENCODER } from '../../indexer/encode.js'
import { readInventory, verifyArtifacts } from '../../indexer/inventory.js'
import { CacheReader, CacheWriter, cachePath, readSummary, unitKey } from '../../indexer/parse-cache.js'
import { parseUnits } from '../../indexer/parse-units.js'
import { ADAPTERS } from '../../indexer/sources/index.js'
import { DataDir } from '../../src/store/layout.js'
import { readStoredFacts } from '../../src/store/sqlite/store.js'
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

const dbBytes = (dataDir: string, id: string) => readFileSync(new DataDir(dataDir).releaseDb(id))

describe('incremental builds (parse cache)', () => {
  it('re-parses only the unit of a changed artifact, and writes the same bytes as a full rebuild', async () => {
    const data = tmp()
    const first = await buildRelease({ inventory: SAMPLE_CORPUS, dataDir: data, now: NOW })
    expect(first.units).toEqual({ parsed: 3, cached: 0 })
    const changed = edited('errata/nordic/errata.dox', (s) => s.replace('Errata overview', 'Errata Overview'))
    const warm = await buildRelease({ inventory: changed, dataDir: data, now: NOW })
    expect(warm.units).toEqual({ parsed: 1, cached: 2 })
    expect(warm.id).not.toBe(first.id)
    const cold = tmp()
    const full = await buildRelease({ inventory: changed, dataDir: cold, now: NOW })
    expect(full.units).toEqual({ parsed: 3, cached: 0 })
    expect(full.id).toBe(warm.id)
    expect(dbBytes(cold, full.id).equals(dbBytes(data, warm.id))).toBe(true)
    expect(readFileSync(new DataDir(cold).manifestPath(full.id), 'utf8')).toBe(readFileSync(new DataDir(data).manifestPath(warm.id), 'utf8'))
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
    expect(dbBytes(cold, full.id).equals(dbBytes(data, warm.id))).toBe(true)
    expect(readFileSync(new DataDir(cold).manifestPath(full.id), 'utf8')).toBe(readFileSync(new DataDir(data).manifestPath(warm.id), 'utf8'))
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

  it('the id names what is written: two releases differing in one stored row get two ids', async () => {
    const a = tmp()
    const first = await buildRelease({ inventory: SAMPLE_CORPUS, dataDir: a, now: NOW })
    // The same inputs, but one fact's stored token count differs (as an indexer change would make it).
    const b = tmp()
    cpSync(join(a, 'cache'), join(b, 'cache'), { recursive: true })
    const data = new DataDir(b)
    const { units } = parseUnits(verifyArtifacts(readInventory(SAMPLE_CORPUS), data), data)
    const unit = units.find((u) => u.adapter === 'cmsis-svd')!
    const file = cachePath(b, unit.key)
    const summary = readSummary(file)!
    const reader = new CacheReader(file)
    const chunks = summary.chunks.map((ref) => reader.read(ref))
    reader.close()
    chunks[0]!.tokens[0]! += 1
    const w = new CacheWriter(file)
    for (const c of chunks) w.chunk(c)
    w.finish({ targets: summary.targets, parts: summary.parts, problems: summary.problems, foreign: summary.foreign })

    const second = await buildRelease({ inventory: SAMPLE_CORPUS, dataDir: b, now: NOW })
    expect(second.units).toEqual({ parsed: 0, cached: 3 })
    expect(second.id).not.toBe(first.id)
    const rows = (dir: string, id: string) => [...readStoredFacts(new DataDir(dir).releaseDb(id))]
    const [x, y] = [rows(a, first.id), rows(b, second.id)]
    expect(y).toHaveLength(x.length)
    expect(x.filter((r, i) => JSON.stringify(r) !== JSON.stringify(y[i]))).toHaveLength(1)
  })

  it('a failed write ends with one line naming the file, leaves no release behind and the promoted one untouched', async () => {
    const data = tmp()
    const ok = await run(process.execPath, ['--import', 'tsx', join(ROOT, 'indexer', 'cli.ts'), 'index', SAMPLE_CORPUS, '--data-dir', data, '--promote'], { cwd: ROOT })
    const promoted = ok.stdout.trim()
    const changed = edited('errata/nordic/errata.dox', (s) => s.replace('Errata overview', 'Errata Overview'))
    // Files may grow to 32 KiB only (the release file is about 70 KiB): the release file cannot be written, as on a full disk.
    // (Ignoring SIGXFSZ makes the write fail with EFBIG instead of killing the process.)
    const cmd = `trap '' XFSZ; ulimit -f 32; exec "${process.execPath}" --import tsx indexer/cli.ts index "${changed}" --data-dir "${data}" --promote`
    const failed = await run('bash', ['-c', cmd], { cwd: ROOT }).then(
      () => ({ code: 0, stderr: '' }),
      (e: { code: number; stderr: string }) => e
    )
    expect(failed.code).not.toBe(0)
    const lines = failed.stderr.trim().split('\n').filter((l) => !l.startsWith('hwfacts: verify') && !l.startsWith('hwfacts: parse') && !l.startsWith('hwfacts: facts'))
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(/^hwfacts: cannot write \/\S+release\.sqlite: /)
    expect(lines[0]).not.toMatch(/\n|    at /)
    expect(new DataDir(data).releaseIds()).toEqual([promoted])
    expect(readdirSync(join(data, 'releases'))).toEqual([promoted])
    expect(new DataDir(data).promotedId()).toBe(promoted)
    expect(existsSync(new DataDir(data).releaseDb(promoted))).toBe(true)
  })
})
