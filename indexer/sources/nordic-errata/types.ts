import type { AdapterResult } from '../types.js'

/** Shapes shared by the stages of the Nordic errata adapter. */

/** Core macros of multi-core devices, and the model suffix each one gives. */
export const CORE_MACROS: Readonly<Record<string, string>> = {
  NRF_APPLICATION: 'APPLICATION',
  NRF_NETWORK: 'NETWORK'
}
/**
 * Build-variant macros, `NRF<series digits><name>_XX<vv>`: `NRF52832_XXAA`, `NRF5340_XXAA`,
 * `NRF54H20_XXAA`, `NRF54LM20A_XXAA`, `NRF9230_ENGB_XXAA`. Every one a header tests is a device
 * of that header: a new name must not make its errata an unknown macro for every device.
 */
const VARIANT = 'NRF\\d{2}[A-Z0-9]*(?:_[A-Z0-9]+)*?_XX[A-Z]{2}'
export const VARIANT_RE = new RegExp(`\\b${VARIANT}\\b`, 'g')
export const VARIANT_ONE = new RegExp(`^${VARIANT}$`)

/** One row of the nrfx errata matrix, cleaned from markdown/doxygen. */
export interface ErrataHandling {
  handling: string
  module: string | null
  functions: string[]
  comment: string | null
}

export interface ErrataRevision {
  code: string
  applies: boolean
}

/** Things about the sources that are not facts and not problems, for the indexing report. */
export interface NordicErrataStats {
  /** Erratum (and configuration) functions interpreted without a problem. */
  functions: number
  /** `nrf52_configuration_N()` functions: the MDK names these "configuration", nrfx lists them as errata. */
  configurationFunctions: number
  /** (function, model) pairs where the function names the model but never applies to it. */
  neverApplies: number
  /** Functions that apply to no model at all (e.g. a stub that always returns false). */
  functionsWithoutFacts: string[]
  /** Where the `..._PRESENT` macro disagrees with what the function body evaluates to. */
  presentMismatches: string[]
  /** Models the headers name that got no fact at all. */
  modelsWithoutFacts: string[]
  matrixRows: number
  /** Rows that repeat an earlier row of the same erratum exactly (kept once). */
  matrixDuplicateRows: number
  /** Matrix rows (series:number) for which no fact exists, e.g. series without a header. */
  matrixRowsWithoutFact: string[]
}

export interface NordicErrataOutput {
  result: AdapterResult
  stats: NordicErrataStats
}

/** A problem inside one function: carries the line so the ParseProblem can point at it. */
export class ShapeError extends Error {
  constructor(
    readonly line: number,
    reason: string
  ) {
    super(reason)
  }
}
