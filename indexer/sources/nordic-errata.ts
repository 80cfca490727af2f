/**
 * Nordic errata adapter: the MDK errata headers (`nrf52_erratas.h`, `nrf53_erratas.h`,
 * `nrf91_erratas.h`) say which erratum applies to which device and silicon revision; the nrfx
 * errata matrix (`errata.dox`) says how the workaround is handled. Together they give the
 * `errata` topic.
 *
 * How a header is read. Every `static inline bool nrfNN_errata_N(void)` is C code guarded by
 * preprocessor conditionals on device macros (`NRF52832_XXAA`, ...) and, for nRF5340, on the core
 * (`NRF_APPLICATION` / `NRF_NETWORK`). Rather than pattern-matching the text, the adapter runs
 * a tiny preprocessor over the function once per build configuration (one device variant, one
 * core, TrustZone secure and non-secure) and then interprets the few C statement shapes the
 * headers use (`var1`/`var2` reads, `if (var1 == <part code>)`, `switch (var2)` over revision
 * codes, `return true|false;`). Which `#if defined(...)` block wraps an `if (var1 == ...)` is
 * therefore what ties a part code to a device, exactly as the compiler would see it.
 * Anything outside that small grammar (an unknown macro, a statement, a switch on another
 * variable, a read of an unexpected register) makes the whole function a ParseProblem: the
 * adapter never guesses a fact.
 *
 * Models. A fact's device is a model: the variant macro without its `_XXAA`-style suffix
 * (`NRF52832_XXAA` and `NRF52832_XXAB` are both `NRF52832`, part code 0x06). The nRF5340 runs
 * the same silicon with two cores that read different FICRs and have different errata, so
 * the header's core macro becomes part of the model: `NRF5340_APPLICATION`, `NRF5340_NETWORK`.
 * Variants of one model must evaluate identically, otherwise the function is a ParseProblem.
 *
 * Stages: read (nordic-errata/matrix.ts, preprocess.ts, code.ts) → resolve (header.ts) → emit (here).
 */
import type { DocumentTarget, Evidence, FactDraft, ParseProblem } from '../../src/model/fact.js'
import { SourceLines } from './evidence.js'
import type { LoadedArtifact, SourceAdapter } from './types.js'
import { parseHeader, type HeaderResult, type ModelInfo, type Outcome } from './nordic-errata/header.js'
import { matrixEvidence, parseMatrix, type MatrixEntry } from './nordic-errata/matrix.js'
import type { NordicErrataOutput, NordicErrataStats } from './nordic-errata/types.js'

export type { ErrataHandling, ErrataRevision, NordicErrataOutput, NordicErrataStats } from './nordic-errata/types.js'

export const NORDIC_ERRATA_HEADER_KIND = 'nordic-mdk-errata-header'
export const NORDIC_ERRATA_MATRIX_KIND = 'nordic-nrfx-errata-matrix'

const EXCERPT_MAX = 240

export const nordicErrataAdapter: SourceAdapter = {
  name: 'nordic-errata',
  // 2: target identity; SVD address evidence and array dims; PINREMAP signals; nrf54h headers.
  // 3: every NRF…_XX<vv> macro a header tests is a device (NRF54LM20A_XXAA, NRF7120_ENGA_XXAA).
  version: '3',
  kinds: [NORDIC_ERRATA_HEADER_KIND, NORDIC_ERRATA_MATRIX_KIND],
  parse(artifacts) {
    return parseNordicErrata(artifacts).result
  }
}

// ---------------------------------------------------------------------------------------------
// Entry point

export function parseNordicErrata(artifacts: readonly LoadedArtifact[]): NordicErrataOutput {
  const problems: ParseProblem[] = []
  const stats: NordicErrataStats = {
    functions: 0,
    configurationFunctions: 0,
    neverApplies: 0,
    functionsWithoutFacts: [],
    presentMismatches: [],
    modelsWithoutFacts: [],
    matrixRows: 0,
    matrixDuplicateRows: 0,
    matrixRowsWithoutFact: []
  }

  // The matrix first: header facts embed its rows.
  const matrix = new Map<string, MatrixEntry>()
  let haveMatrix = false
  for (const a of artifacts) {
    if (a.kind !== NORDIC_ERRATA_MATRIX_KIND) continue
    // Only a matrix that could be read lets "no row" mean "not in the matrix".
    if (parseMatrix(a, matrix, problems, stats)) haveMatrix = true
  }

  const headers: HeaderResult[] = []
  for (const a of artifacts) {
    if (a.kind === NORDIC_ERRATA_MATRIX_KIND) continue
    if (a.kind !== NORDIC_ERRATA_HEADER_KIND) {
      problems.push({ file: a.path, reason: `not a Nordic errata artifact kind: ${a.kind}` })
      continue
    }
    headers.push(parseHeader(a, problems, stats))
  }

  const targets: DocumentTarget[] = []
  const facts: FactDraft[] = []
  const targetKeys = new Set<string>()
  const usedMatrixKeys = new Set<string>()

  for (const h of headers) {
    const sl = new SourceLines(h.text)
    for (const [model, info] of [...h.models].sort(([a], [b]) => a.localeCompare(b))) {
      const key = `nordic-errata:${model}`
      const modelFacts = h.outcomes.filter((o) => o.model === model)
      if (modelFacts.length === 0) {
        stats.modelsWithoutFacts.push(model)
        continue
      }
      if (targetKeys.has(key)) {
        problems.push({ file: h.artifact.path, reason: `${model} is already described by another errata header; skipped` })
        continue
      }
      targetKeys.add(key)
      targets.push(modelTarget(h, key, model, info, modelFacts))
      const names = new Set<number>()
      for (const o of modelFacts) {
        // An erratum and a configuration function with one number would collide on the name.
        if (names.has(o.number)) {
          problems.push({ file: h.artifact.path, line: o.defLine, reason: `${o.fn}(): errata.${o.number} already given for ${model} by another function; skipped` })
          continue
        }
        names.add(o.number)
        const mkey = `${o.seriesKey}:${o.number}`
        const entry = matrix.get(mkey)
        if (entry) usedMatrixKeys.add(mkey)
        facts.push(erratumFact(o, { h, sl, key, model, info }, entry, haveMatrix))
      }
    }
  }

  for (const [mkey, entry] of matrix) {
    if (!usedMatrixKeys.has(mkey)) stats.matrixRowsWithoutFact.push(`${entry.series}:${entry.number}`)
  }

  return { result: { targets, facts, parts: [], problems }, stats }
}

/** The errata target of one model of a header: its variants and part codes as the facts give them. */
function modelTarget(h: HeaderResult, key: string, model: string, info: ModelInfo, modelFacts: Outcome[]): DocumentTarget {
  const variants = info.variants.filter((v) => modelFacts.some((f) => f.variants.includes(v)))
  const partCodes = [...new Set(modelFacts.map((f) => f.partCode).filter((c): c is string => c !== null))]
  const core = info.core === null ? '' : ` (${info.core.toLowerCase()} core, ${info.coreMacro})`
  return {
    key,
    topics: ['errata'],
    device: model,
    sourceSha256: h.artifact.sha256,
    sourcePath: h.artifact.path,
    description: `Nordic MDK errata for ${model}${core}: variants ${variants.join(', ')}` + (partCodes.length > 0 ? `; part code ${partCodes.join(', ')}` : ''),
    identity: { vendor: 'Nordic Semiconductor', series: modelFacts[0]!.series, variants, ...(info.core ? { core: info.core.toLowerCase() } : {}) }
  }
}

/** One erratum of a model: the header function's outcome, with the matrix's rows when it has them. */
function erratumFact(o: Outcome, m: { h: HeaderResult; sl: SourceLines; key: string; model: string; info: ModelInfo }, entry: MatrixEntry | undefined, haveMatrix: boolean): FactDraft {
  const { h, sl, key, model, info } = m
  const evidence: Evidence[] = [
    {
      sourceSha256: h.artifact.sha256,
      sourcePath: h.artifact.path,
      locator: `line ${o.evidenceStart}: ${o.fn}()` + (o.evidenceStart === o.defLine ? '' : ` › ${sl.line(o.evidenceStart).trim()}`),
      excerpt: compactExcerpt(sl, o.evidenceStart, o.evidenceEnd)
    }
  ]
  if (entry) evidence.push(matrixEvidence(entry))
  const value: Record<string, unknown> = {
    number: o.number,
    series: o.series,
    device: model,
    kind: o.kind,
    function: o.fn,
    partCode: o.partCode,
    variants: o.variants,
    revisions: o.revisions,
    appliesToUnlistedRevisions: o.unlisted
  }
  // Without a matrix artifact "no rows" would be a claim we cannot make, so leave it out.
  if (haveMatrix) value.handling = entry ? entry.rows.map((r) => r.handling) : []
  // The matrix legend: "MDK" = implemented in MDK; every other handling is outside MDK.
  if (entry) value.workaroundInMdk = entry.rows.some((r) => r.handling.handling.split('/').some((x) => x.trim() === 'MDK'))
  if (o.workaroundEnabledByDefault !== undefined) value.workaroundEnabledByDefault = o.workaroundEnabledByDefault
  const scope: FactDraft['scope'] = {
    device: model,
    siliconRevisions: o.revisions.filter((r) => r.applies).map((r) => r.code)
  }
  if (o.variants.length < info.variants.length) scope.parts = [...o.variants]
  return { target: key, topic: 'errata', name: `errata.${o.number}`, value, scope, evidence }
}

/** The lines start..end with brace-only lines left out, so a whole switch fits the excerpt limit. */
function compactExcerpt(sl: SourceLines, start: number, end: number): string {
  const parts: string[] = []
  let len = 0
  for (let l = start; l <= end && len < EXCERPT_MAX; l++) {
    const s = sl.line(l).trim()
    if (s === '' || s === '{' || s === '}') continue
    parts.push(s)
    len += s.length + 1
  }
  const joined = parts.join(' ').replace(/\s+/g, ' ')
  return joined.length > EXCERPT_MAX ? joined.slice(0, EXCERPT_MAX - 1) + '…' : joined
}
