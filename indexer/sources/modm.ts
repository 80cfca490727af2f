/**
 * modm-devices device files (kind `modm-device`) → part numbers: every identifier modm's own
 * rules give for a file (modm/identifiers.ts), with the package code and the flash and RAM
 * sizes of the `<memory>` elements that apply to it; and those `<memory>` elements as `memory`
 * facts. The identifiers of one file differ in memory only by the elements' `device-*` filters:
 * identifiers that see the same elements share one target (`modm:samd21:samd21e15a-au`, named
 * by the file and the group's first identifier). STM32 files also give `pins` facts, a target per
 * package and signal set (modm/pins.ts).
 */
import type { DocumentTarget, FactDraft, ParseProblem, PartNumber } from '../../src/model/fact.js'
import { child, children, parseXml, XmlParseError, type XmlElement } from '../xml.js'
import { filtersOf, format, matches, parseSchema, product, productSize, type Identifier, type Schema } from './modm/identifiers.js'
import { concatResults, emptyResult, type AdapterResult, type LoadedArtifact, type SourceAdapter } from './types.js'
import { SourceLines } from './evidence.js'
import { address, UniqueNames, type MemoryValue } from './memory.js'
import { modmPinTargets, type Source } from './modm/pins.js'

export const MODM_KIND = 'modm-device'

/** Who makes the devices of each modm platform (`<device platform>`). */
const VENDORS: Readonly<Record<string, string>> = {
  stm32: 'STMicroelectronics',
  sam: 'Microchip Technology (Atmel)',
  avr: 'Microchip Technology (Atmel)',
  nrf: 'Nordic Semiconductor',
  rp: 'Raspberry Pi'
}

/**
 * `<memory name>`s that are RAM, summed into ramKb: main, tightly coupled, core-coupled and
 * domain SRAMs (STM32 `d2_sram1`, RP2040's per-core `core0`/`core1` banks).
 */
const RAM = /^(?:ram|sram\d*|ccm|dtcm|itcm|d\d_sram\d*|lpram|core\d)$/
/**
 * Names that are not: flash and EEPROM, nRF52840's external flash window, the backup-domain SRAM
 * (datasheets count it apart from the RAM) and nRF52's `code_ram`, the code-bus address of the
 * same RAM `ram` describes. A name in neither list leaves ramKb out: what it is is not clear.
 */
const NOT_RAM = new Set(['flash', 'extflash', 'eeprom', 'backup', 'bkpsram', 'code_ram'])

/** Far above the largest file (1,944, stm32l1-51_52_62-c_d_e); a bound on what a malformed file can cost. */
const MAX_COMBINATIONS = 100_000

interface Memory {
  name: string
  /** Undefined when the file's size is not a byte count (stm32wl-e4_e5 has a negative one). */
  bytes: number | undefined
  /** Undefined where the file gives no address (AVR files: program and data are address spaces of their own). */
  start: number | undefined
  access?: string
  line: number
  /** Element path for the locator: `/modm/device/driver[name=core]/memory[name=flash]`. */
  path: string
  /** Its own `device-*` filters and its ancestors'. */
  filters: [string, string[]][]
}

const stemOf = (path: string) => path.replace(/^.*\//, '').replace(/\.xml$/i, '')

/** Parses one device file; never throws. */
export function parseModm(artifact: LoadedArtifact): AdapterResult {
  const result = emptyResult()
  const file = artifact.path
  const problems = result.problems
  let root: XmlElement
  try {
    root = parseXml(artifact.content.toString('utf8'))
  } catch (err) {
    const line = err instanceof XmlParseError ? err.line : undefined
    problems.push({ file, ...(line !== undefined ? { line } : {}), reason: `malformed XML: ${(err as Error).message}` })
    return result
  }
  const devices = root.name === 'modm' ? children(root, 'device') : []
  const device = devices[0]
  if (!device || devices.length > 1) {
    problems.push({ file, line: root.line, reason: `expected <modm> with one <device>, found <${root.name}> with ${devices.length}` })
    return result
  }
  const platform = device.attrs.platform ?? ''
  const vendor = VENDORS[platform]
  if (vendor === undefined) {
    problems.push({ file, line: device.line, reason: `unknown modm platform "${platform}": its vendor is not known` })
    return result
  }
  const schemaEl = child(device, 'naming-schema')
  const schema = schemaEl ? parseSchema(schemaEl.text) : undefined
  if (!schemaEl || !schema) {
    problems.push({ file, line: schemaEl?.line ?? device.line, reason: schemaEl ? `naming schema "${schemaEl.text}" has a brace that is not part of a {key} placeholder` : 'device has no <naming-schema>' })
    return result
  }
  const combinations = productSize(device)
  if (combinations > MAX_COMBINATIONS) {
    problems.push({ file, line: device.line, reason: `device attributes make ${combinations} combinations, more than ${MAX_COMBINATIONS}; not expanded` })
    return result
  }

  const memories = collectMemories(device, '/modm/device', [], [], file, problems)
  const ids = identifiers(device, schema, file, problems)
  const text = new SourceLines(artifact.content.toString('utf8'))
  const src = { stem: stemOf(file), path: file, sha256: artifact.sha256, text }
  const targetOf = memoryTargets(src, ids.map(({ name, id }) => ({ name, seen: memories.filter((m) => matches(m.filters, id)) })), result)
  // Only STM32 files give AF numbers, the pins' facts compared with ST's pin data.
  const pinsOf = platform === 'stm32' ? modmPinTargets(device, ids, src, result) : new Map<string, string>()
  const parts: PartNumber[] = []
  for (const { name, id, line } of ids) {
    // nRF files write `xx` where the package code goes: a placeholder, not a package.
    const written = id.get('package')
    const pkg = written && !/^x+$/i.test(written) ? written : undefined
    const family = id.get('family')
    const { flashKb, ramKb } = sizes(memories.filter((m) => matches(m.filters, id)))
    const targets = [targetOf.get(name), pinsOf.get(name)].filter((t): t is string => t !== undefined)
    parts.push({
      name,
      vendor,
      ...(family ? { family } : {}),
      ...(pkg ? { packages: [pkg] } : {}),
      ...(flashKb !== undefined ? { flashKb } : {}),
      ...(ramKb !== undefined ? { ramKb } : {}),
      ...(targets.length ? { targets } : {}),
      sourceSha256: artifact.sha256,
      sourcePath: file,
      line
    })
  }
  result.partNumbers = parts
  return result
}

/**
 * Memory kinds by `<memory name>`: `flash` is flash; the RAM names (RAM above, main, coupled,
 * domain and per-core SRAMs) and the backup SRAM (`backup`, `bkpsram`) and nRF52's `code_ram`
 * (the code-bus address of its RAM) are RAM; EEPROM, the external flash window (`extflash`) and
 * any name not known are other.
 */
function kindOf(name: string): MemoryValue['kind'] {
  if (name === 'flash') return 'flash'
  return RAM.test(name) || name === 'backup' || name === 'bkpsram' || name === 'code_ram' ? 'ram' : 'other'
}

/**
 * One target per set of `<memory>` elements some identifiers see alike, with a fact per element
 * that has an address and a byte size; returns each identifier's target. An element without
 * either is no region a fact can state (no target when none is left).
 */
function memoryTargets(a: Source, ids: readonly { name: string; seen: readonly Memory[] }[], out: AdapterResult): Map<string, string> {
  const { stem, text } = a
  const byList = new Map<string, string>()
  const targetOf = new Map<string, string>()
  for (const { name, seen } of ids) {
    const regions = seen.filter((m) => m.start !== undefined && m.bytes !== undefined)
    if (regions.length === 0) continue
    const list = regions.map((m) => m.line).join(',')
    let key = byList.get(list)
    if (key === undefined) {
      key = `modm:${stem}:${name}`
      byList.set(list, key)
      // The device is the file's (the target holds several identifiers' memory, not one's).
      const target: DocumentTarget = { key, topics: ['memory'], device: stem, sourceSha256: a.sha256, sourcePath: a.path, description: `modm-devices ${stem}: the memory of ${name} and the identifiers that share it` }
      out.targets.push(target)
      const names = new UniqueNames()
      for (const m of regions) {
        const value: MemoryValue = { kind: kindOf(m.name), start: address(m.start!), size: m.bytes! }
        if (m.access) value.access = { read: m.access.includes('r'), write: m.access.includes('w'), execute: m.access.includes('x') }
        const evidence = [{ sourceSha256: a.sha256, sourcePath: a.path, locator: `line ${m.line}: ${m.path}`, excerpt: text.excerpt(m.line, 1) }]
        const fact: FactDraft = { target: key, topic: 'memory', name: names.next(m.name), value: value as unknown as Record<string, unknown>, scope: { device: stem }, evidence }
        out.facts.push(fact)
      }
    }
    targetOf.set(name, key)
  }
  return targetOf
}

/** The file's identifiers with their names and the line that names them (valid-device, else device). */
function identifiers(device: XmlElement, schema: Schema, file: string, problems: ParseProblem[]): { name: string; id: Identifier; line: number }[] {
  const invalid = new Set(children(device, 'invalid-device').map((e) => e.text))
  const validEls = children(device, 'valid-device')
  const valid = new Map(validEls.map((e) => [e.text, e.line]))
  const out: { name: string; id: Identifier; line: number }[] = []
  const seen = new Set<string>()
  for (const id of product(device)) {
    const name = format(schema, id)
    if (invalid.has(name) || (valid.size > 0 && !valid.has(name))) continue
    if (seen.has(name)) {
      // Two attribute combinations spell the same name: which one the part is, is not clear.
      problems.push({ file, line: device.line, reason: `identifier ${name} comes from two combinations of the device attributes; the first is kept` })
      continue
    }
    seen.add(name)
    out.push({ name, id, line: valid.get(name) ?? device.line })
  }
  for (const e of validEls) {
    if (!seen.has(e.text)) problems.push({ file, line: e.line, reason: `valid-device ${e.text} is not one of the names the device attributes and naming schema give` })
  }
  return out
}

function collectMemories(el: XmlElement, path: string, inherited: [string, string[]][], out: Memory[], file: string, problems: ParseProblem[]): Memory[] {
  for (const c of el.children) {
    const filters = inherited.concat(filtersOf(c))
    const at = `${path}/${c.name}${c.attrs.name !== undefined ? `[name=${c.attrs.name}]` : ''}`
    if (c.name === 'memory') {
      const name = c.attrs.name ?? ''
      const size = c.attrs.size ?? ''
      const bytes = /^\d+$/.test(size) ? Number(size) : undefined
      if (bytes === undefined) problems.push({ file, line: c.line, reason: `memory ${name} has size "${size}", not a byte count; no size it is part of` })
      if (!RAM.test(name) && !NOT_RAM.has(name)) problems.push({ file, line: c.line, reason: `memory ${name} is not known to be RAM or not; no ramKb where it applies` })
      const start = /^0x[0-9a-f]+$/i.test(c.attrs.start ?? '') ? Number(c.attrs.start) : undefined
      out.push({ name, bytes, start, ...(c.attrs.access ? { access: c.attrs.access } : {}), line: c.line, path: at, filters })
    } else collectMemories(c, at, filters, out, file, problems)
  }
  return out
}

/**
 * flashKb: the one `flash` memory (with several, which is meant is not clear); ramKb: the RAM
 * memories summed. A size that could not be read, or a memory of unknown kind, leaves it out.
 */
function sizes(memories: readonly Memory[]): { flashKb: number | undefined; ramKb: number | undefined } {
  const flash = memories.filter((m) => m.name === 'flash')
  const flashBytes = flash.length === 1 ? flash[0]!.bytes : undefined
  let ramBytes: number | undefined
  for (const m of memories) {
    if (NOT_RAM.has(m.name)) continue
    if (!RAM.test(m.name) || m.bytes === undefined) {
      ramBytes = undefined
      break
    }
    ramBytes = (ramBytes ?? 0) + m.bytes
  }
  return { flashKb: flashBytes !== undefined ? flashBytes / 1024 : undefined, ramKb: ramBytes !== undefined ? ramBytes / 1024 : undefined }
}

export const modmAdapter: SourceAdapter = {
  name: 'modm-devices',
  // 2: memory facts, a target per set of identifiers with the same memory. 3: STM32 pins facts.
  version: '3',
  kinds: [MODM_KIND],
  // Each file describes its devices on its own.
  units: (artifacts) => artifacts.map((a) => [a]),
  parse: (artifacts) => concatResults(artifacts.map(parseModm))
}
