/**
 * Which peripheral instance a signal belongs to: the pin data's rule (indexer/sources/stm32.ts files
 * pins under the instances of their signals), which a configuration check follows too, to know the
 * peripherals a configuration uses.
 */

/**
 * Peripheral instance a signal belongs to: the longest `_`-delimited prefix that is one of the
 * MCU's `<IP InstanceName>`s (`USB_OTG_FS_DM` → `USB_OTG_FS`, `RCC_OSC32_IN` → `RCC`), else the
 * text before the first `_` (`I2S_CKIN` → `I2S`, `CEC` → `CEC`). `GPIO` and `EVENTOUT` are pin
 * modes, not peripherals: undefined.
 */
export function signalPeripheral(signal: string, instances: ReadonlySet<string>): string | undefined {
  if (signal === 'GPIO' || signal === 'EVENTOUT') return undefined
  for (let i = signal.lastIndexOf('_'); i > 0; i = signal.lastIndexOf('_', i - 1)) {
    const prefix = signal.slice(0, i)
    if (instances.has(prefix)) return prefix
  }
  const first = signal.indexOf('_')
  return first > 0 ? signal.slice(0, first) : signal
}
