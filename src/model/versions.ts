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

/** The topics a version offers: accepted by its topic parameters, listed by resolve, coverage, catalog and sources. */
export const VERSION_TOPICS: Readonly<Record<ContractVersion, readonly Topic[]>> = { '2026-08-26': TOPICS, '2026-12-01': ALL_TOPICS }

export const isContractVersion = (v: unknown): v is ContractVersion => (CONTRACT_VERSIONS as readonly unknown[]).includes(v)

/** Whether `v` has what version `since` added (dated versions order as strings). */
export const reaches = (v: ContractVersion, since: ContractVersion): boolean => v >= since

/**
 * Schema keyword of the members a later version adds: `{ name: version }` on an object (its
 * properties) or an enum (its values). src/schemas/components.ts `forVersion` drops them from an
 * earlier version's schema; runtime schemas keep every member, so they serve every version.
 */
export const SINCE = 'x-since'
/** Schema keyword of a string that is the contract version in use: `enum: [v]` in version v's document. */
export const CONTRACT_VERSION_KEYWORD = 'x-contract-version'
/** Both markers, as annotation keywords for a validator that refuses unknown ones (Ajv's strict mode). */
export const VERSION_KEYWORDS = [SINCE, CONTRACT_VERSION_KEYWORD]

/** `x-since` of a list of names: the first version of each one an earlier version lacks. */
function since(names: readonly string[], offers: (v: ContractVersion, name: string) => boolean): Record<string, ContractVersion> {
  const out: Record<string, ContractVersion> = {}
  for (const n of names) {
    const first = CONTRACT_VERSIONS.find((v) => offers(v, n))!
    if (first !== SEED_VERSION) out[n] = first
  }
  return out
}

export const TOPICS_SINCE = since(ALL_TOPICS, (v, t) => VERSION_TOPICS[v].includes(t as Topic))
export const VERSIONS_SINCE = since(CONTRACT_VERSIONS, (v, name) => v === name)
