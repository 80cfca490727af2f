/**
 * Expected values of configuration checks read straight from the source text (not through the
 * indexer): the operating limits of an STM32 pin-data file, which silicon revisions a Nordic MDK
 * errata function accepts for a part code, the modules nrfx's errata matrix names, and the errata
 * flags of an NXP SDK feature header.
 */

/** An STM32 `<Mcu>` file's limits: `<Voltage Min Max>`, `<Temperature Min Max>`, `<Frequency>` (MHz). */
export function mcuLimits(mcuXml: string): { vddMin: number; vddMax: number; tMin: number; tMax: number; mhz: number } {
  const attrs = (el: string) => {
    const m = new RegExp(`<${el}\\s([^>]*)/>`).exec(mcuXml)![1]!
    return (name: string) => Number(new RegExp(`${name}="([^"]+)"`).exec(m)![1])
  }
  const v = attrs('Voltage')
  const t = attrs('Temperature')
  return { vddMin: v('Min'), vddMax: v('Max'), tMin: t('Min'), tMax: t('Max'), mhz: Number(/<Frequency>([^<]+)<\/Frequency>/.exec(mcuXml)![1]) }
}

/** The Position of every `<Pin>` of an `<Mcu>` file by its Name attribute (`PA9 [PA11]` → `18`). */
export function mcuPositions(mcuXml: string): Map<string, string> {
  return new Map([...mcuXml.matchAll(/<Pin Name="([^"]+)" Position="([^"]+)"/g)].map((m) => [m[1]!, m[2]!]))
}

/**
 * For each errata function of a Nordic MDK header with a `switch(var2)` for the part code: what it
 * returns for each revision it lists, and what its `default:` returns.
 */
export function nordicRevisions(header: string, partCode: string): Map<number, { cases: Map<string, boolean>; otherwise: boolean }> {
  const out = new Map<number, { cases: Map<string, boolean>; otherwise: boolean }>()
  const re = /static inline bool nrf\d+_errata_(\d+)\(void\)\n\{([\s\S]*?)\n\}/g
  for (const m of header.matchAll(re)) {
    const at = m[2]!.indexOf(`if (var1 == ${partCode})`)
    if (at < 0) continue
    const block = m[2]!.slice(at, m[2]!.indexOf('default:', at) + 80)
    const cases = new Map([...block.matchAll(/case (0x[0-9a-f]+)ul:\s*return (true|false);/gi)].map((c) => [c[1]!.toLowerCase(), c[2] === 'true']))
    out.set(Number(m[1]), { cases, otherwise: /default:\s*return true;/.test(block) })
  }
  return out
}

/** The modules nrfx's errata matrix (errata.dox) names for each erratum of a series (`NRF52`). */
export function doxModules(dox: string, series: string): Map<number, string[]> {
  const out = new Map<number, string[]>()
  for (const line of dox.split('\n')) {
    const cells = line.split('|').map((c) => c.trim())
    if (cells[1] !== series || !/^\d+$/.test(cells[2] ?? '')) continue
    // An erratum may have several rows (one per module).
    out.set(Number(cells[2]), [...(out.get(Number(cells[2])) ?? []), ...(cells[4] ?? '').replaceAll('@ref', ' ').split(/[\s/]+/).filter(Boolean)])
  }
  return out
}

/** `FSL_FEATURE_I2C_HAS_ERRATA_6070 (1)` of an NXP feature header, with the module and the comment above it. */
export function nxpErrata(header: string): Array<{ id: string; module: string; title: string; line: number }> {
  const lines = header.split('\n')
  const out: Array<{ id: string; module: string; title: string; line: number }> = []
  lines.forEach((l, i) => {
    const m = /^#define FSL_FEATURE_(\w+?)_HAS_ERRATA_(\d+) \(1\)/.exec(l)
    if (m) out.push({ module: m[1]!, id: m[2]!, title: /\/\* @brief (.*?) \*\//.exec(lines[i - 1] ?? '')?.[1] ?? '', line: i + 1 })
  })
  return out
}
