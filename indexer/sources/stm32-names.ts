/**
 * Naming rules of ST's open pin data: RefName → selector parts, pin label → base pin name,
 * signal → peripheral instance. Kept apart from the adapter so tests can pin the rules down.
 */

/**
 * Expands a RefName's parenthesised alternatives into selector parts:
 * `STM32F407V(E-G)Tx` → `STM32F407VETx`, `STM32F407VGTx`; no parentheses → the RefName itself.
 * Every group is expanded (the corpus has at most one), in the order written.
 * Returns undefined for an unbalanced or empty group, which the adapter reports.
 */
export function expandRefName(refName: string): string[] | undefined {
  const open = refName.indexOf('(')
  if (open === -1) return refName.includes(')') ? undefined : [refName]
  const close = refName.indexOf(')', open)
  if (close === -1) return undefined
  const alternatives = refName.slice(open + 1, close).split('-')
  if (alternatives.some((a) => a === '' || a.includes('('))) return undefined
  const tails = expandRefName(refName.slice(close + 1))
  if (!tails) return undefined
  const head = refName.slice(0, open)
  const out: string[] = []
  for (const alt of alternatives) for (const tail of tails) out.push(head + alt + tail)
  return out
}

/**
 * A GPIO pad name at the start of a label: port letter + number, plus `_C` for the separate
 * analog-switch pads of the STM32H7 (`PA0_C` is a different ball from `PA0` in the same package,
 * so it must not merge with it). Whatever follows — `-OSC32_IN`, ` (PC14)`, ` [PA9]`, `/WKUP`,
 * `OSC32_IN` without separator, ` - NRST` — is the pad's additional function, not its name.
 */
const GPIO_BASE = /^P[A-Z]\d+(?:_C(?![A-Za-z0-9_]))?/

/**
 * Base name of a pin label, the name pins facts are filed under:
 * - `PC14-OSC32_IN`, `PC14-OSC32_IN (OSC32_IN)`, `PH0-OSC_IN (PH0)`, `PA13 (JTMS/SWDIO)`,
 *   `PF2 - NRST`, `PC14OSC32_IN` → the leading GPIO name (`PC14`, `PH0`, `PA13`, `PF2`, `PC14`);
 * - `PA11 [PA9]` → `PA11`: ST's notation for a pad that is PA11 by default and PA9 when the
 *   SYSCFG pin remap is set; the same pad is listed again as `PA9 [PA11]` with
 *   `Variant="PINREMAP"`, which files under `PA9` (so PA9's positions include the remapped pad);
 * - anything that does not start with a GPIO name (`VDD`, `VSS`, `NRST`, `BOOT0`, `VCAP_1`,
 *   `VDDA/VREF+`, `PDR_ON`, `UCPD1_DBCC1`, `NC`) keeps its whole (trimmed) label.
 */
export function pinBaseName(label: string): string {
  const trimmed = label.trim()
  const m = GPIO_BASE.exec(trimmed)
  return m ? m[0] : trimmed
}

export { signalPeripheral } from '../../src/model/signals.js'
