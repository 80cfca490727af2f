import type { DocumentTarget, Topic } from './fact.js'

/**
 * A resolvable entity: something a client may name in `part=`. Selector parts and curated devices
 * are leaves; RefNames and SVD device names group leaves (`members`) and may also carry targets.
 */
export interface CatalogEntity {
  /** Display name as the publisher writes it: `STM32F407VGTx`, `STM32F407V(E-G)Tx`, `STM32L4x6`, `nRF52832`. */
  name: string
  kind: 'selector-part' | 'refname' | 'device'
  /** Normalized lookup keys (see normalizeKey); the first is the name's own key. */
  keys: string[]
  /**
   * Ordering-code patterns for selector parts: the key split at the temperature-range `x`,
   * so `STM32F407VGT6TR` finds `STM32F407VGTx`. Absent for other kinds.
   */
  orderingStem?: { stem: string; tail: string }
  /** Document target per topic, where this entity maps to exactly one. */
  targets: Partial<Record<Topic, string>>
  /** Names of leaf entities this one stands for (RefName → its selector parts, SVD device → covered parts). */
  members?: string[]
  package?: string
  family?: string
  line?: string
  core?: string
  flashKb?: number
  ramKb?: number
  maxFrequencyMhz?: number
  /** Why this mapping exists, for curated entries (shown by /v1/catalog/part and /v1/sources). */
  reason?: string
}

/** A document target as the release's catalog carries it, with its fact counts. */
export interface TargetSummary extends DocumentTarget {
  /** Fact count per topic in this release. */
  factCounts: Partial<Record<Topic, number>>
}

/** The whole resolvable catalog of a release: small, loaded into memory when a release opens. */
export interface ReleaseCatalog {
  entities: CatalogEntity[]
  targets: TargetSummary[]
  /** Topics with no source at all for an entity family, with the reason (e.g. STM32 errata). */
  gaps: Array<{ match: string; topic: Topic; reason: string }>
}
