/** What the inventory (`sources.json`) says of one source artifact; releases keep it verbatim. */
export interface SourceMeta {
  /** Path inside the inventory, e.g. `svd/STMicro/STM32F407.svd`. */
  path: string
  sha256: string
  bytes: number
  kind: string
  publisher: string
  distributor?: string
  license: string
  mediaType: string
  /** `derivedFrom`: the upstream file a trimmed copy (a test fixture) was cut from. */
  upstream?: { repository?: string; commit?: string; path?: string; url?: string; rawUrl?: string; derivedFrom?: string }
}
