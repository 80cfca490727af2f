import type { SourceAdapter } from './types.js'
import { svdAdapter } from './svd.js'
import { stm32Adapter } from './stm32.js'
import { nordicErrataAdapter } from './nordic-errata.js'
import { nxpFeaturesAdapter } from './nxp-features.js'
import { stm32DataAdapter } from './stm32-data.js'

/** Every adapter the indexer knows; an inventory kind no adapter claims is reported, not skipped. */
export const ADAPTERS: readonly SourceAdapter[] = [svdAdapter, stm32Adapter, nordicErrataAdapter, nxpFeaturesAdapter, stm32DataAdapter]
