/**
 * The fact model shared by the indexer (which writes facts) and the service (which reads them).
 * Everything a client sees about a fact is derived from these shapes.
 */
/** The seed contract's topics (2026-08-26), served to every request. */
export const TOPICS = ['registers', 'pins', 'electrical', 'errata'] as const
/** Topics added by contract 2026-12-01 (issue "Depth"): opt-in by `Service-Version`, always on MCP. */
export const DEPTH_TOPICS = ['memory', 'interrupts', 'dma', 'clocks'] as const
export const ALL_TOPICS = [...TOPICS, ...DEPTH_TOPICS] as const
export type Topic = (typeof ALL_TOPICS)[number]
export type SeedTopic = (typeof TOPICS)[number]

/** Where a fact came from: enough for a person to find the exact element or line in the artifact. */
export interface Evidence {
  /** sha256 (64 lowercase hex) of the exact source artifact bytes. */
  sourceSha256: string
  /** Path of the artifact inside the source inventory, e.g. `svd/STMicro/STM32F407.svd`. */
  sourcePath: string
  /** e.g. `line 1234: /device/peripherals/peripheral[name=GPIOA]/registers/register[name=MODER]`. */
  locator: string
  /** A short verbatim-ish excerpt of the source around the locator (at most ~240 chars). */
  excerpt: string
}

/** What the fact applies to. Absent members mean "not narrowed by this dimension". */
export interface FactScope {
  /** Device name as the publisher writes it (SVD `<name>`, STM32 RefName, Nordic `NRF52840_XXAA`). */
  device: string
  /** Selector parts the fact is known to apply to, when narrower than the whole device. */
  parts?: string[]
  /** Package name (pins facts are per package), e.g. `LQFP100`. */
  package?: string
  /** Silicon revision codes the fact applies to (errata). */
  siliconRevisions?: string[]
  /**
   * The one source this fact's value is from, where the target's sources disagree about it
   * (each source's value is then a fact of its own, both marked `disagree`).
   */
  source?: string
}

/** A fact as an adapter produces it, before the release builder assigns its id and order. */
export interface FactDraft {
  /** Key of the document target the fact belongs to (see DocumentTarget.key). */
  target: string
  topic: Topic
  /** Public, filterable name: `GPIOA.MODER.MODER0`, `PA9`, `supply.vdd.min`, `errata.109`. */
  name: string
  value: Record<string, unknown>
  scope: FactScope
  evidence: Evidence[]
  /**
   * Peripheral instances the fact concerns, for the `peripheral` filter: the register's
   * peripheral (`GPIOA`), or the instances a pin's signals belong to (`USART1`, `TIM1`).
   */
  peripherals?: string[]
  /**
   * Set where the target has several sources and more than one gives this fact: `agree` (one
   * fact, every source's evidence) or `disagree` (a fact per source, scoped to it).
   */
  agreement?: 'agree' | 'disagree'
}

export interface Fact extends FactDraft {
  /** Stable across releases for the same target/topic/name/package. */
  id: string
}

/**
 * A document target: one coherent set of facts from one source for one device,
 * e.g. the register map of `STM32F407.svd`, or the pin data of RefName `STM32F407V(E-G)Tx`.
 */
export interface DocumentTarget {
  /** Unique within a release: `svd:STM32F407`, `stm32:STM32F407V(E-G)Tx`, `nordic-errata:NRF52840_XXAA`. */
  key: string
  topics: Topic[]
  /** Device name as the publisher writes it. */
  device: string
  sourceSha256: string
  sourcePath: string
  /**
   * Every source of a target that several artifacts describe (one device in two vendor folders,
   * Fujitsu's and Spansion's MB9 SVDs), the first being sourcePath/sourceSha256.
   */
  sources?: Array<{ sourcePath: string; sourceSha256: string }>
  /** Packages this target has facts for (pins), sorted. */
  packages?: string[]
  description?: string
  /**
   * What the source says the target is, for the catalog's naming rules: SVD `<vendor>`,
   * `<series>`, `<cpu><name>`; the errata header's device macros (`NRF52840_XXAA`) and core.
   */
  identity?: TargetIdentity
}

export interface TargetIdentity {
  vendor?: string
  series?: string
  cpu?: string
  /** Build-variant macros of an errata model (`NRF52832_XXAA`, `NRF52832_XXAB`). */
  variants?: string[]
  /** Core of a multi-core device the target describes (`application`, `network`). */
  core?: string
  /**
   * Package codes the source gives for its device, as the vendor's ordering code writes them:
   * Nordic's FICR `INFO.PACKAGE` values (`QIxx - 7x7 73-pin aQFN` → `QI`). Sorted.
   */
  packages?: string[]
}

/** One entry of the STM32 selector catalog: an orderable selector part. */
export interface CatalogPart {
  /** Selector part, e.g. `STM32F407VGTx` (trailing x: temperature-range digit of the ordering code). */
  name: string
  refName: string
  family: string
  line: string
  package: string
  flashKb: number
  ramKb: number
  core: string
  maxFrequencyMhz?: number
  /** DocumentTarget.key of its pin/electrical data. */
  target: string
  sourceSha256: string
  sourcePath: string
}

/**
 * A part number a source names, with what that source says about it: a probe-rs variant
 * (`nRF52840_xxAA`), a modm identifier (`atsamd21g18a-au`), an stm32-data chip or package
 * (`STM32F407VG`, `STM32F407VGTx`), an NXP feature header's `CPU_` macro (`MKL25Z128VLK4`).
 * The catalog makes each a resolvable part and links it to the register map, pin data and errata
 * that describe it by the rules of indexer/curation, each with its reason.
 */
export interface PartNumber {
  /** As the source spells it. */
  name: string
  /** Vendor as the source names it (probe-rs `manufacturer`, the file's publisher, …); absent where the source names none. */
  vendor?: string
  /**
   * The device the source says the part is one of, when it says so: the NXP feature header's
   * device (`MKL25Z4` for `CPU_MKL25Z128VLK4`). A register map or errata target of that device
   * name describes the part.
   */
  device?: string
  /** Family or series as the source names it (`nRF52 Series`, `STM32F4`). */
  family?: string
  /** Package names or codes the source gives for this part (`LQFP100`, `au`). */
  packages?: string[]
  core?: string
  flashKb?: number
  ramKb?: number
  /**
   * DocumentTarget.keys of this source's own targets with the part's facts, when it has any: one,
   * or a multi-core chip's several (the chip's memory map, each core's interrupts).
   */
  targets?: string[]
  sourceSha256: string
  sourcePath: string
  /** 1-based line of the source where the part is named. */
  line: number
}

export interface ParseProblem {
  file: string
  line?: number
  reason: string
}
