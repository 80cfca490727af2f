import { Type, type Static } from 'typebox'
import { ALL_TOPICS } from '../model/fact.js'
import { DEPTH_VERSION } from '../model/versions.js'
import { SINCE, TOPICS_SINCE } from './versions.js'
import { StringEnum } from './components.js'

/**
 * A fact as /v1/context and get_context return it: the JSON the indexer stores per fact
 * (indexer/encode.ts), described member by member. Values differ per topic and, for registers,
 * per kind of element (peripheral, register, bit field).
 */

const closed = { additionalProperties: false } as const
const Hex = (description: string) => Type.String({ pattern: '^0x[0-9A-Fa-f]+$', description })
const Text = (description: string) => Type.Union([Type.String(), Type.Null()], { description })

/** Every topic; a contract version offers those `x-since` gives it (src/model/versions.ts). */
export const Topic = StringEnum(ALL_TOPICS, { $id: 'Topic', description: 'Fact topic.', [SINCE]: TOPICS_SINCE })

export const Evidence = Type.Object(
  {
    sourceSha256: Type.String({ pattern: '^[a-f0-9]{64}$', description: 'sha256 of the exact source artifact bytes (see /v1/sources).' }),
    sourcePath: Type.String({ description: 'Path of the artifact in the source inventory, e.g. `svd/STMicro/STM32F407.svd`.' }),
    locator: Type.String({ description: 'Where in the artifact: `line 5954: /device/peripherals/peripheral[name=RCC]/registers/register[name=AHB1ENR]`.' }),
    excerpt: Type.String({ description: 'A short excerpt of the source at the locator (at most about 240 characters).' })
  },
  { ...closed, $id: 'Evidence', description: 'Where a fact came from: enough to find the exact element or line in the archived artifact.' }
)

export const FactScope = Type.Object(
  {
    device: Type.String({ description: 'Device name as the publisher writes it (SVD name, STM32 RefName, Nordic model).' }),
    parts: Type.Optional(Type.Array(Type.String(), { description: 'Selector parts the fact applies to, when narrower than the device.' })),
    package: Type.Optional(Type.String({ description: 'Package the fact belongs to (pins).' })),
    siliconRevisions: Type.Optional(Type.Array(Type.String(), { description: 'Silicon revision codes the fact applies to (errata), e.g. `0x05`.' })),
    source: Type.Optional(Type.String({ description: 'Where the sources of a target disagree about this fact: the source path this value is from (the other sources\' values are facts of their own).' }))
  },
  { ...closed, $id: 'FactScope', description: 'What the fact applies to; an absent member means "not narrowed by this dimension".' }
)

export const Interrupt = Type.Object(
  { name: Type.String(), value: Type.Union([Type.Integer(), Type.Null()], { description: 'IRQ number.' }), description: Text('As the SVD writes it.') },
  { ...closed, $id: 'Interrupt' }
)

export const PeripheralValue = Type.Object(
  {
    baseAddress: Hex('Peripheral base address, 8 hex digits.'),
    description: Text('As the SVD writes it.'),
    groupName: Type.Optional(Type.String()),
    derivedFrom: Type.Optional(Type.String({ description: 'The peripheral this one copies its registers from.' })),
    interrupts: Type.Array(Interrupt)
  },
  { ...closed, $id: 'PeripheralValue', description: 'A peripheral instance (fact name `GPIOA`).' }
)

export const RegisterArray = Type.Object(
  {
    count: Type.Integer({ minimum: 2, description: 'How many elements the SVD `<dim>` declares.' }),
    increment: Hex('Bytes from one element to the next (`<dimIncrement>`).')
  },
  {
    ...closed,
    $id: 'RegisterArray',
    description:
      'A register array too long to list element by element (more than 65,536 elements, e.g. a 16 Mi-entry trace buffer): one fact, named as the SVD writes it (`DATA[%s]`), whose `address` is element 0\'s.'
  }
)

export const RegisterValue = Type.Object(
  {
    address: Hex('Absolute address, 8 hex digits.'),
    offset: Hex('Offset from the peripheral base address.'),
    size: Type.Union([Type.Integer(), Type.Null()], { description: 'Width in bits.' }),
    resetValue: Type.Union([Hex('Reset value.'), Type.Null()]),
    resetMask: Type.Union([Hex('Bits the reset value defines.'), Type.Null()]),
    access: Text('`read-write`, `read-only`, `write-only`, `writeOnce`, `read-writeOnce`.'),
    description: Text('As the SVD writes it.'),
    protection: Type.Optional(Type.String({ description: 'SVD protection: `s` secure, `n` non-secure, `p` privileged.' })),
    array: Type.Optional(RegisterArray)
  },
  { ...closed, $id: 'RegisterValue', description: 'A register (fact name `RCC.AHB1ENR`).' }
)

export const EnumeratedValue = Type.Object(
  {
    name: Type.String(),
    value: Type.Union([Type.Integer(), Type.String(), Type.Null()], { description: 'A number, or the SVD text when it has do-not-care bits (`#1x0`).' }),
    description: Text('As the SVD writes it.'),
    usage: Type.Optional(Type.String({ description: '`read`, `write` or `read-write`.' })),
    isDefault: Type.Optional(Type.Literal(true))
  },
  { ...closed, $id: 'EnumeratedValue' }
)

export const FieldValue = Type.Object(
  {
    bitOffset: Type.Integer({ minimum: 0, description: 'Position of the least significant bit.' }),
    bitWidth: Type.Integer({ minimum: 1 }),
    access: Text('Field access, or the register access it inherits.'),
    description: Text('As the SVD writes it.'),
    enumeratedValues: Type.Optional(Type.Array(EnumeratedValue))
  },
  { ...closed, $id: 'FieldValue', description: 'A bit field of a register (fact name `RCC.AHB1ENR.GPIOAEN`).' }
)

export const AlternateFunction = Type.Object(
  { af: Type.Integer({ minimum: 0, description: 'AF number (`GPIO_AF7_USART1` → 7).' }), signal: Type.String() },
  { ...closed, $id: 'AlternateFunction' }
)

export const PinRemap = Type.Object(
  {
    signal: Type.String(),
    block: Type.Optional(Type.String({ description: 'AFIO remap block, e.g. `USART1_REMAP1`.' })),
    default: Type.Boolean({ description: 'True for the reset-state mapping (no remap needed).' }),
    macro: Type.Optional(Type.String({ description: 'HAL macro selecting this mapping.' }))
  },
  { ...closed, $id: 'PinRemap', description: 'STM32F1-style remapping of a signal onto the pin.' }
)

export const PinValue = Type.Object(
  {
    label: Type.String({ description: 'Pin name as the package lists it, e.g. `PA9`.' }),
    package: Type.String(),
    position: Type.String({ description: 'Pin number or ball, e.g. `68` or `B7`.' }),
    positions: Type.Array(Type.String(), { description: 'Every position of pins with this name (VDD ×N).' }),
    type: Type.String({ description: '`I/O`, `Power`, `Reset`, `Boot`, `MonoIO`, … as the source writes it.' }),
    signals: Type.Array(Type.String()),
    ioModes: Type.Optional(Type.Array(Type.String())),
    alternateFunctions: Type.Optional(Type.Array(AlternateFunction, { description: 'Absent when the GPIO modes file could not be read: unknown, not empty.' })),
    remaps: Type.Optional(Type.Array(PinRemap)),
    alternateFunctionsUnknown: Type.Optional(Type.String({ description: 'Why `alternateFunctions` is absent (the GPIO modes file is missing or unreadable): unknown, not empty.' })),
    variants: Type.Optional(
      Type.Array(
        Type.Object(
          { position: Type.String(), label: Type.String(), variant: Type.String(), signals: Type.Array(Type.String(), { description: 'The signals of this remapped position (PINREMAP), which may differ from the main position\'s.' }) },
          closed
        )
      )
    )
  },
  { ...closed, $id: 'PinValue', description: 'A pin of one package (fact name `PA9`).' }
)

export const ElectricalValue = Type.Object(
  { value: Type.Number(), unit: Type.String({ description: '`V`, `°C`, `MHz`, `µA/MHz`, `µA`.' }) },
  { ...closed, $id: 'ElectricalValue', description: 'A limit (fact name `supply.vdd.min`).' }
)

export const ErrataHandling = Type.Object(
  { handling: Type.String({ description: '`MDK` = implemented in the MDK; anything else is outside it.' }), module: Text('Affected module.'), functions: Type.Array(Type.String()), comment: Text('') },
  { ...closed, $id: 'ErrataHandling', description: 'One row of the nrfx errata matrix.' }
)

export const NordicErratumValue = Type.Object(
  {
    number: Type.Integer(),
    series: Type.String(),
    device: Type.String(),
    kind: StringEnum(['erratum', 'configuration']),
    function: Type.String({ description: 'The MDK function that decides whether the erratum applies.' }),
    partCode: Type.Union([Type.String(), Type.Null()]),
    variants: Type.Array(Type.String()),
    revisions: Type.Array(Type.Object({ code: Type.String(), applies: Type.Boolean() }, closed), { description: 'Per listed silicon revision: whether the erratum applies.' }),
    appliesToUnlistedRevisions: Type.Boolean(),
    handling: Type.Optional(Type.Array(ErrataHandling, { description: 'Absent when no errata matrix was indexed.' })),
    workaroundInMdk: Type.Optional(Type.Boolean()),
    workaroundEnabledByDefault: Type.Optional(Type.Boolean())
  },
  { ...closed, $id: 'NordicErratumValue', description: 'A silicon erratum of a Nordic MDK errata header (fact name `errata.109`).' }
)

export const McuxErratumValue = Type.Object(
  {
    id: Type.String({ description: 'Erratum id as the macro writes it (`FSL_FEATURE_I2C_HAS_ERRATA_6070` → `6070`).' }),
    module: Type.String({ description: 'The SDK module the macro names (`I2C`).' }),
    title: Type.Optional(Type.String({ description: 'The one-line comment above the macro, as written.' }))
  },
  { ...closed, $id: 'McuxErratumValue', description: 'An erratum an NXP MCUXpresso SDK feature header sets for the device (fact name `errata.6070`).' }
)

export const ErratumValue = Type.Union([NordicErratumValue, McuxErratumValue], { $id: 'ErratumValue', description: 'A silicon erratum (fact name `errata.<id>`): from a Nordic MDK errata header, or an NXP SDK feature header.' })

export const MemoryAccess = Type.Object(
  { read: Type.Optional(Type.Boolean()), write: Type.Optional(Type.Boolean()), execute: Type.Optional(Type.Boolean()), boot: Type.Optional(Type.Boolean({ description: 'probe-rs: the region the core boots from.' })) },
  { ...closed, $id: 'MemoryAccess', [SINCE]: DEPTH_VERSION, description: 'Access as the source writes it; an absent member is the source\'s default (probe-rs: read, write and execute allowed, not boot).' }
)

export const MemoryValue = Type.Object(
  {
    kind: StringEnum(['ram', 'flash', 'rom', 'other'], { description: 'What the region is: `ram`, `flash` (on-chip program flash), `rom`, or `other` (EEPROM, peripheral or external windows, regions the source does not type).' }),
    start: Hex('First address of the region.'),
    size: Type.Integer({ minimum: 0, description: 'Size in bytes.' }),
    access: Type.Optional(MemoryAccess),
    eraseSize: Type.Optional(Type.Integer({ minimum: 0, description: 'Erase sector size in bytes (stm32-data `settings.erase_size`; 0 where the source says it cannot be erased).' })),
    writeSize: Type.Optional(Type.Integer({ minimum: 0, description: 'Write (program) unit in bytes.' })),
    cores: Type.Optional(Type.Array(Type.String(), { description: 'The cores that see the region, as the source names them (probe-rs `cores`).' })),
    alias: Type.Optional(Type.Literal(true, { description: 'probe-rs `is_alias`: another address of memory another region of the map describes.' })),
    layout: Type.Optional(
      Type.String({ description: 'stm32-data: the flash organisation this region belongs to, for a chip the file gives several of (`single-bank`, `dual-bank`); the fact name starts with it. Absent for a region every organisation gives alike.' })
    )
  },
  { ...closed, $id: 'MemoryValue', [SINCE]: DEPTH_VERSION, description: 'A memory region (fact name `SRAM`, `BANK_1_REGION_1`, `NVM_2`), as one source maps it.' }
)

export const InterruptLineValue = Type.Object(
  {
    number: Type.Integer({ minimum: -16, description: 'Interrupt (IRQ) number: the NVIC line, as the source numbers it.' }),
    peripherals: Type.Array(Type.String(), { description: 'The peripheral instances that declare or raise this line, sorted.' })
  },
  { ...closed, $id: 'InterruptLineValue', [SINCE]: DEPTH_VERSION, description: 'An interrupt line (fact name `USART1`, as the source names the line).' }
)

export const DmaOption = Type.Object(
  {
    controller: Type.String({ description: 'The DMA controller or request multiplexer the source names (`DMA2`, `GPDMA1`, `DMAMUX1`, `BDMA`).' }),
    channel: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description: 'Channel or stream number; null where the source gives none (a multiplexer request serves any channel).' }),
    request: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description: 'Request number (DMA channel selection, DMAMUX or GPDMA request line); null where the source gives none.' }),
    channels: Type.Optional(Type.Array(Type.String(), { description: 'Where `channel` is null: the channels that can take the request, by the core\'s list (`DMA1_CH0` …, behind `DMAMUX1`).' })),
    remap: Type.Optional(
      Type.Array(Type.Object({ register: Type.String(), field: Type.String(), value: Type.Integer() }, closed), { description: 'stm32-data `remap`: the register field settings (SYSCFG `CFGR1.ADC2_DMA_RMP` = 0) this mapping needs.' })
    )
  },
  { ...closed, $id: 'DmaOption', [SINCE]: DEPTH_VERSION }
)

export const DmaValue = Type.Object(
  { options: Type.Array(DmaOption, { description: 'Every channel or request that can serve the signal, in the source\'s order.' }) },
  { ...closed, $id: 'DmaValue', [SINCE]: DEPTH_VERSION, description: 'The DMA requests of one peripheral signal (fact name `USART1.TX`).' }
)

export const ClockValue = Type.Object(
  {
    busClock: Type.String({ description: 'The bus clock the peripheral is on (`PCLK2`).' }),
    kernelClock: Type.String({ description: 'The kernel clock: a clock name (`PCLK2`), or, where a mux selects it, the mux register field (`RCC.CCIPR.ADC1SEL`, see `kernelClockMux`).' }),
    kernelClockMux: Type.Optional(Type.Object({ register: Type.String(), field: Type.String() }, { ...closed, description: 'The RCC register and field of the kernel clock mux.' })),
    enable: Type.String({ description: 'The enable bit: `RCC.APB2ENR.USART1EN`.' }),
    reset: Type.Union([Type.String(), Type.Null()], { description: 'The reset bit (`RCC.APB2RSTR.USART1RST`); null where the source gives none.' }),
    stopMode: Type.Optional(Type.String({ description: 'stm32-data `stop_mode`: the lowest-power mode the peripheral keeps working in (`Stop1`, `Standby`).' }))
  },
  { ...closed, $id: 'ClockValue', [SINCE]: DEPTH_VERSION, description: 'How a peripheral is clocked, enabled and reset (fact name `USART1`).' }
)

const factProps = {
  id: Type.String({ description: 'Stable across releases for the same target, topic, name and package.' }),
  name: Type.String({ description: 'Filterable name: `GPIOA.MODER.MODER0`, `PA9`, `supply.vdd.min`, `errata.109`.' }),
  aliases: Type.Optional(Type.Array(Type.String(), { description: 'Names a checked source gives the same fact (interrupts matched by vector number: `DMA1_Channel1` for `DMA1_CH1`); its evidence is in `evidence`.' })),
  scope: FactScope,
  evidence: Type.Array(Evidence, { minItems: 1 }),
  agreement: Type.Optional(
    StringEnum(['agree', 'disagree'], { description: 'Set where the target has several sources and more than one gives this fact: `agree` (one fact, every source\'s evidence) or `disagree` (a fact per source, `scope.source` naming it).' })
  )
}
const fact = <T extends string, V extends Parameters<typeof Type.Object>[0][string]>(id: string, topic: T, value: V, description: string) =>
  Type.Object(
    { id: factProps.id, topic: Type.Literal(topic), name: factProps.name, aliases: factProps.aliases, value, scope: factProps.scope, evidence: factProps.evidence, agreement: factProps.agreement },
    // A fact of a later topic is of that version; `aliases` (cross-checked sources) came with 2026-12-01.
    { ...closed, $id: id, description, [SINCE]: TOPICS_SINCE[topic] ?? { aliases: DEPTH_VERSION } }
  )

export const RegisterFact = fact('RegisterFact', 'registers', Type.Union([PeripheralValue, RegisterValue, FieldValue]), 'A registers fact: a peripheral, a register or a bit field.')
export const PinFact = fact('PinFact', 'pins', PinValue, 'A pins fact.')
export const ElectricalFact = fact('ElectricalFact', 'electrical', ElectricalValue, 'An electrical limit.')
export const ErratumFact = fact('ErratumFact', 'errata', ErratumValue, 'An erratum.')
export const MemoryFact = fact('MemoryFact', 'memory', MemoryValue, 'A memory region (contract 2026-12-01).')
export const InterruptFact = fact('InterruptFact', 'interrupts', InterruptLineValue, 'An interrupt line (contract 2026-12-01).')
export const DmaFact = fact('DmaFact', 'dma', DmaValue, 'The DMA requests of a peripheral signal (contract 2026-12-01).')
export const ClockFact = fact('ClockFact', 'clocks', ClockValue, 'The clock, enable and reset of a peripheral (contract 2026-12-01).')

export const Fact = Type.Union([RegisterFact, PinFact, ElectricalFact, ErratumFact, MemoryFact, InterruptFact, DmaFact, ClockFact], { $id: 'Fact', description: 'One source-backed fact; `topic` tells which value it carries.' })
export type Fact = Static<typeof Fact>
