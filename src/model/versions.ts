import { ALL_TOPICS, TOPICS, type Topic } from './fact.js'

/**
 * The dated contract versions served (spec part 9). A request picks one with `Service-Version`;
 * without it the seed contract applies exactly as the spec writes it. A later version only adds
 * (topics, response members, operations): what an earlier version answers never changes.
 */
export const SEED_VERSION = '2026-08-26'
export const CONTRACT_VERSIONS = [SEED_VERSION, '2026-12-01'] as const
export type ContractVersion = (typeof CONTRACT_VERSIONS)[number]
export const LATEST_VERSION: ContractVersion = CONTRACT_VERSIONS[CONTRACT_VERSIONS.length - 1]!
/** The version of issue "Depth": memory, interrupts, dma and clocks, cross-checked sources, /v1/discrepancies, /v1/check. */
export const DEPTH_VERSION: ContractVersion = '2026-12-01'

/** The topics a version offers: accepted by its topic parameters, listed by resolve, coverage, catalog and sources. */
export const VERSION_TOPICS: Readonly<Record<ContractVersion, readonly Topic[]>> = { '2026-08-26': TOPICS, '2026-12-01': ALL_TOPICS }

export const isContractVersion = (v: unknown): v is ContractVersion => (CONTRACT_VERSIONS as readonly unknown[]).includes(v)

/** Whether `v` has what version `since` added (dated versions order as strings). */
export const reaches = (v: ContractVersion, since: ContractVersion): boolean => v >= since
