import { existsSync, readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { MODM_KIND, modmAdapter, parseModm } from '../../indexer/sources/modm.js'
import type { LoadedArtifact } from '../../indexer/sources/types.js'
import type { PartNumber } from '../../src/model/fact.js'

/*
 * The modm-devices reader. On real files of the world corpus (when it is unpacked here), the
 * expected identifiers and sizes are worked out in the test from the raw XML by modm's rules
 * (modm_devices/device_file.py: the cartesian product of the <device> attributes, naming schema,
 * invalid-/valid-device, device-* filters); on hand-written fixtures, from the comments beside them.
 */

const WORLD = '.cache/corpus-world/devices/modm/'
const FIXTURES = 'test/fixtures/modm/'
const SHA = 'e'.repeat(64)

const art = (path: string, content: Buffer): LoadedArtifact => ({
  path,
  sha256: SHA,
  bytes: content.length,
  kind: MODM_KIND,
  publisher: 'test',
  license: 'MPL-2.0',
  mediaType: 'application/xml',
  content
})
const world = (path: string) => art('devices/modm/' + path, readFileSync(WORLD + path))
const fixture = (name: string) => art(FIXTURES + name, readFileSync(FIXTURES + name))
const inline = (text: string) => art('inline.xml', Buffer.from(text))

const byName = (ps: readonly PartNumber[]) => [...ps].sort((a, b) => a.name.localeCompare(b.name))
const attrsOf = (tag: string) => Object.fromEntries([...tag.matchAll(/([\w-]+)="([^"]*)"/g)].map((m) => [m[1]!, m[2]!]))

/** A modm signal name as ST's pin data writes it: upper case, the I2S extension's `ext_` apart (`I2S2_ext_SD`). */
const stName = (n: string) => n.toUpperCase().replace(/^EXT_/, 'ext_')

/** Every `<memory .../>` line of a file: its attributes. */
const memoriesOf = (text: string) => [...text.matchAll(/<memory [^>]*\/>/g)].map((m) => attrsOf(m[0]))

/** The memories whose device-* filters all admit `id` (none of these files filters their parents). */
function applying(memories: Record<string, string>[], id: Record<string, string>) {
  return memories.filter((m) => Object.entries(m).every(([k, v]) => !k.startsWith('device-') || v.split('|').includes(id[k.slice(7)]!)))
}

describe.skipIf(!existsSync(WORLD))('modm: files of the world corpus', () => {
  it('SAM D21: the valid-device list, each at its line, with package, family and sizes', () => {
    const a = world('sam/samd21.xml')
    const text = a.content.toString('utf8')
    const lines = text.split('\n')
    const valid = lines.flatMap((l, i) => {
      const m = /^\s*<valid-device>([^<]+)<\/valid-device>$/.exec(l)
      return m ? [{ name: m[1]!, line: i + 1 }] : []
    })
    expect(valid.length).toBeGreaterThan(100)
    const device = attrsOf(/<device [^>]*>/.exec(text)![0])
    // The memories sit in <driver name="core">, which has no device-* filter of its own.
    expect(/<driver name="core"[^>]*>/.exec(text)![0]).not.toContain('device-')
    const memories = memoriesOf(text)
    const r = parseModm(a)
    expect(r.problems).toEqual([])
    const expected = valid.map(({ name, line }) => {
      // {platform}{series}{pin}{flash}{variant}-{package}{grade}: sam d21 e 15 a - a u
      const id = { pin: name[6]!, flash: name.slice(7, 9), variant: name[9]!, package: name[11]!, grade: name[12]! }
      const mine = applying(memories, id)
      const flash = mine.filter((m) => m.name === 'flash')
      const ram = mine.filter((m) => m.name === 'ram')
      expect(flash).toHaveLength(1)
      expect(ram).toHaveLength(1)
      return {
        name,
        vendor: 'Microchip Technology (Atmel)',
        family: device.family,
        packages: [id.package],
        flashKb: Number(flash[0]!.size) / 1024,
        ramKb: Number(ram[0]!.size) / 1024,
        sourceSha256: SHA,
        sourcePath: a.path,
        line
      }
    })
    expect(byName(r.partNumbers!.map(({ targets: _, ...p }) => p))).toEqual(byName(expected))
    expect(r.partNumbers!.find((p) => p.name === 'samd21g18a-au')).toMatchObject({ flashKb: 256, ramKb: 32, packages: ['a'] })
    // Identifiers share a memory target exactly when the same <memory> elements apply to them.
    const sameMemory = new Map<string, string[]>()
    for (const { name } of valid) {
      const id = { pin: name[6]!, flash: name.slice(7, 9), variant: name[9]!, package: name[11]!, grade: name[12]! }
      const k = JSON.stringify(applying(memories, id))
      sameMemory.set(k, [...(sameMemory.get(k) ?? []), name])
    }
    const sameTarget = new Map<string, string[]>()
    for (const p of r.partNumbers!) sameTarget.set(p.targets![0]!, [...(sameTarget.get(p.targets![0]!) ?? []), p.name])
    const groups = (m: Map<string, string[]>) => [...m.values()].map((g) => g.sort().join(' ')).sort()
    expect(groups(sameTarget)).toEqual(groups(sameMemory))
    expect(r.targets.map((t) => t.key).sort()).toEqual([...sameTarget.keys()].sort())
  })

  it('AVR ATtiny24/44/84 (no valid-device): the cartesian product less the invalid devices', () => {
    const a = world('avr/attiny-24_44_84.xml')
    const text = a.content.toString('utf8')
    const lines = text.split('\n')
    const deviceLine = lines.findIndex((l) => l.includes('<device ')) + 1
    const d = attrsOf(/<device [^>]*>/.exec(text)![0])
    expect(/<naming-schema>(.*)<\/naming-schema>/.exec(text)![1]).toBe('at{family}{name}{type}-{speed}{package}')
    expect(text).not.toContain('<valid-device>')
    const invalid = new Set([...text.matchAll(/<invalid-device>([^<]+)<\/invalid-device>/g)].map((m) => m[1]!))
    const memories = memoriesOf(text)
    const expected: PartNumber[] = []
    for (const name of d.name!.split('|'))
      for (const type of d.type!.split('|'))
        for (const speed of d.speed!.split('|'))
          for (const pkg of d.package!.split('|')) {
            const id = `at${d.family}${name}${type}-${speed}${pkg}`
            if (invalid.has(id)) continue
            const mine = applying(memories, { name, type, speed, package: pkg, family: d.family! })
            expected.push({
              name: id,
              vendor: 'Microchip Technology (Atmel)',
              family: 'tiny',
              packages: [pkg],
              flashKb: Number(mine.find((m) => m.name === 'flash')!.size) / 1024,
              ramKb: Number(mine.find((m) => m.name === 'ram')!.size) / 1024,
              sourceSha256: SHA,
              sourcePath: a.path,
              line: deviceLine
            })
          }
    // 3 names x 9 packages, 4 of them invalid.
    expect(expected).toHaveLength(23)
    const r = parseModm(a)
    expect(r.problems).toEqual([])
    expect(byName(r.partNumbers!)).toEqual(byName(expected))
    expect(r.partNumbers!.find((p) => p.name === 'attiny84a-pu')).toMatchObject({ flashKb: 8, ramKb: 0.5 })
  })

  it('STM32F405/407/415/417 pins: a target per package and signal set the device-* filters select; PA9 of the LQFP100', () => {
    const a = world('stm32/stm32f4-05_07_15_17.xml')
    const text = a.content.toString('utf8')
    const names = [...text.matchAll(/<valid-device>([^<]+)<\/valid-device>/g)].map((m) => m[1]!)
    // {platform}{family}{name}{pin}{size}{package}{temperature}{variant}: stm32 f4 07 v g t 6.
    const idOf = (n: string): Record<string, string> => ({ platform: 'stm32', family: 'f4', name: n.slice(7, 9), pin: n[9]!, size: n[10]!, package: n[11]!, temperature: n[12]!, variant: '' })
    const admits = (tag: string, id: Record<string, string>) => applying([attrsOf(tag)], id).length === 1
    const packages = [...text.matchAll(/<package ([^>]*)>([\s\S]*?)<\/package>/g)].map((m) => ({ tag: m[1]!, name: attrsOf(m[1]!).name!, pins: [...m[2]!.matchAll(/<pin position="([^"]+)" name="(P[A-Z]\d+)(?![\d_])[^"]*"/g)].map((p) => [p[1]!, p[2]!]) }))
    // A <gpio> without signals is written `<gpio port="b" pin="2"/>`.
    const gpios = [...text.matchAll(/<gpio ([^>]*?)(?:\/>|>([\s\S]*?)<\/gpio>)/g)].map((m) => ({ tag: m[1]!, name: `P${attrsOf(m[1]!).port!.toUpperCase()}${attrsOf(m[1]!).pin}`, signals: [...(m[2] ?? '').matchAll(/<signal [^>]*\/>/g)].map((x) => x[0]) }))
    /** An identifier's package and, per GPIO pin of it, the signals that apply (`7 USART1_TX`, `- ADC1_IN0`), from the raw XML. */
    const pinsOf = (id: Record<string, string>) => {
      const [pkg, ...more] = packages.filter((p) => admits(p.tag, id))
      expect(more).toEqual([])
      const out: Record<string, string[]> = {}
      for (const [, pin] of pkg!.pins)
        out[pin!] = gpios
          .filter((g) => g.name === pin && admits(g.tag, id))
          .flatMap((g) => g.signals.filter((x) => admits(x, id)).map((x) => attrsOf(x)))
          .map((x) => `${x.af ?? '-'} ${x.driver!.toUpperCase()}${x.instance ?? ''}_${stName(x.name!)}`)
          .sort()
      return { pkg: pkg!.name, pins: out }
    }
    const r = parseModm(a)
    expect(r.problems).toEqual([])
    // Identifiers share a pins target exactly when they have the same package and signals.
    const expected = new Map<string, string[]>()
    for (const n of names) {
      const k = JSON.stringify(pinsOf(idOf(n)))
      expected.set(k, [...(expected.get(k) ?? []), n])
    }
    const pinsTarget = (n: string) => r.partNumbers!.find((p) => p.name === n)!.targets!.find((t) => t.includes(':pins:'))!
    const actual = new Map<string, string[]>()
    for (const n of names) actual.set(pinsTarget(n), [...(actual.get(pinsTarget(n)) ?? []), n])
    const groups = (m: Map<string, string[]>) => [...m.values()].map((g) => g.join(' ')).sort()
    expect(groups(actual)).toEqual(groups(expected))
    // The Ethernet signals (device-name 07|17) tell STM32F407VGT6 from STM32F405VGT6; the temperature range does not.
    expect(pinsTarget('stm32f407vgt6')).not.toBe(pinsTarget('stm32f405vgt6'))
    expect(pinsTarget('stm32f407vgt6')).toBe(pinsTarget('stm32f407vgt7'))
    expect(r.targets.find((t) => t.key === pinsTarget('stm32f407vgt6'))).toMatchObject({ topics: ['pins'], packages: ['LQFP100'] })

    // Every fact of STM32F407VGT6's target: its pin's AF signals, by AF number.
    const mine = pinsOf(idOf('stm32f407vgt6'))
    const facts = r.facts.filter((f) => f.target === pinsTarget('stm32f407vgt6'))
    expect(facts.map((f) => f.name).sort()).toEqual(Object.keys(mine.pins).sort())
    const afsOf = (list: string[]) => list.filter((x) => !x.startsWith('-')).map((x) => ({ af: Number(x.split(' ')[0]), signal: x.split(' ')[1]! })).sort((p, q) => p.af - q.af || (p.signal < q.signal ? -1 : 1))
    for (const f of facts) expect(f.value.alternateFunctions, f.name).toEqual(afsOf(mine.pins[f.name]!))
    const pa9 = facts.find((f) => f.name === 'PA9')!
    const position = packages.find((p) => p.name === 'LQFP100')!.pins.find(([, n]) => n === 'PA9')![0]
    expect(pa9.value).toMatchObject({ label: 'PA9', package: 'LQFP100', position, type: 'I/O' })
    expect(pa9.value.alternateFunctions).toContainEqual({ af: 7, signal: 'USART1_TX' })
    expect(pa9.scope).toMatchObject({ package: 'LQFP100', parts: expect.arrayContaining(['stm32f407vgt6', 'stm32f417vgt6']) })
    // Evidence: the package's pin, the <gpio>, each AF signal, at their lines.
    const lines = text.split('\n')
    const cited = pa9.evidence.map((e) => lines[Number(/^line (\d+):/.exec(e.locator)![1]) - 1]!.trim())
    expect(cited[0]).toBe(`<pin position="${position}" name="PA9"/>`)
    expect(cited[1]).toBe('<gpio port="a" pin="9">')
    expect(cited).toContain('<signal af="7" driver="usart" instance="1" name="tx"/>')
    expect(cited).toHaveLength(2 + afsOf(mine.pins.PA9!).length)
  })

  it('STM32H745 (device-core filters): each core of a part sees its own RAM', () => {
    const r = parseModm(world('stm32/stm32h7-45_55.xml'))
    expect(r.problems).toEqual([])
    // By hand from the <memory> lines: both cores see d1_sram 512 + d2_sram1 128 + d2_sram2 128
    // + d2_sram3 32 + d3_sram 64 = 864 KB (backup not counted); the M7 adds itcm 64 + dtcm 128.
    // Flash: device-size="i", 2097152 bytes.
    expect(r.partNumbers!.find((p) => p.name === 'stm32h745zit6@m4')).toMatchObject({ flashKb: 2048, ramKb: 864, packages: ['t'], family: 'h7' })
    expect(r.partNumbers!.find((p) => p.name === 'stm32h745zit6@m7')).toMatchObject({ flashKb: 2048, ramKb: 1056 })
  })
})

describe('modm: hand-written files', () => {
  it('device-* filters: on the element, inherited from its parent, on a key the identifier lacks', () => {
    const a = fixture('filters.xml')
    const r = parseModm(a)
    expect(r.problems).toEqual([])
    const common = { vendor: 'STMicroelectronics', family: 'x1', packages: ['t'], sourceSha256: SHA, sourcePath: a.path, line: 3 }
    // 2 names x 2 pins x 2 sizes, less stm32x100c8t6. sram1 (4 KB) always applies; ccm (2 KB)
    // with pin r; sram2 never (no identifier has a speed); backup is not RAM; sram3 (8 KB) only
    // for name 01 (its driver's filter) and pin r (its own). Size 8 of name 01 has two flash
    // memories: no flashKb.
    // Memory targets: one per set of applying <memory> elements, named by its first identifier
    // (x100c4t6 and x101c4t6 see the same four-KB flash, sram1 and backup).
    const t = (first: string) => ({ targets: [`modm:filters:${first}`] })
    expect(byName(r.partNumbers!)).toEqual([
      { ...common, name: 'stm32x100c4t6', flashKb: 16, ramKb: 4, ...t('stm32x100c4t6') },
      { ...common, name: 'stm32x100r4t6', flashKb: 16, ramKb: 6, ...t('stm32x100r4t6') },
      { ...common, name: 'stm32x100r8t6', flashKb: 32, ramKb: 6, ...t('stm32x100r8t6') },
      { ...common, name: 'stm32x101c4t6', flashKb: 16, ramKb: 4, ...t('stm32x100c4t6') },
      { ...common, name: 'stm32x101c8t6', ramKb: 4, ...t('stm32x101c8t6') },
      { ...common, name: 'stm32x101r4t6', flashKb: 16, ramKb: 14, ...t('stm32x101r4t6') },
      { ...common, name: 'stm32x101r8t6', ramKb: 14, ...t('stm32x101r8t6') }
    ])
    expect(r.targets).toHaveLength(6)
    // x101r8t6: both flash elements (the second named flash_2), sram1, ccm (rw), backup (RAM), sram3.
    const text = a.content.toString('utf8').split('\n')
    const at = (needle: string) => text.findIndex((l) => l.includes(needle)) + 1
    const rw = { read: true, write: true, execute: false }
    const rwx = { read: true, write: true, execute: true }
    expect(r.facts.filter((f) => f.target === 'modm:filters:stm32x101r8t6').map((f) => [f.name, f.value, f.evidence[0]!.locator])).toEqual([
      ['flash', { kind: 'flash', start: '0x08000000', size: 32768, access: { read: true, write: false, execute: true } }, `line ${at('size="32768"')}: /modm/device/driver[name=core]/memory[name=flash]`],
      ['flash_2', { kind: 'flash', start: '0x08100000', size: 32768, access: { read: true, write: false, execute: true } }, `line ${at('0x8100000')}: /modm/device/driver[name=core]/memory[name=flash]`],
      ['sram1', { kind: 'ram', start: '0x20000000', size: 4096, access: rwx }, `line ${at('"sram1"')}: /modm/device/driver[name=core]/memory[name=sram1]`],
      ['ccm', { kind: 'ram', start: '0x10000000', size: 2048, access: rw }, `line ${at('"ccm"')}: /modm/device/driver[name=core]/memory[name=ccm]`],
      ['backup', { kind: 'ram', start: '0x40024000', size: 512, access: rwx }, `line ${at('"backup"')}: /modm/device/driver[name=core]/memory[name=backup]`],
      ['sram3', { kind: 'ram', start: '0x30000000', size: 8192, access: rwx }, `line ${at('"sram3"')}: /modm/device/driver[name=extra]/memory[name=sram3]`]
    ])
  })

  it('valid-device: lines, a name no combination gives, twice-made names, unreadable and unknown memories', () => {
    const a = fixture('valid.xml')
    const r = parseModm(a)
    const f = a.path
    // Lines: 3 <device>, 5-7 <valid-device>, 10 the negative size, 12 the unknown memory.
    expect([...r.problems].sort((x, y) => x.line! - y.line! || x.reason.localeCompare(y.reason))).toEqual([
      { file: f, line: 3, reason: 'identifier samx1e15a-au comes from two combinations of the device attributes; the first is kept' },
      { file: f, line: 3, reason: 'identifier samx1g15a-mu comes from two combinations of the device attributes; the first is kept' },
      { file: f, line: 7, reason: 'valid-device samx1g15a-zz is not one of the names the device attributes and naming schema give' },
      { file: f, line: 10, reason: 'memory ram has size "-4096", not a byte count; no size it is part of' },
      { file: f, line: 12, reason: 'memory mystery is not known to be RAM or not; no ramKb where it applies' }
    ])
    const common = { vendor: 'Microchip Technology (Atmel)', family: 'x1x', flashKb: 32, sourceSha256: SHA, sourcePath: f }
    // Pin e's RAM size is unreadable, pin g has a memory of unknown kind: neither has a ramKb.
    expect(byName(r.partNumbers!)).toEqual([
      { ...common, name: 'samx1e15a-au', packages: ['a'], targets: ['modm:valid:samx1e15a-au'], line: 5 },
      { ...common, name: 'samx1g15a-mu', packages: ['m'], targets: ['modm:valid:samx1g15a-mu'], line: 6 }
    ])
    // A memory without a byte size is no region (pin e: flash alone); one of unknown name is `other`.
    expect(r.facts.map((f) => [f.target, f.name, f.value.kind])).toEqual([
      ['modm:valid:samx1e15a-au', 'flash', 'flash'],
      ['modm:valid:samx1g15a-mu', 'flash', 'flash'],
      ['modm:valid:samx1g15a-mu', 'ram', 'ram'],
      ['modm:valid:samx1g15a-mu', 'mystery', 'other']
    ])
  })

  it('pins: targets split by a conditioned signal only, labels as listed, an identifier of two packages, an AF that is no number', () => {
    const xml = (platform: string) => `<modm>
  <device platform="${platform}" family="x1" name="01" pin="c|r|v" size="4|8" package="t">
    <naming-schema>{platform}{family}{name}{pin}{size}{package}</naming-schema>
    <driver name="gpio" type="stm32">
      <gpio port="a" pin="9">
        <signal af="7" driver="usart" instance="1" name="tx"/>
        <signal device-size="8" af="5" driver="i2s" instance="2" name="ext_sd"/>
        <signal driver="adc" instance="1" name="in9"/>
      </gpio>
      <gpio device-size="8" port="c" pin="14">
        <signal af="x" driver="tim" instance="1" name="ch1"/>
      </gpio>
      <gpio device-size="4" port="b" pin="1">
        <signal af="1" driver="tim" instance="3" name="ch4"/>
      </gpio>
      <package device-pin="c" name="LQFP48">
        <pin position="1" name="PC14-OSC32_IN"/>
        <pin position="2" name="PA9"/>
        <pin position="3" name="PC2_C"/>
        <pin position="4" name="VDD" type="power"/>
      </package>
      <package device-pin="r|v" name="LQFP64">
        <pin position="7" name="PA9"/>
      </package>
      <package device-pin="v" name="LQFP100">
        <pin position="9" name="PA9"/>
      </package>
    </driver>
  </device>
</modm>`
    const r = parseModm(inline(xml('stm32')))
    // Line 11: the AF that is no number; line 25: pin v's second package (LQFP100).
    expect(r.problems).toEqual([
      { file: 'inline.xml', line: 11, reason: 'signal with af "x", not an AF number; left out' },
      { file: 'inline.xml', line: 25, reason: 'identifier stm32x101v4t matches packages LQFP64, LQFP100; which it has is not clear, no pins for it' },
      { file: 'inline.xml', line: 25, reason: 'identifier stm32x101v8t matches packages LQFP64, LQFP100; which it has is not clear, no pins for it' }
    ])
    const pinsOf = (n: string) => r.partNumbers!.find((p) => p.name === n)!.targets?.find((t) => t.includes(':pins:'))
    // Size 8 adds I2S2_ext_SD on PA9; PB1's signal (size 4) is on no pin of these packages.
    expect(Object.fromEntries(['c4', 'c8', 'r4', 'r8', 'v4'].map((x) => [x, pinsOf(`stm32x101${x}t`)]))).toEqual({
      c4: 'modm:inline:pins:stm32x101c4t',
      c8: 'modm:inline:pins:stm32x101c8t',
      r4: 'modm:inline:pins:stm32x101r4t',
      r8: 'modm:inline:pins:stm32x101r8t',
      v4: undefined
    })
    const facts = (t: string) => r.facts.filter((f) => f.target === t).map((f) => [f.name, f.value])
    const pa9 = (position: string, pkg: string, extra: object[]) => ({ label: 'PA9', package: pkg, position, positions: [position], type: 'I/O', signals: ['ADC1_IN9', ...(extra.length ? ['I2S2_ext_SD'] : []), 'USART1_TX'], alternateFunctions: [...extra, { af: 7, signal: 'USART1_TX' }] })
    // PC14-OSC32_IN is PC14 (no signal it may have: its AF is no number); PC2_C is no GPIO pin; VDD no I/O.
    expect(facts('modm:inline:pins:stm32x101c8t')).toEqual([
      ['PC14', { label: 'PC14-OSC32_IN', package: 'LQFP48', position: '1', positions: ['1'], type: 'I/O', signals: [], alternateFunctions: [] }],
      ['PA9', pa9('2', 'LQFP48', [{ af: 5, signal: 'I2S2_ext_SD' }])]
    ])
    expect(facts('modm:inline:pins:stm32x101r4t')).toEqual([['PA9', pa9('7', 'LQFP64', [])]])
    // Only STM32 files are read for pins.
    expect(parseModm(inline(xml('avr'))).facts.filter((f) => f.topic === 'pins')).toEqual([])
  })

  it('a file that does not parse, an unknown platform, a schema with a stray brace', () => {
    const broken = parseModm(inline('<modm>\n<device platform="avr">\n</modm>\n'))
    expect(broken.partNumbers).toBeUndefined()
    expect(broken.problems).toHaveLength(1)
    expect(broken.problems[0]).toMatchObject({ file: 'inline.xml', line: 3 })
    expect(broken.problems[0]!.reason).toMatch(/^malformed XML: /)
    expect(parseModm(inline('<modm>\n  <device platform="pic" name="1"><naming-schema>{name}</naming-schema></device>\n</modm>')).problems).toEqual([
      { file: 'inline.xml', line: 2, reason: 'unknown modm platform "pic": its vendor is not known' }
    ])
    expect(parseModm(inline('<modm>\n  <device platform="avr" name="1">\n    <naming-schema>{name}}</naming-schema>\n  </device>\n</modm>')).problems).toEqual([
      { file: 'inline.xml', line: 3, reason: 'naming schema "{name}}" has a brace that is not part of a {key} placeholder' }
    ])
  })

  it('attributes that would make too many identifiers are not expanded', () => {
    // Seven attributes of six values each: 6^7 = 279,936 combinations.
    const attrs = 'abcdefg'.split('').map((k) => `${k}="1|2|3|4|5|6"`).join(' ')
    expect(parseModm(inline(`<modm>\n  <device platform="avr" ${attrs}>\n    <naming-schema>{a}</naming-schema>\n  </device>\n</modm>`)).problems).toEqual([
      { file: 'inline.xml', line: 2, reason: 'device attributes make 279936 combinations, more than 100000; not expanded' }
    ])
  })

  it('one unit per file, and the units concatenated are the whole parse', () => {
    const files = [fixture('filters.xml'), fixture('valid.xml')]
    const units = modmAdapter.units!(files)
    expect(units.map((u) => u.map((x) => x.path))).toEqual(files.map((x) => [x.path]))
    const whole = modmAdapter.parse(files)
    expect(whole.partNumbers).toEqual(units.flatMap((u) => modmAdapter.parse(u).partNumbers ?? []))
    expect(whole.problems).toEqual(units.flatMap((u) => modmAdapter.parse(u).problems))
  })
})
