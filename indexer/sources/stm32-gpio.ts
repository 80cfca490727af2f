import type { Evidence, ParseProblem } from '../../src/model/fact.js'
import { parseXml, XmlParseError, type XmlElement } from '../xml.js'
import { SourceLines } from './evidence.js'
import type { LoadedArtifact } from './types.js'

/** STM32F1-style remapping of one signal onto a pin (AFIO remap blocks instead of AF numbers). */
export interface Stm32Remap {
  signal: string
  /** `USART1_REMAP1`; absent for a bare remap macro (F100 `CEC`). */
  block?: string
  /** True for the reset-state mapping (`DefaultRemap="true"`): no remap needed. */
  default: boolean
  /** HAL macro that selects this mapping, e.g. `__HAL_AFIO_REMAP_USART1_ENABLE`. */
  macro?: string
}

export interface GpioPinModes {
  /** `<GPIO_Pin Name>` as written: the same label the MCU file's `<Pin Name>` uses. */
  name: string
  line: number
  /** `GPIO_AF7_USART1` on PinSignal `USART1_TX` → {af: 7, signal: 'USART1_TX'}, file order. */
  afs: { af: number; signal: string }[]
  remaps: Stm32Remap[]
  /** Evidence entry for this GPIO_Pin, made on first use and shared by every fact citing it. */
  evidence?: Evidence
}

export interface GpioModesFile {
  artifact: LoadedArtifact
  lines: SourceLines
  /** Whether the file describes F1-style remap blocks rather than AF numbers. */
  usesRemapBlocks: boolean
  pins: Map<string, GpioPinModes>
}

const AF_VALUE = /^GPIO_AF(\d+)_/

export function decodeArtifact(artifact: LoadedArtifact): string {
  const text = artifact.content.toString('utf8')
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
}

/** Reads one GPIO modes file into a pin → AF/remap index; undefined (with a problem) if unreadable. */
export function readGpioModes(artifact: LoadedArtifact, problems: ParseProblem[]): GpioModesFile | undefined {
  const text = decodeArtifact(artifact)
  let root
  try {
    root = parseXml(text)
  } catch (err) {
    const line = err instanceof XmlParseError ? err.line : undefined
    problems.push({ file: artifact.path, line, reason: `not well-formed XML: ${(err as Error).message}` })
    return undefined
  }
  if (root.name !== 'IP' || root.attrs.Name !== 'GPIO') {
    problems.push({ file: artifact.path, line: root.line, reason: `expected <IP Name="GPIO"> root element, found <${root.name}>` })
    return undefined
  }
  const pins = new Map<string, GpioPinModes>()
  let usesRemapBlocks = false
  for (const pinEl of root.children) {
    if (pinEl.name !== 'GPIO_Pin') continue
    const name = pinEl.attrs.Name
    if (!name) {
      problems.push({ file: artifact.path, line: pinEl.line, reason: '<GPIO_Pin> without Name' })
      continue
    }
    const pin: GpioPinModes = { name, line: pinEl.line, afs: [], remaps: [] }
    for (const sigEl of pinEl.children) {
      if (sigEl.name !== 'PinSignal') continue
      const signal = sigEl.attrs.Name
      if (!signal) continue
      for (const c of sigEl.children) {
        if (c.name === 'SpecificParameter' && c.attrs.Name === 'GPIO_AF') {
          for (const v of c.children) {
            if (v.name !== 'PossibleValue' || v.text === '') continue
            const m = AF_VALUE.exec(v.text)
            if (m) pin.afs.push({ af: Number(m[1]), signal })
            // F100's CEC carries its remap macro directly, without a RemapBlock.
            else if (v.text.startsWith('__HAL_AFIO_REMAP')) pin.remaps.push({ signal, default: false, macro: v.text })
            else problems.push({ file: artifact.path, line: v.line, reason: `unrecognised GPIO_AF value ${v.text} for ${signal} on ${name}` })
          }
        } else if (c.name === 'RemapBlock') {
          usesRemapBlocks = true
          const isDefault = c.attrs.DefaultRemap === 'true'
          const remap: Stm32Remap = c.attrs.Name ? { signal, block: c.attrs.Name, default: isDefault } : { signal, default: isDefault }
          const macro = afValueOf(c)
          if (macro) remap.macro = macro
          pin.remaps.push(remap)
        }
      }
    }
    // First one wins if a name repeats (none does in the corpus).
    if (!pins.has(name)) pins.set(name, pin)
  }
  return { artifact, lines: new SourceLines(text), usesRemapBlocks, pins }
}

function afValueOf(block: XmlElement): string | undefined {
  for (const sp of block.children) {
    if (sp.name !== 'SpecificParameter' || sp.attrs.Name !== 'GPIO_AF') continue
    for (const v of sp.children) if (v.name === 'PossibleValue' && v.text !== '') return v.text
  }
  return undefined
}
