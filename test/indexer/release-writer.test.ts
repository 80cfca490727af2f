import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import Database from 'better-sqlite3'
import { beforeAll, describe, expect, it } from 'vitest'
import { buildRelease, INDEXER_FORMAT, type BuildResult } from '../../indexer/build.js'
import { TOKENIZER } from '../../src/model/tokens.js'
import type { ReleaseCatalog } from '../../src/model/catalog.js'
import { DataDir } from '../../src/store/layout.js'
import { SCHEMA_VERSION, shardFileName } from '../../src/store/sqlite/schema.js'
import { readStoredFacts } from '../../src/store/sqlite/store.js'
import { scratchDirs } from '../helpers/scratch.js'

/*
 * The release writer (indexer/build.ts) on tiny corpora written here: a few SVDs of a few lines,
 * so a build takes a fraction of a second. Expected values follow the release's definition
 * (build.ts's contract, the spec's release and manifest, issue 30: the id names the curation file),
 * and stored values are re-read from the written files, not taken from the builder's answer.
 */

const tmp = scratchDirs()
const NOW = () => new Date('2026-01-02T03:04:05.000Z')
const sha = (b: Buffer | string) => createHash('sha256').update(b).digest('hex')

interface Source {
  path: string
  text: string
  kind?: string
  publisher?: string
  license?: string
  distributor?: string
  upstream?: { repository: string; path: string }
}

/** An SVD of one peripheral P at 0x1000 with `registers` 32-bit registers R0, R1, … at 4-byte steps. */
function svd(device: string, registers: number, vendor?: string): string {
  const regs = Array.from({ length: registers }, (_, i) => `<register><name>R${i}</name><addressOffset>0x${(i * 4).toString(16)}</addressOffset><size>32</size></register>`)
  return ['<?xml version="1.0"?>', `<device>${vendor ? `<vendor>${vendor}</vendor>` : ''}<name>${device}</name>`, '<peripherals><peripheral><name>P</name><baseAddress>0x1000</baseAddress>', '<registers>', ...regs, '</registers></peripheral></peripherals></device>', ''].join('\n')
}

/** Writes the sources and their inventory into a new directory; returns it and the inventory records. */
function corpus(sources: Source[], curation?: string): { dir: string; records: Record<string, unknown>[] } {
  const dir = tmp('hwfacts-rw-')
  const records = sources.map((s) => {
    const file = join(dir, s.path)
    mkdirSync(dirname(file), { recursive: true })
    writeFileSync(file, s.text)
    return {
      path: s.path,
      sha256: sha(s.text),
      bytes: Buffer.byteLength(s.text),
      kind: s.kind ?? 'cmsis-svd',
      publisher: s.publisher ?? 'Acme',
      ...(s.distributor ? { distributor: s.distributor } : {}),
      license: s.license ?? 'MIT',
      mediaType: 'application/xml',
      ...(s.upstream ? { upstream: s.upstream } : {})
    }
  })
  writeFileSync(join(dir, 'sources.json'), JSON.stringify({ format: 'hwfacts-source-inventory/1', sources: records }))
  if (curation !== undefined) writeFileSync(join(dir, 'curation.json'), curation)
  return { dir, records }
}

// Written out of path order: the inventory is read in path order.
const FOUR: Source[] = [
  { path: 'svd/Zeta/B2.svd', text: svd('B2', 1, 'Zeta Chips'), publisher: 'Zeta Chips', distributor: 'Zeta mirror' },
  // Named first (entities go by name) and of the vendor sorted last: partsByVendor is sorted, not in catalog order.
  { path: 'svd/Acme/A1.svd', text: svd('A1', 2, 'Zeta Chips'), upstream: { repository: 'acme/svds', path: 'A1.svd' } },
  { path: 'svd/Acme/DUO_CM4.svd', text: svd('DUO_CM4', 1) },
  { path: 'svd/Acme/DUO_CM7.svd', text: svd('DUO_CM7', 3) }
]
/** One SVD, one parse unit: parsed on the build's own thread, no worker to start. */
const ONE: Source[] = [FOUR[0]!]
const CURATION = '{"format": "hwfacts-curation/2"}\n'

const releaseFiles = (dataDir: string) => readdirSync(join(dataDir, 'releases'))

describe('release writer', () => {
  // The four-unit build is made once (its units are parsed in workers, which take a few seconds to start).
  const four = corpus(FOUR)
  const fourData = tmp()
  const progress: Array<[string, number, number]> = []
  let built: BuildResult
  beforeAll(async () => {
    built = await buildRelease({ inventory: four.dir, dataDir: fourData, now: NOW, onProgress: (s, d, t) => progress.push([s, d, t]) })
  })

  it('writes the manifest its definition names: sources in path order, counts of facts, parts, targets and topics', () => {
    const { records } = four
    const dataDir = fourData
    const r = built
    expect(r.id).toMatch(/^[0-9a-f]{16}$/)
    expect(r.reused).toBe(false)
    expect(r.problems).toEqual([])
    const data = new DataDir(dataDir)
    const onDisk = JSON.parse(readFileSync(data.manifestPath(r.id), 'utf8'))
    expect(r.manifest).toEqual(onDisk)
    expect(onDisk.format).toBe('hwfacts-release/1')
    expect(onDisk.id).toBe(r.id)
    expect(onDisk.createdAt).toBe('2026-01-02T03:04:05.000Z')
    expect(onDisk.indexerFormat).toBe(INDEXER_FORMAT)
    expect(onDisk.tokenizer).toBe(TOKENIZER)
    const sorted = [...records].sort((a, b) => (String(a.path) < String(b.path) ? -1 : 1))
    expect(onDisk.sources).toEqual(sorted.map((s) => ({ ...s, archivePath: `archive/sha256/${String(s.sha256).slice(0, 2)}/${s.sha256}` })))
    // Optional members only where the inventory has them.
    expect(onDisk.sources.map((s: object) => ['distributor' in s, 'upstream' in s])).toEqual([[false, true], [false, false], [false, false], [true, false]])
    for (const s of onDisk.sources) expect(sha(readFileSync(join(dataDir, s.archivePath)))).toBe(s.sha256)

    // A fact per peripheral and per register: (1 + 2) + (1 + 1) + (1 + 1) + (1 + 3); four targets; parts
    // are the leaves: A1, B2 and the two cores, not DUO (which stands for them).
    const stored = [...readStoredFacts(data.releaseDb(r.id))]
    expect(stored).toHaveLength(11)
    const byTopic: Record<string, number> = {}
    for (const f of stored) byTopic[JSON.parse(f.body).topic] = (byTopic[JSON.parse(f.body).topic] ?? 0) + 1
    expect(onDisk.counts).toEqual({ facts: stored.length, parts: 4, partsByVendor: { Acme: 2, 'Zeta Chips': 2 }, targets: 4, byTopic })
    expect(Object.keys(onDisk.counts.partsByVendor)).toEqual(['Acme', 'Zeta Chips'])
    expect(onDisk.problems).toEqual([])
    expect(onDisk.coverageNotes).toContain('reachability: 4 of 4 targets resolve from a part name')

    // Progress: every artifact verified, counted up to the inventory's size; every unit parsed from 0.
    // A time per stage of the build, in its order.
    expect(Object.keys(r.timingsMs)).toEqual(['verify', 'parse', 'catalog', 'write'])
    expect(progress.filter(([s]) => s === 'verify')).toEqual([1, 2, 3, 4].map((n) => ['verify', n, 4]))
    expect(progress.filter(([s]) => s === 'parse')).toEqual([0, 1, 2, 3, 4].map((n) => ['parse', n, 4]))
  })

  it('writes read-only files whose digests the manifest names, the meta rows, the shard list and the ranges in canonical order', () => {
    const dataDir = fourData
    const r = built
    const data = new DataDir(dataDir)
    const rel = data.releaseDir(r.id)
    const manifestText = readFileSync(data.manifestPath(r.id), 'utf8')
    const manifest = JSON.parse(manifestText)
    expect(manifestText).toBe(JSON.stringify(manifest, null, 2) + '\n')
    expect(statSync(data.manifestPath(r.id)).mode & 0o777).toBe(0o444)
    expect(statSync(data.releaseDb(r.id)).mode & 0o777).toBe(0o444)
    const db = readFileSync(data.releaseDb(r.id))
    expect(manifest.database).toEqual({ sha256: sha(db), bytes: db.length })
    // One shard per unit (four SVDs), each a file of the release with the digest named.
    expect(manifest.shards).toHaveLength(4)
    for (const s of manifest.shards) {
      const bytes = readFileSync(join(rel, shardFileName(s.sha256)))
      expect({ sha256: sha(bytes), bytes: bytes.length }).toEqual(s)
    }
    expect(readdirSync(join(rel, 'shards')).sort()).toEqual(manifest.shards.map((s: { sha256: string }) => `${s.sha256}.sqlite`).sort())

    const top = new Database(data.releaseDb(r.id), { readonly: true })
    try {
      const meta = Object.fromEntries(top.prepare('SELECT key, value FROM meta').all().map((x) => [(x as { key: string }).key, (x as { value: string }).value]))
      expect(Object.keys(meta).sort()).toEqual(['catalog', 'manifest', 'schema'])
      expect(meta.schema).toBe(String(SCHEMA_VERSION))
      // The manifest row is the manifest without the files' digests (the top file cannot hold its own).
      const { database: _d, shards: _s, ...rest } = manifest
      expect(JSON.parse(meta.manifest!)).toEqual(rest)
      const catalog = JSON.parse(meta.catalog!) as ReleaseCatalog
      expect(catalog.entities.map((e) => e.name)).toEqual(['A1', 'B2', 'DUO', 'DUO_CM4', 'DUO_CM7'])
      expect(top.prepare('SELECT shard, sha256, bytes FROM shards ORDER BY shard').all()).toEqual(manifest.shards.map((s: { sha256: string; bytes: number }, i: number) => ({ shard: i, ...s })))
      const ranges = top.prepare('SELECT target, topic, shard, first, last FROM fact_ranges').all() as Array<{ target: string; topic: string; shard: number; first: number; last: number }>
      // Targets by key, topics by name; the fact counts of the ranges add up to the manifest's.
      const keys = ranges.map((x) => `${x.target} ${x.topic}`)
      expect(keys).toEqual([...keys].sort())
      expect(new Set(ranges.map((x) => x.target))).toEqual(new Set(['svd:Acme/A1', 'svd:Acme/DUO_CM4', 'svd:Acme/DUO_CM7', 'svd:Zeta/B2']))
      expect(ranges.reduce((n, x) => n + x.last - x.first + 1, 0)).toBe(manifest.counts.facts)
      const regs = Object.fromEntries(ranges.filter((x) => x.topic === 'registers').map((x) => [x.target, x.last - x.first + 1]))
      expect(regs).toEqual({ 'svd:Acme/A1': 3, 'svd:Acme/DUO_CM4': 2, 'svd:Acme/DUO_CM7': 4, 'svd:Zeta/B2': 2 })
      // Every range's shard holds that target's facts.
      const shardOf = new Map(ranges.map((x) => [x.target, x.shard]))
      expect(new Set(shardOf.values()).size).toBe(4)
    } finally {
      top.close()
    }
    // Nothing of the build is left beside the release.
    expect(releaseFiles(dataDir)).toEqual([r.id])
  })

  it('the same inputs give the same id, kept and reused; the date is no part of it', async () => {
    const { dir } = corpus(ONE)
    const dataDir = tmp()
    const first = await buildRelease({ inventory: dir, dataDir, now: NOW })
    const again = await buildRelease({ inventory: dir, dataDir, now: () => new Date('2027-05-05T00:00:00.000Z') })
    expect(again.id).toBe(first.id)
    expect(again.reused).toBe(true)
    // Nothing written: no write stage.
    expect(Object.keys(again.timingsMs)).toEqual(['verify', 'parse', 'catalog'])
    expect(again.manifest).toEqual(first.manifest)
    expect(again.problems).toEqual(first.problems)
    expect(releaseFiles(dataDir)).toEqual([first.id])
    const elsewhere = await buildRelease({ inventory: dir, dataDir: tmp(), now: () => new Date('2027-05-05T00:00:00.000Z') })
    expect(elsewhere.id).toBe(first.id)
    expect(elsewhere.reused).toBe(false)
    expect(elsewhere.manifest.createdAt).toBe('2027-05-05T00:00:00.000Z')
  })

  it('the release id names the curation file: its bytes, even where nothing derived changes (issue 30)', async () => {
    const none = corpus(ONE)
    const empty = corpus(ONE, CURATION)
    const noted = corpus(ONE, '{"format": "hwfacts-curation/2", "note": "nothing to curate"}\n')
    const ids = []
    const catalogs = []
    for (const c of [none, empty, noted]) {
      const dataDir = tmp()
      const r = await buildRelease({ inventory: c.dir, dataDir, now: NOW })
      ids.push(r.id)
      const top = new Database(new DataDir(dataDir).releaseDb(r.id), { readonly: true })
      catalogs.push((top.prepare("SELECT value FROM meta WHERE key = 'catalog'").get() as { value: string }).value)
      top.close()
    }
    // The three catalogs, shards and manifests' content are alike: only the curation files differ.
    expect(new Set(catalogs).size).toBe(1)
    expect(new Set(ids).size).toBe(3)
    // The file given as `curation` is the one named, whatever lies beside the inventory.
    const file = join(tmp(), 'elsewhere.json')
    writeFileSync(file, CURATION)
    const given = await buildRelease({ inventory: noted.dir, curation: file, dataDir: tmp(), now: NOW })
    expect(given.id).toBe(ids[1])
  })

  it('the id names the manifest content: one inventory member changed (a license) gives another id', async () => {
    const a = await buildRelease({ inventory: corpus(ONE).dir, dataDir: tmp(), now: NOW })
    const b = await buildRelease({ inventory: corpus(ONE.map((s, i) => (i === 0 ? { ...s, license: 'BSD-3-Clause' } : s))).dir, dataDir: tmp(), now: NOW })
    expect(b.manifest.sources.find((s) => s.path === 'svd/Zeta/B2.svd')!.license).toBe('BSD-3-Clause')
    expect(b.id).not.toBe(a.id)
  })

  it('without a clock given, the release is dated now', async () => {
    const before = Date.now()
    const r = await buildRelease({ inventory: corpus(ONE).dir, dataDir: tmp() })
    const at = Date.parse(r.manifest.createdAt)
    expect(at).toBeGreaterThanOrEqual(before)
    expect(at).toBeLessThanOrEqual(Date.now())
  })

  it('a build that fails while writing leaves nothing behind and rethrows', async () => {
    const { dir } = corpus(ONE)
    const dataDir = tmp()
    await expect(
      buildRelease({
        inventory: dir,
        dataDir,
        now: () => {
          throw new Error('no clock')
        }
      })
    ).rejects.toThrow('no clock')
    expect(releaseFiles(dataDir)).toEqual([])
  })

  it('a target two units give keeps the first unit’s target, parts and facts; a pin file that could not be read names no part', async () => {
    const mcu = (pkg: string, line: string, gpio: string) =>
      [
        '<?xml version="1.0"?>',
        `<Mcu Family="STM32F4" Line="${line}" Package="${pkg}" RefName="STM32F407V(E-G)Tx">`,
        '<Core>Arm Cortex-M4</Core><Frequency>168</Frequency><Ram>128</Ram><Flash>512</Flash><Flash>1024</Flash>',
        `<IP InstanceName="GPIO" Name="GPIO" Version="${gpio}"/>`,
        '<Pin Name="PA9" Position="68" Type="I/O"><Signal Name="USART1_TX"/></Pin>',
        '</Mcu>',
        ''
      ].join('\n')
    const pinData = { kind: 'stm32-pin-data-mcu', publisher: 'STMicroelectronics' }
    const { dir } = corpus([
      { path: 'pins/stm32/mcu/STM32F407V(E-G)Tx.xml', text: mcu('LQFP100', 'STM32F407/417', 'STM32F417_gpio_v1_0'), ...pinData },
      { path: 'pins/stm32/mcu/STM32F407V(E-G)Tx_again.xml', text: mcu('LQFP144', 'Another line', 'STM32F417_gpio_v1_1'), ...pinData },
      { path: 'pins/stm32/mcu/STM32F407V(E-G)Tx_third.xml', text: mcu('LQFP176', 'A third line', 'STM32F417_gpio_v1_2'), ...pinData },
      { path: 'pins/stm32/mcu/STM32F405RGTx.xml', text: '<Mcu RefName=', ...pinData },
      // Each MCU file names its own modes file (so each is a parse unit of its own); neither can be read.
      { path: 'pins/stm32/mcu/IP/GPIO-STM32F417_gpio_v1_0_Modes.xml', text: '<IP Name="GPIO"', kind: 'stm32-pin-data-gpio-modes', publisher: 'STMicroelectronics' },
      { path: 'pins/stm32/mcu/IP/GPIO-STM32F417_gpio_v1_1_Modes.xml', text: '<IP Name="GPIO"', kind: 'stm32-pin-data-gpio-modes', publisher: 'STMicroelectronics' },
      { path: 'pins/stm32/mcu/IP/GPIO-STM32F417_gpio_v1_2_Modes.xml', text: '<IP Name="GPIO"', kind: 'stm32-pin-data-gpio-modes', publisher: 'STMicroelectronics' }
    ])
    const dataDir = tmp()
    const r = await buildRelease({ inventory: dir, dataDir, now: NOW })
    // Each later unit is told which unit gave the target first.
    expect(r.problems.filter((p) => p.reason.includes('already given'))).toEqual(
      ['_again', '_third'].map((f) => ({ file: `pins/stm32/mcu/STM32F407V(E-G)Tx${f}.xml`, reason: 'target stm32:STM32F407V(E-G)Tx already given by pins/stm32/mcu/STM32F407V(E-G)Tx.xml; skipped' }))
    )
    expect(r.manifest.problems).toEqual(r.problems)
    // The two selector parts of the RefName (E and G flash), with the first file's package and line; the
    // unreadable file's RefName is in the catalog (its part learns its source failed) but stands for no part.
    expect(r.manifest.counts.parts).toBe(2)
    expect(r.manifest.counts.partsByVendor).toEqual({ STMicroelectronics: 2 })
    const top = new Database(new DataDir(dataDir).releaseDb(r.id), { readonly: true })
    const catalog = JSON.parse((top.prepare("SELECT value FROM meta WHERE key = 'catalog'").get() as { value: string }).value) as ReleaseCatalog
    const ranges = top.prepare('SELECT target, shard FROM fact_ranges').all() as Array<{ target: string; shard: number }>
    top.close()
    expect(catalog.entities.find((e) => e.name === 'STM32F405RGTx')).toMatchObject({ kind: 'refname' })
    for (const name of ['STM32F407VETx', 'STM32F407VGTx']) expect(catalog.entities.find((e) => e.name === name)).toMatchObject({ package: 'LQFP100', line: 'STM32F407/417' })
    // Only the first file's shard is referred to: the second's one target was given already.
    expect(r.manifest.shards).toHaveLength(1)
    expect(new Set(ranges.map((x) => x.target))).toEqual(new Set(['stm32:STM32F407V(E-G)Tx']))
    expect(new Set(ranges.map((x) => x.shard))).toEqual(new Set([0]))
  })

  it('a release directory that cannot be made: a WriteError naming it, nothing left behind', async () => {
    const dataDir = tmp()
    // `releases` is a file: the build's directory cannot be made under it.
    writeFileSync(join(dataDir, 'releases'), '')
    await expect(buildRelease({ inventory: corpus(ONE).dir, dataDir, now: NOW })).rejects.toThrow(/^cannot write .*releases\/\.build-/)
    expect(readFileSync(join(dataDir, 'releases'), 'utf8')).toBe('')
  })

  it('a bad curation file stops the build before anything is written', async () => {
    const { dir } = corpus(ONE, '{"format": "hwfacts-curation/1"}')
    const dataDir = join(tmp(), 'data')
    await expect(buildRelease({ inventory: dir, dataDir })).rejects.toThrow(/format: expected "hwfacts-curation\/2"/)
    expect(existsSync(dataDir)).toBe(false)
  })
})
