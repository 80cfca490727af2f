import type { SourceAdapter } from './types.js'
import { svdAdapter } from './svd.js'
import { stm32Adapter } from './stm32.js'
import { nordicErrataAdapter } from './nordic-errata.js'
import { nxpFeaturesAdapter } from './nxp-features.js'
import { stm32DataAdapter } from './stm32-data.js'
import { probeRsAdapter } from './probe-rs.js'
import { modmAdapter } from './modm.js'

/**
 * Every adapter the indexer knows; an inventory kind no adapter claims is reported, not skipped.
 * The order is the catalog's: part numbers of earlier adapters meet the parts later ones name.
 */
export const ADAPTERS: readonly SourceAdapter[] = [svdAdapter, stm32Adapter, nordicErrataAdapter, nxpFeaturesAdapter, stm32DataAdapter, probeRsAdapter, modmAdapter]
