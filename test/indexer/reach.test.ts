import { createHash } from 'node:crypto'
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { beforeAll, describe, expect, it } from 'vitest'
import { buildRelease, type BuildResult } from '../../indexer/build.js'
import { CurationError, loadCuration } from '../../indexer/curation/curation.js'
import { HardwareFacts } from '../../src/service/facts.js'
import { DataDir } from '../../src/store/layout.js'
import { SqliteRepository } from '../../src/store/sqlite/store.js'
import { corpusDataDir } from '../helpers/corpus-release.js'
import { SAMPLE_CORPUS } from '../helpers/sample-corpus.js'
import { scratchDirs } from '../helpers/scratch.js'

const FIXTURES = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures')
const tmp = scratchDirs()

/** The sample corpus plus the given files (path in the inventory → bytes), with a curation file or none. */
function corpusWith(files: Record<string, string | Buffer>, curation?: unknown): string {
  const dir = tmp('hwfacts-reach-')
  cpSync(SAMPLE_CORPUS, dir, { recursive: true })
  const inv = JSON.parse(readFileSync(join(SAMPLE_CORPUS, 'sources.json'), 'utf8')) as { sources: Array<Record<string, unknown>> }
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true })
    writeFileSync(join(dir, path), content)
    const bytes = Buffer.from(content)
    inv.sources.push({
      path,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      bytes: bytes.length,
      kind: 'cmsis-svd',
      publisher: 'Quazar Microdevices',
      license: 'CC0-1.0',
      mediaType: 'application/xml'
    })
  }
  writeFileSync(join(dir, 'sources.json'), JSON.stringify(inv))
  if (curation !== undefined) writeFileSync(join(dir, 'curation.json'), JSON.stringify(curation))
  return dir
}

const QZ7001 = readFileSync(join(FIXTURES, 'svd', 'acme', 'QZ7001.svd'))
/** Cut off in the middle of an element: the file cannot be read at all. */
const BROKEN = '<?xml version="1.0"?>\n<device>\n  <name>QZ8002</name>\n  <peripherals>\n    <peripheral>\n'

describe('a vendor no rule and no curation entry knows', () => {
  let data: string
  let built: BuildResult
  let facts: HardwareFacts

  beforeAll(async () => {
    data = tmp('hwfacts-reach-data-')
    built = await buildRelease({ inventory: corpusWith({ 'svd/Quazar/QZ7001.svd': QZ7001, 'svd/Quazar/QZ8002.svd': BROKEN }), dataDir: data })
    new DataDir(data).promote(built.id)
    facts = new HardwareFacts(new SqliteRepository(data), 'test-secret')
  })

  it('indexes its SVD and resolves it by its own device name, with the rule that says so', async () => {
    const r = await facts.resolve({ q: 'qz-7001' })
    expect(r.status).toBe('resolved')
    expect(r.match).toBe('exact')
    // <name>QZ7001</name>, <vendor>Quazar Microdevices</vendor>, <cpu><name>CM0PLUS</name> of the fixture
    expect(r.part).toMatchObject({ name: 'QZ7001', kind: 'device', core: 'CM0PLUS' })
    expect(r.part?.reason).toContain('SVD device QZ7001 (svd/Quazar/QZ7001.svd)')
    expect(r.topics.registers).toMatchObject({ status: 'resolved', target: { key: 'svd:Quazar/QZ7001' } })
    const ctx = JSON.parse((await facts.context({ part: 'QZ7001', topic: 'registers', fact_names: 'BLINK.CTRL' })).body)
    // 0x50001000 (<baseAddress>, line 23) + 0x8 (<addressOffset>, line 28)
    expect(ctx.facts[0].value.address).toBe('0x50001008')
    expect(ctx.facts[0].evidence.map((e: { locator: string }) => e.locator)).toEqual([
      'line 25: /device/peripherals/peripheral[name=BLINK]/registers/register[name=CTRL]',
      'line 23: /device/peripherals/peripheral[name=BLINK]/baseAddress'
    ])
  })

  it('a source that exists but cannot be read is source_failed with file, line and reason, not not_covered', async () => {
    const c = await facts.coverage({ part: 'QZ8002' })
    expect(c.status).toBe('resolved')
    const reg = c.topics.registers as { status: string; failures: Array<{ file: string; line?: number; reason: string }> }
    expect(reg.status).toBe('source_failed')
    expect(reg.failures).toEqual([{ file: 'svd/Quazar/QZ8002.svd', line: expect.any(Number), reason: expect.stringMatching(/malformed XML/) }])
    expect(c.notCovered).toEqual(['pins', 'electrical', 'errata'])
    expect(built.problems.map((p) => p.file)).toEqual(['svd/Quazar/QZ8002.svd'])
    // The release is partial because of it, and every readable target is reachable.
    expect(built.manifest.coverageNotes).toContain(`reachability: ${built.manifest.counts.targets} of ${built.manifest.counts.targets} targets resolve from a part name`)
  })
})

describe('curation file', () => {
  it('is read beside the inventory, names a part no rule derives, and is part of the release id', async () => {
    const data = tmp('hwfacts-reach-data-')
    const alias = { format: 'hwfacts-curation/2', aliases: [{ name: 'Blinky One', device: 'QZ7001', reason: 'the QZ7001 board is sold as Blinky One' }] }
    const withAlias = await buildRelease({ inventory: corpusWith({ 'svd/Quazar/QZ7001.svd': QZ7001 }, alias), dataDir: data })
    const without = await buildRelease({ inventory: corpusWith({ 'svd/Quazar/QZ7001.svd': QZ7001 }), dataDir: data })
    expect(withAlias.id).not.toBe(without.id)
    new DataDir(data).promote(withAlias.id)
    const r = await new HardwareFacts(new SqliteRepository(data), 's').resolve({ q: 'Blinky One' })
    expect(r.topics.registers).toMatchObject({ status: 'resolved', target: { key: 'svd:Quazar/QZ7001' } })
    expect(r.part?.reason).toContain('curation: the QZ7001 board is sold as Blinky One')
  })

  it('an override that leaves a target without any part name makes it a release problem', async () => {
    const curation = { format: 'hwfacts-curation/2', overrides: [{ match: 'QZ7001', topic: 'registers', device: null, reason: 'test: unmap it' }] }
    const r = await buildRelease({ inventory: corpusWith({ 'svd/Quazar/QZ7001.svd': QZ7001 }, curation), dataDir: tmp('hwfacts-reach-data-') })
    expect(r.problems).toEqual([{ file: 'svd/Quazar/QZ7001.svd', reason: expect.stringMatching(/^no part name resolves to target svd:Quazar\/QZ7001 \(device QZ7001\)/) }])
  })

  it('reports every bad entry, one line each, before anything is built', () => {
    const dir = tmp('hwfacts-reach-cur-')
    const file = join(dir, 'curation.json')
    writeFileSync(
      file,
      JSON.stringify({
        format: 'hwfacts-curation/2',
        aliases: [{ name: 'A', device: 'B', reason: 'ok' }, { name: '', device: 'B', reason: 'x' }, { name: 'C', device: 'D' }],
        gaps: [{ match: 'STM*32*', topic: 'errata', reason: 'x' }, { match: 'X*', topic: 'wiring', reason: 'x' }],
        acknowledged: [{ file: 'a.xml', line: 0, reason: 'x' }, { file: 'b.xml' }],
        crossCheck: [
          { topic: 'memory', order: ['probe-rs-target', 'modm-device'], reason: 'ok' },
          { topic: 'memory', order: ['modm-device', 'probe-rs-target'], reason: 'twice' },
          { topic: 'interrupts', order: ['cmsis-svd'], reason: 'one kind' },
          { topic: 'pins', order: ['a', 'b'], compare: [], subset: 'yes', reason: 'bad compare' },
          { topic: 'dma', order: ['a', 'b'], subset: true, reason: 'subset of what' }
        ],
        extra: []
      })
    )
    let err: unknown
    try {
      loadCuration(dir)
    } catch (e) {
      err = e
    }
    expect(err).toBeInstanceOf(CurationError)
    expect((err as CurationError).errors).toEqual([
      'extra: unknown section (expected aliases, overrides, gaps, acknowledged, crossCheck)',
      'aliases[1]: name must be a non-empty string',
      'aliases[2]: reason must say why (a non-empty string)',
      'gaps[0]: match must be a name with at most a trailing *',
      'gaps[1]: topic must be one of registers, pins, electrical, errata, memory, interrupts, dma, clocks',
      'acknowledged[0]: line must be a line number (an integer ≥ 1)',
      'acknowledged[1]: reason must say why (a non-empty string)',
      'crossCheck[1]: topic memory has a rule already',
      'crossCheck[2]: order must list two or more distinct source kinds',
      'crossCheck[3]: compare must list one or more distinct value members',
      'crossCheck[3]: subset must be true or left out',
      'crossCheck[4]: subset needs compare (the lists it applies to)'
    ])
  })

  it('an acknowledged source defect is a coverage note, not a problem; any other problem of the file stays one', async () => {
    const curation = { format: 'hwfacts-curation/2', acknowledged: [{ file: 'svd/Quazar/QZ8002.svd', reason: 'test: a known upstream defect' }, { file: 'svd/None.svd', line: 3, reason: 'test: fixed upstream' }] }
    const r = await buildRelease({ inventory: corpusWith({ 'svd/Quazar/QZ8002.svd': BROKEN }, curation), dataDir: tmp('hwfacts-reach-data-') })
    expect(r.problems).toEqual([])
    expect(r.manifest.coverageNotes).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^acknowledged source defect svd\/Quazar\/QZ8002\.svd:\d+: malformed XML: .* \(curation: test: a known upstream defect\)$/),
        'curation acknowledged svd/None.svd:3: no such problem in this release'
      ])
    )
    const other = { format: 'hwfacts-curation/2', acknowledged: [{ file: 'svd/Quazar/QZ8002.svd', line: 1, reason: 'test: another line' }] }
    const r2 = await buildRelease({ inventory: corpusWith({ 'svd/Quazar/QZ8002.svd': BROKEN }, other), dataDir: tmp('hwfacts-reach-data-') })
    expect(r2.problems).toEqual([expect.objectContaining({ file: 'svd/Quazar/QZ8002.svd', reason: expect.stringMatching(/^malformed XML/) })])
  })
})

describe('the core corpus release', () => {
  it('has every target reachable from a part name and no problems', async () => {
    const data = new DataDir(await corpusDataDir())
    const m = JSON.parse(readFileSync(data.manifestPath(data.promotedId()!), 'utf8')) as BuildResult['manifest']
    expect(m.problems).toEqual([])
    expect(m.counts.targets).toBeGreaterThan(150)
    expect(m.coverageNotes).toContain(`reachability: ${m.counts.targets} of ${m.counts.targets} targets resolve from a part name`)
  })
})
