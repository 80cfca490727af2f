import { existsSync, readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { jep106Name, parseProbeRs, PROBE_RS_KIND, probeRsAdapter } from '../../indexer/sources/probe-rs.js'
import type { LoadedArtifact } from '../../indexer/sources/types.js'

/*
 * The probe-rs target reader. On a real file of the world corpus (when it is unpacked here), the
 * expected part numbers come from an independent line scan of the YAML text; on hand-written
 * fixtures, from the comments beside them.
 */

const WORLD = '.cache/corpus-world/'
const FIXTURES = 'test/fixtures/probe-rs/'
const SHA = 'd'.repeat(64)

const art = (path: string, content: Buffer): LoadedArtifact => ({
  path,
  sha256: SHA,
  bytes: content.length,
  kind: PROBE_RS_KIND,
  publisher: 'test',
  license: 'MIT',
  mediaType: 'application/yaml',
  content
})
const fixture = (name: string) => art(FIXTURES + name, readFileSync(FIXTURES + name))

/** 1-based line of the first line equal to `text` (after trimming its end), at or after line `after`. */
function lineOf(lines: string[], text: string, after = 1): number {
  for (let i = after - 1; i < lines.length; i++) if (lines[i]!.trimEnd() === text) return i + 1
  throw new Error(`'${text}' not found`)
}

interface ScannedVariant {
  name: string
  line: number
  core: string
  flashKb?: number
  ramKb: number
}

/**
 * The variants of a probe-rs file read line by line, as a person would: `- name:` items at column 0
 * under `variants:`, the first `type:` of each, and each `- !Tag` memory region's start, end,
 * `boot: true` and `is_alias: true`. Flash: the one boot `!Nvm`; RAM: the non-alias `!Ram`s summed.
 */
function scanVariants(text: string): ScannedVariant[] {
  const lines = text.split('\n')
  const start = lines.indexOf('variants:')
  let end = lines.findIndex((l, i) => i > start && /^[^\s#-]/.test(l))
  if (end === -1) end = lines.length
  const out: ScannedVariant[] = []
  let v: (ScannedVariant & { regions: { tag: string; start: number; end: number; boot: boolean; alias: boolean }[] }) | undefined
  const finish = () => {
    if (!v) return
    const boot = v.regions.filter((r) => r.tag === 'Nvm' && r.boot && !r.alias)
    const ram = v.regions.filter((r) => r.tag === 'Ram' && !r.alias)
    out.push({
      name: v.name,
      line: v.line,
      core: v.core,
      ...(boot.length === 1 ? { flashKb: (boot[0]!.end - boot[0]!.start) / 1024 } : {}),
      ramKb: ram.reduce((s, r) => s + (r.end - r.start) / 1024, 0)
    })
  }
  for (let i = start + 1; i < end; i++) {
    const l = lines[i]!
    let m: RegExpExecArray | null
    if ((m = /^- name: (.+)$/.exec(l))) {
      finish()
      v = { name: m[1]!, line: i + 1, core: '', ramKb: 0, regions: [] }
    } else if (!v) continue
    else if ((m = /^ {4}type: (\S+)$/.exec(l)) && v.core === '') v.core = m[1]!
    else if ((m = /^ {2}- !(\w+)/.exec(l))) v.regions.push({ tag: m[1]!, start: NaN, end: NaN, boot: false, alias: false })
    else if ((m = /^ {6}(start|end): (0x[0-9a-fA-F]+)$/.exec(l))) v.regions[v.regions.length - 1]![m[1] as 'start' | 'end'] = Number.parseInt(m[2]!, 16)
    else if (/^ {6}boot: true$/.test(l)) v.regions[v.regions.length - 1]!.boot = true
    else if (/^ {4}is_alias: true$/.test(l)) v.regions[v.regions.length - 1]!.alias = true
  }
  finish()
  return out
}

describe.skipIf(!existsSync(WORLD + 'targets/probe-rs/nRF52_Series.yaml'))('probe-rs: nRF52_Series.yaml of the world corpus', () => {
  const path = 'targets/probe-rs/nRF52_Series.yaml'
  // Read in each test: the body of a skipped describe still runs (without the world corpus, as in Stryker's sandbox).
  const load = () => {
    const content = readFileSync(WORLD + path)
    return { text: content.toString('utf8'), r: parseProbeRs(art(path, content)) }
  }

  it('gives one part number per variant, named and placed as written', () => {
    const { text, r } = load()
    const scanned = scanVariants(text)
    // A check on the scan itself: every variant has one memory map, nothing else has one.
    expect(scanned.length).toBe(text.match(/^ {2}memory_map:$/gm)!.length)
    expect(scanned.length).toBeGreaterThan(5)
    expect(r.problems).toEqual([])
    expect(r.partNumbers!.map((p) => [p.name, p.line])).toEqual(scanned.map((v) => [v.name, v.line]))
  })

  it('names the vendor from the JEP106 code, the family from the file, core and sizes from each variant', () => {
    const { text, r } = load()
    const id = Number.parseInt(/^manufacturer:\n {2}id: (0x[0-9a-f]+)\n {2}cc: (0x[0-9a-f]+)$/m.exec(text)![1]!, 16)
    const cc = Number.parseInt(/^manufacturer:\n {2}id: 0x[0-9a-f]+\n {2}cc: (0x[0-9a-f]+)$/m.exec(text)![1]!, 16)
    // JEP106 bank 3 (two continuation codes), ID 0x44: "Nordic VLSI ASA".
    expect([cc, id]).toEqual([2, 0x44])
    const family = /^name: (.+)$/m.exec(text)![1]
    expect(family).toBe('nRF52 Series')
    for (const [i, v] of scanVariants(text).entries()) {
      expect(r.partNumbers![i]).toEqual({
        name: v.name,
        vendor: 'Nordic VLSI ASA',
        family,
        core: v.core,
        ...(v.flashKb !== undefined ? { flashKb: v.flashKb } : {}),
        ramKb: v.ramKb,
        targets: [`probe-rs:${v.name}`],
        sourceSha256: SHA,
        sourcePath: path,
        line: v.line
      })
    }
    // By hand from the nRF52832_xxAA item: boot Nvm 0x0..0x80000, RAM 0x800000..0x810000 (its
    // alias at 0x20000000 not counted).
    expect(r.partNumbers!.find((p) => p.name === 'nRF52832_xxAA')).toMatchObject({ flashKb: 512, ramKb: 64 })
  })
})

describe('probe-rs: hand-written files', () => {
  it('a file that does not parse is one problem at its line; the other files still give their parts', () => {
    const broken = fixture('broken.yaml')
    const out = probeRsAdapter.parse([broken, fixture('edges.yaml')])
    // The flow map opened on line 10 is still open when line 11 starts a block item.
    const mine = out.problems.filter((p) => p.file === broken.path)
    expect(mine).toHaveLength(1)
    expect(mine[0]).toMatchObject({ line: 11 })
    expect(mine[0]!.reason).toMatch(/^malformed YAML: /)
    expect(out.partNumbers!.map((p) => p.name)).toEqual(['EDGE_ONE', 'EDGE_TWO_BOOT', 'EDGE_BAD_RANGE'])
  })

  it('unknown tags, a nameless variant, a duplicate, aliases, two boot regions and a bad range', () => {
    const a = fixture('edges.yaml')
    const lines = a.content.toString('utf8').split('\n')
    const r = parseProbeRs(a)
    const nameless = lineOf(lines, '- cores:')
    const badRange = lineOf(lines, '- name: EDGE_BAD_RANGE')
    expect(r.problems).toEqual([
      { file: a.path, line: nameless, reason: 'variant without a name' },
      // The region's line is that of its first key (`range:`, after the `- !Ram` tag).
      { file: a.path, line: lineOf(lines, '    range:', badRange), reason: 'EDGE_BAD_RANGE: memory region without a tag and a numeric range (start <= end); no memory sizes for this variant' },
      { file: a.path, line: lineOf(lines, '- name: EDGE_ONE', nameless), reason: 'variant EDGE_ONE is listed twice; the first is kept' }
    ])
    const common = { vendor: 'JEP106 bank 8 id 0x7e', family: 'Edge Series', sourceSha256: SHA, sourcePath: a.path }
    expect(r.partNumbers).toEqual([
      // Boot Nvm 0x8000000..0x8040000 = 256 KB (the OTP Nvm does not boot); RAM 0x8000 + 0x2000
      // bytes = 40 KB, whichever core sees it; the alias RAM and the Generic region are not counted.
      { ...common, name: 'EDGE_ONE', core: 'armv8m', flashKb: 256, ramKb: 40, targets: ['probe-rs:EDGE_ONE'], line: lineOf(lines, '- name: EDGE_ONE') },
      // Two boot regions: which is the flash is not clear. No RAM region: no ramKb.
      { ...common, name: 'EDGE_TWO_BOOT', core: 'armv6m', targets: ['probe-rs:EDGE_TWO_BOOT'], line: lineOf(lines, '- name: EDGE_TWO_BOOT') },
      // A region it cannot read leaves the variant without a memory map: no memory target.
      { ...common, name: 'EDGE_BAD_RANGE', core: 'armv6m', line: badRange }
    ])
  })

  it('a file without variants gives a problem and no parts; one without a manufacturer gives its parts without a vendor', () => {
    const empty = fixture('no-variants.yaml')
    const e = parseProbeRs(empty)
    expect(e.partNumbers).toBeUndefined()
    expect(e.problems).toEqual([{ file: empty.path, line: 5, reason: 'target file has no variants' }])
    const anon = fixture('no-manufacturer.yaml')
    const n = parseProbeRs(anon)
    expect(n.partNumbers?.map((p) => [p.name, p.vendor])).toEqual([['ANON1', undefined]])
    expect(n.problems).toEqual([])
  })

  it('JEP106 names: a known code, its bank as JEP106 numbers it, an unknown code', () => {
    expect(jep106Name(0, 0x20)).toBe('STMicroelectronics')
    expect(jep106Name(9, 0x13)).toBe('Raspberry Pi Trading Ltd')
    // 0xc9 is not a 7-bit ID (Zynq7000.yaml gives it with its parity bit): not looked up as 0x49.
    expect(jep106Name(0, 0xc9)).toBe('JEP106 bank 1 id 0xc9')
  })

  it('one unit per file, and the units concatenated are the whole parse', () => {
    const files = [fixture('edges.yaml'), fixture('broken.yaml'), fixture('no-variants.yaml')]
    const units = probeRsAdapter.units!(files)
    expect(units.map((u) => u.map((a) => a.path))).toEqual(files.map((f) => [f.path]))
    const whole = probeRsAdapter.parse(files)
    const parts = units.flatMap((u) => probeRsAdapter.parse(u).partNumbers ?? [])
    expect(whole.partNumbers).toEqual(parts)
    expect(whole.problems).toEqual(units.flatMap((u) => probeRsAdapter.parse(u).problems))
  })
})
