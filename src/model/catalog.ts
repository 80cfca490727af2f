import type { DocumentTarget, Topic } from './fact.js'

/**
 * A resolvable entity: something a client may name in `part=`. Selector parts and devices are
 * leaves; RefNames, SVD device names with wildcards and multi-core chips group leaves (`members`)
 * and may also carry targets of their own.
 */
export interface CatalogEntity {
  /** Display name as the publisher writes it: `STM32F407VGTx`, `STM32F407V(E-G)Tx`, `STM32L4x6`, `nRF52832`. */
  name: string
  kind: 'selector-part' | 'refname' | 'device'
  /** Normalized lookup keys (see normalizeKey); the first is the name's own key. */
  keys: string[]
  /**
   * How this part's ordering codes are written: the normalized key up to where the code varies
   * (`stem`), then a pattern for the rest (`suffix`, a regular expression over the normalized rest,
   * anchored), with the vendor rule's reason. Absent when no ordering-code rule applies.
   */
  ordering?: { stem: string; suffix: string; reason: string }
  /**
   * Document targets per topic. One target: the topic resolves; several: a rule mapped this part
   * to more than one (two cores, two equally specific SVDs) and the topic is ambiguous.
   */
  targets: Partial<Record<Topic, string[]>>
  /** Names of leaf entities this one stands for (RefName → its selector parts, SVD device → covered parts). */
  members?: string[]
  package?: string
  family?: string
  line?: string
  core?: string
  vendor?: string
  flashKb?: number
  ramKb?: number
  maxFrequencyMhz?: number
  /** Why this entity exists and maps where it does: the rules (or curation entries) that derived it. */
  reason?: string
}

/** A document target as the release's catalog carries it, with its fact counts. */
export interface TargetSummary extends DocumentTarget {
  /** Fact count per topic in this release. */
  factCounts: Partial<Record<Topic, number>>
  /**
   * Set when the source exists but gave no facts: it could not be read. Such a target takes the
   * place the source would have had, so coverage says "failed" instead of "no source".
   */
  failure?: { file: string; line?: number; reason: string }
  /** Problems reported against this target's source while its facts were read (the first few, and how many). */
  problems?: { count: number; first: Array<{ file: string; line?: number; reason: string }> }
}

/** A topic's cross-check (curation's `crossCheck`, indexer/curation/curation.ts says what each member means). */
export interface CrossCheckRule {
  topic: Topic
  order: string[]
  /** The value members a match is judged on; absent: the whole value. */
  compare?: string[]
  /** A checked fact's compared lists need only be within the served fact's. */
  subset?: boolean
  reason: string
}

/** The whole resolvable catalog of a release: small, loaded into memory when a release opens. */
export interface ReleaseCatalog {
  entities: CatalogEntity[]
  targets: TargetSummary[]
  /** Topics with no source at all for an entity family, with the reason (e.g. STM32 errata). */
  gaps: Array<{ match: string; topic: Topic; reason: string }>
  /**
   * Where several kinds of source give a topic: the kind (inventory `kind`) a part is served first,
   * the others checked against it, and why (curation's `crossCheck`). Absent in older releases.
   */
  crossCheck?: CrossCheckRule[]
}
