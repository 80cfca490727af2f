/**
 * Expected values read straight from the source text (not through the indexer): just enough of
 * the SVD, STM32 pin-data and Nordic errata formats for the comparison tests.
 */

const tag = (xml: string, name: string): string | undefined => new RegExp(`<${name}>\\s*([^<]*?)\\s*</${name}>`).exec(xml)?.[1]

/** The `<peripheral>` element named `name`, and the one whose registers it has (derivedFrom). */
export function svdPeripheral(svd: string, name: string): { base: number; registersXml: string } {
  const blocks = svd.split(/<peripheral\b/).slice(1).map((b) => b.slice(0, b.indexOf('</peripheral>')))
  const find = (n: string) => blocks.find((b) => tag(b, 'name') === n)
  const own = find(name)
  if (!own) throw new Error(`no peripheral ${name}`)
  const derived = /^[^>]*derivedFrom="([^"]+)"/.exec(own)?.[1]
  const src = derived ? find(derived)! : own
  return { base: Number(tag(own, 'baseAddress')), registersXml: src.slice(src.indexOf('<registers>')) }
}

export interface RawRegister {
  name: string
  offset: number
  resetValue?: number
  fields: Map<string, { bitOffset: number; bitWidth: number }>
}

/** The registers of a peripheral's `<registers>` (no clusters or arrays: the USARTs have none). */
export function svdRegisters(registersXml: string): Map<string, RawRegister> {
  const out = new Map<string, RawRegister>()
  for (const r of registersXml.split(/<register>/).slice(1)) {
    const body = r.slice(0, r.indexOf('</register>'))
    const head = body.slice(0, body.indexOf('<fields>') >= 0 ? body.indexOf('<fields>') : undefined)
    const fields = new Map<string, { bitOffset: number; bitWidth: number }>()
    for (const f of body.split(/<field>/).slice(1)) fields.set(tag(f, 'name')!, { bitOffset: Number(tag(f, 'bitOffset')), bitWidth: Number(tag(f, 'bitWidth')) })
    const reset = tag(head, 'resetValue')
    out.set(tag(head, 'name')!, { name: tag(head, 'name')!, offset: Number(tag(head, 'addressOffset')), ...(reset ? { resetValue: Number(reset) } : {}), fields })
  }
  return out
}

export const hex8 = (n: number) => '0x' + n.toString(16).toUpperCase().padStart(8, '0')

/** Pins of an STM32 pin-data `<Mcu>` file that list the signal. */
export function mcuPinsWithSignal(mcuXml: string, signal: string): string[] {
  const out: string[] = []
  for (const p of mcuXml.split(/<Pin /).slice(1)) {
    const body = p.slice(0, p.indexOf('</Pin>'))
    if (body.includes(`<Signal Name="${signal}"`)) out.push(/Name="([^"]+)"/.exec(body)![1]!)
  }
  return out.sort()
}

/** The AF number of a signal on a pin, from a GPIO modes file (`GPIO_AF7_USART1` → 7). */
export function gpioAf(modesXml: string, pin: string, signal: string): number | undefined {
  const start = modesXml.indexOf(`Name="${pin}">`)
  if (start < 0) return undefined
  const body = modesXml.slice(start, modesXml.indexOf('</GPIO_Pin>', start))
  const s = body.indexOf(`<PinSignal Name="${signal}">`)
  if (s < 0) return undefined
  const m = /GPIO_AF(\d+)_/.exec(body.slice(s, body.indexOf('</PinSignal>', s)))
  return m ? Number(m[1]) : undefined
}

/** Numbers of the errata/configuration functions of a Nordic MDK header that test for a part code. */
export function nordicErrata(header: string, partCode: string): Set<number> {
  const out = new Set<number>()
  const re = /static inline bool nrf\d+_(?:errata|configuration)_(\d+)\(void\)\n\{([\s\S]*?)\n\}/g
  for (const m of header.matchAll(re)) if (m[2]!.includes(`if (var1 == ${partCode})`)) out.add(Number(m[1]))
  return out
}
