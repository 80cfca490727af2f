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
 */
import type { DocumentTarget, Evidence, FactDraft, ParseProblem } from '../../src/model/fact.js'
import { SourceLines } from './evidence.js'
import type { AdapterResult, LoadedArtifact, SourceAdapter } from './types.js'

export const NORDIC_ERRATA_HEADER_KIND = 'nordic-mdk-errata-header'
export const NORDIC_ERRATA_MATRIX_KIND = 'nordic-nrfx-errata-matrix'

const EXCERPT_MAX = 240

/** Core macros of multi-core devices, and the model suffix each one gives. */
const CORE_MACROS: Readonly<Record<string, string>> = {
  NRF_APPLICATION: 'APPLICATION',
  NRF_NETWORK: 'NETWORK'
}
/** Build-variant macros: `NRF52832_XXAA`, `NRF5340_XXAA`, and series with letters, `NRF54H20_XXAA`. */
const VARIANT_RE = /\bNRF\d{2}[A-Z]?\d{2,3}_XX[A-Z]{2}\b/g
const VARIANT_ONE = /^NRF\d{2}[A-Z]?\d{2,3}_XX[A-Z]{2}$/

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

export const nordicErrataAdapter: SourceAdapter = {
  name: 'nordic-errata',
  // 2: target identity; SVD address evidence and array dims; PINREMAP signals; nrf54h headers.
  version: '2',
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
      const variants = info.variants.filter((v) => modelFacts.some((f) => f.variants.includes(v)))
      const partCodes = [...new Set(modelFacts.map((f) => f.partCode).filter((c): c is string => c !== null))]
      const core = info.core === null ? '' : ` (${info.core.toLowerCase()} core, ${info.coreMacro})`
      targets.push({
        key,
        topics: ['errata'],
        device: model,
        sourceSha256: h.artifact.sha256,
        sourcePath: h.artifact.path,
        description:
          `Nordic MDK errata for ${model}${core}: variants ${variants.join(', ')}` +
          (partCodes.length > 0 ? `; part code ${partCodes.join(', ')}` : ''),
        identity: { vendor: 'Nordic Semiconductor', series: modelFacts[0]!.series, variants, ...(info.core ? { core: info.core.toLowerCase() } : {}) }
      })

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
        if (entry) value.workaroundInMdk = entry.rows.some((r) => r.handling.handling.split('/').some((h) => h.trim() === 'MDK'))
        if (o.workaroundEnabledByDefault !== undefined) value.workaroundEnabledByDefault = o.workaroundEnabledByDefault
        const scope: FactDraft['scope'] = {
          device: model,
          siliconRevisions: o.revisions.filter((r) => r.applies).map((r) => r.code)
        }
        if (o.variants.length < info.variants.length) scope.parts = [...o.variants]
        facts.push({ target: key, topic: 'errata', name: `errata.${o.number}`, value, scope, evidence })
      }
    }
  }

  for (const [mkey, entry] of matrix) {
    if (!usedMatrixKeys.has(mkey)) stats.matrixRowsWithoutFact.push(`${entry.series}:${entry.number}`)
  }

  return { result: { targets, facts, parts: [], problems }, stats }
}

// ---------------------------------------------------------------------------------------------
// errata.dox (nrfx errata matrix)

interface MatrixEntry {
  series: string
  number: number
  rows: { line: number; handling: ErrataHandling }[]
  text: SourceLines
  artifact: LoadedArtifact
}

const MATRIX_COLUMNS = ['series', 'erratum', 'handling', 'affected module', 'affected function(s)', 'comment']

function parseMatrix(a: LoadedArtifact, out: Map<string, MatrixEntry>, problems: ParseProblem[], stats: NordicErrataStats): boolean {
  const text = a.content.toString('utf8')
  const sl = new SourceLines(text)
  const lines = text.split(/\r?\n/)
  const headerIdx = lines.findIndex((l) => /^\s*\|\s*Series\s*\|/i.test(l))
  if (headerIdx === -1) {
    problems.push({ file: a.path, reason: 'no errata matrix table (| Series | Erratum | ... |) found' })
    return false
  }
  const header = splitRow(lines[headerIdx] ?? '').map((c) => c.toLowerCase())
  // The column meanings are taken from the header; a different layout is not guessed at.
  if (header.length !== MATRIX_COLUMNS.length || header.some((c, i) => c !== MATRIX_COLUMNS[i])) {
    problems.push({ file: a.path, line: headerIdx + 1, reason: `unexpected matrix columns: ${header.join(' | ')}` })
    return false
  }
  for (let i = headerIdx + 1; i < lines.length; i++) {
    const raw = lines[i] ?? ''
    if (!raw.trim().startsWith('|')) break
    if (/^\s*\|[\s:|-]*\|\s*$/.test(raw)) continue // the |:---:|...| separator
    const lineNo = i + 1
    const cells = splitRow(raw)
    if (cells.length !== MATRIX_COLUMNS.length) {
      problems.push({ file: a.path, line: lineNo, reason: `matrix row has ${cells.length} cells, expected ${MATRIX_COLUMNS.length}` })
      continue
    }
    const [series, num, handling, module, functions, comment] = cells as [string, string, string, string, string, string]
    if (!/^NRF\w+$/.test(series) || !/^\d+$/.test(num)) {
      problems.push({ file: a.path, line: lineNo, reason: `matrix row without a series/erratum number: ${raw.trim()}` })
      continue
    }
    stats.matrixRows++
    const row: ErrataHandling = {
      handling: cleanDoc(handling),
      module: cleanDoc(module) || null,
      functions: splitFunctions(functions),
      comment: cleanDoc(comment) || null
    }
    const key = `${series}:${Number(num)}`
    let entry = out.get(key)
    if (!entry) {
      entry = { series, number: Number(num), rows: [], text: sl, artifact: a }
      out.set(key, entry)
    }
    if (entry.rows.some((r) => JSON.stringify(r.handling) === JSON.stringify(row))) {
      stats.matrixDuplicateRows++
      continue
    }
    entry.rows.push({ line: lineNo, handling: row })
  }
  return true
}

function splitRow(line: string): string[] {
  const t = line.trim().replace(/^\|/, '').replace(/\|$/, '')
  return t.split('|').map((c) => c.trim())
}

/** Doxygen/markdown to plain text: `**driver**` → driver, `@ref x` → x, `@tagRedCross` → to be implemented. */
function cleanDoc(s: string): string {
  return s
    .replace(/@tagRedCross(NoCenter)?\b/g, 'to be implemented')
    .replace(/@ref\s+/g, '')
    .replace(/\*\*(.+?)\*\*/g, '$1')
    .replace(/\s+/g, ' ')
    .trim()
}

/** `@ref a @ref b` → [a, b]; a cell that is not a plain list of identifiers stays one entry. */
function splitFunctions(cell: string): string[] {
  const cleaned = cleanDoc(cell)
  if (cleaned === '') return []
  const parts = cleaned.split(' ')
  return parts.every((p) => /^[A-Za-z_]\w*(\(\))?$/.test(p)) ? parts : [cleaned]
}

function matrixEvidence(e: MatrixEntry): Evidence {
  const lines = e.rows.map((r) => r.line)
  const first = lines[0] ?? 1
  // Rows of one erratum are adjacent in practice; quote the adjacent run from the first row.
  let run = 1
  while (lines[run] === first + run) run++
  const where = lines.length === 1 ? `line ${first}` : run === lines.length ? `lines ${first}-${first + run - 1}` : `lines ${lines.join(', ')}`
  return {
    sourceSha256: e.artifact.sha256,
    sourcePath: e.artifact.path,
    locator: `${where}: | ${e.series} | ${e.number} | …`,
    excerpt: e.text.excerpt(first, run)
  }
}

// ---------------------------------------------------------------------------------------------
// MDK errata headers

interface ModelInfo {
  variants: string[]
  core: string | null
  coreMacro: string | null
}

interface Outcome {
  fn: string
  kind: 'erratum' | 'configuration'
  number: number
  series: string
  seriesKey: string
  model: string
  variants: string[]
  partCode: string | null
  revisions: ErrataRevision[]
  unlisted: boolean
  workaroundEnabledByDefault?: boolean
  defLine: number
  evidenceStart: number
  evidenceEnd: number
}

interface HeaderResult {
  artifact: LoadedArtifact
  text: string
  models: Map<string, ModelInfo>
  outcomes: Outcome[]
}

interface Config {
  variant: string
  core: string | null // macro name, e.g. NRF_APPLICATION
  nonsecure: boolean
  model: string
}

/** A problem inside one function: carries the line so the ParseProblem can point at it. */
class ShapeError extends Error {
  constructor(
    readonly line: number,
    reason: string
  ) {
    super(reason)
  }
}

const FN_DEF_RE = /^static inline bool (nrf\d+[a-z]*)_(errata|configuration)_(\d+)\(void\)\s*$/
const FN_PROTO_RE = /^static inline bool (nrf\d+[a-z]*_(?:errata|configuration)_\d+)\(void\);\s*$/
const BANNER_RE = /^\/\*\s*=+.*=+\s*\*\/\s*$/

function parseHeader(a: LoadedArtifact, problems: ParseProblem[], stats: NordicErrataStats): HeaderResult {
  const text = a.content.toString('utf8')
  const lines = text.split(/\r?\n/)
  const result: HeaderResult = { artifact: a, text, models: new Map(), outcomes: [] }

  // Build configurations: every variant macro the file names, times every core it names (the
  // headers name cores only in nrf53_erratas.h, whose only device is the two-core nRF5340).
  const variants = [...new Set(text.match(VARIANT_RE) ?? [])].sort()
  const cores = Object.keys(CORE_MACROS).filter((m) => new RegExp(`\\b${m}\\b`).test(text))
  const configs: Config[] = []
  for (const variant of variants) {
    for (const core of cores.length > 0 ? cores : [null]) {
      const model = variant.replace(/_XX[A-Z]{2}$/, '') + (core === null ? '' : `_${CORE_MACROS[core]}`)
      let info = result.models.get(model)
      if (!info) {
        info = { variants: [], core: core === null ? null : (CORE_MACROS[core] ?? null), coreMacro: core }
        result.models.set(model, info)
      }
      info.variants.push(variant)
      for (const nonsecure of [false, true]) configs.push({ variant, core, nonsecure, model })
    }
  }

  const registers = headerRegisters(text)
  const declared = new Set<string>()
  const defined = new Set<string>()
  let regionStart = 0 // first line (0-based) after the previous function
  let found = 0
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? ''
    const proto = FN_PROTO_RE.exec(line)
    if (proto) {
      declared.add(proto[1] ?? '')
      continue
    }
    const m = FN_DEF_RE.exec(line)
    if (!m) continue
    found++
    const prefix = m[1] ?? ''
    const kind = m[2] === 'configuration' ? 'configuration' : 'erratum'
    const number = Number(m[3])
    const fn = `${prefix}_${m[2]}_${m[3]}`
    defined.add(fn)
    const defLine = i + 1

    // Body: `{` on the next line, up to the first `}` in column 0.
    let open = i + 1
    while (open < lines.length && (lines[open] ?? '').trim() === '') open++
    let close = open + 1
    // A missing `}` must not swallow the next function: stop at the next definition.
    while (close < lines.length && !/^}\s*$/.test(lines[close] ?? '') && !FN_DEF_RE.test(lines[close] ?? '')) close++
    // The banner comment that opens this erratum's section starts its preamble (PRESENT macros).
    let bannerIdx = -1
    for (let j = i - 1; j >= regionStart; j--) {
      if (BANNER_RE.test(lines[j] ?? '')) {
        bannerIdx = j
        break
      }
    }
    if ((lines[open] ?? '').trim() !== '{' || close >= lines.length || !/^}\s*$/.test(lines[close] ?? '')) {
      problems.push({ file: a.path, line: defLine, reason: `${fn}(): function body not delimited by '{' and a closing '}' in column 0` })
      regionStart = i + 1
      i = close - 1
      continue
    }
    regionStart = close + 1

    try {
      const outcomes = evaluateFunction({
        lines,
        bodyFrom: open + 1,
        bodyTo: close,
        preFrom: bannerIdx === -1 ? i : bannerIdx + 1,
        preTo: i,
        fn,
        kind,
        number,
        prefix,
        defLine,
        configs,
        registers,
        models: result.models,
        stats
      })
      result.outcomes.push(...outcomes)
      stats.functions++
      if (kind === 'configuration') stats.configurationFunctions++
      if (outcomes.length === 0) stats.functionsWithoutFacts.push(fn)
    } catch (e) {
      // Adapters never throw for bad input; anything unforeseen is reported against the function too.
      const line = e instanceof ShapeError ? e.line : defLine
      const reason = e instanceof ShapeError ? e.message : `unexpected error: ${e instanceof Error ? e.message : String(e)}`
      problems.push({ file: a.path, line, reason: `${fn}(): ${reason}` })
    }
    i = close
  }
  if (found === 0) problems.push({ file: a.path, reason: 'no nrfNN_errata_N() functions found' })
  for (const d of declared) {
    if (!defined.has(d)) problems.push({ file: a.path, reason: `${d}() is declared but never defined` })
  }
  return result
}

interface FunctionInput {
  lines: string[]
  bodyFrom: number
  bodyTo: number
  preFrom: number
  preTo: number
  fn: string
  kind: 'erratum' | 'configuration'
  number: number
  prefix: string
  defLine: number
  configs: Config[]
  registers: HeaderRegisters
  models: Map<string, ModelInfo>
  stats: NordicErrataStats
}

interface ConfigOutcome {
  cfg: Config
  analysis: Analysis
  present: boolean | undefined
  enabled: boolean | undefined
}

function evaluateFunction(inp: FunctionInput): Outcome[] {
  const seriesKey = inp.prefix.toUpperCase() // NRF52
  const series = 'n' + seriesKey.slice(1) // nRF52
  const body = logicalLines(inp.lines, inp.bodyFrom, inp.bodyTo)
  const pre = logicalLines(inp.lines, inp.preFrom, inp.preTo)
  // Macros the function's own text names, to tell "never applies" from "not concerned".
  const named = new Set(inp.lines.slice(inp.preFrom, inp.bodyTo).join('\n').match(/\b[A-Z_][A-Z0-9_]*\b/g) ?? [])
  const presentRe = new RegExp(`^${seriesKey}_(ERRATA|CONFIGURATION)_${inp.number}_PRESENT$`)

  const perConfig: ConfigOutcome[] = []
  // A configuration only matters through the macros this function names: every variant (or
  // core) it does not name answers "not defined" to all of them. Configurations that agree on
  // the named macros therefore preprocess identically, and are evaluated once.
  const memo = new Map<string, Omit<ConfigOutcome, 'cfg'>>()
  for (const cfg of inp.configs) {
    const sig = [
      named.has(cfg.variant) ? cfg.variant : '-',
      cfg.core !== null && named.has(cfg.core) ? cfg.core : '-',
      cfg.nonsecure && named.has('NRF_TRUSTZONE_NONSECURE')
    ].join('|')
    const known = memo.get(sig)
    if (known) {
      perConfig.push({ cfg, ...known })
      continue
    }
    const lookup = macroLookup(cfg, seriesKey)
    const code = preprocess(body, lookup).code
    const analysis = analyze(new CodeParser(tokenize(code), inp.defLine, inp.registers).parseBody(), inp.defLine)
    // Preamble: `#define NRF52_ERRATA_N_PRESENT 1|0` and the default of `..._ENABLE_WORKAROUND`.
    const defs = preprocess(pre, lookup).defines
    let present: boolean | undefined
    let enabled: boolean | undefined
    for (const [name, value] of defs) {
      if (presentRe.test(name)) present = value === '1' ? true : value === '0' ? false : undefined
    }
    for (const [name, value] of defs) {
      if (!/_(ENABLE_WORKAROUND|ENABLE)$/.test(name)) continue
      if (value === '0' || value === '1') enabled = value === '1'
      else if (presentRe.test(value)) enabled = present
    }
    memo.set(sig, { analysis, present, enabled })
    perConfig.push({ cfg, analysis, present, enabled })
  }

  const outcomes: Outcome[] = []
  for (const [model, info] of [...inp.models].sort(([a], [b]) => a.localeCompare(b))) {
    const rows = perConfig.filter((c) => c.cfg.model === model)
    // TrustZone only changes which FICR alias is read; the answer must not depend on it.
    for (const v of info.variants) {
      const [s, ns] = [rows.find((r) => r.cfg.variant === v && !r.cfg.nonsecure), rows.find((r) => r.cfg.variant === v && r.cfg.nonsecure)]
      if (s && ns && s.analysis !== ns.analysis && analysisKey(s.analysis) !== analysisKey(ns.analysis)) {
        throw new ShapeError(inp.defLine, `${v}: result differs between secure and non-secure builds`)
      }
    }
    const secure = rows.filter((r) => !r.cfg.nonsecure)
    const applying = secure.filter((r) => !r.analysis.never)
    for (const r of secure) {
      if (r.present !== undefined && r.present !== !r.analysis.never) {
        inp.stats.presentMismatches.push(
          `${inp.fn} ${r.cfg.variant}${r.cfg.core ? ` ${r.cfg.core}` : ''}: PRESENT=${r.present ? 1 : 0} but the function ${r.analysis.never ? 'never applies' : 'applies'}`
        )
      }
    }
    if (applying.length === 0) {
      // Count only models the function actually names; every other model is simply not concerned.
      if (info.variants.some((v) => named.has(v)) && (info.coreMacro === null || named.has(info.coreMacro))) inp.stats.neverApplies++
      continue
    }
    const first = applying[0] as ConfigOutcome
    for (const r of applying) {
      if (r.analysis !== first.analysis && analysisKey(r.analysis) !== analysisKey(first.analysis)) {
        throw new ShapeError(r.analysis.evidenceStart, `variants of ${model} differ (${first.cfg.variant} vs ${r.cfg.variant}); one fact per model cannot say that`)
      }
    }
    const a = first.analysis
    const outcome: Outcome = {
      fn: inp.fn,
      kind: inp.kind,
      number: inp.number,
      series,
      seriesKey,
      model,
      variants: applying.map((r) => r.cfg.variant),
      partCode: a.partCode,
      revisions: a.revisions,
      unlisted: a.unlisted,
      defLine: inp.defLine,
      evidenceStart: a.evidenceStart,
      evidenceEnd: a.evidenceEnd
    }
    if (first.enabled !== undefined) outcome.workaroundEnabledByDefault = first.enabled
    outcomes.push(outcome)
  }
  return outcomes
}

function analysisKey(a: Analysis): string {
  return JSON.stringify([a.partCode, a.revisions, a.unlisted, a.never, a.evidenceStart])
}

/** Which macros a configuration defines. An unknown macro is a shape we do not understand. */
function macroLookup(cfg: Config, seriesKey: string): Lookup {
  return (name, line) => {
    if (/^NRF\w*_SERIES$/.test(name)) {
      if (name === `${seriesKey}_SERIES`) return true
      throw new ShapeError(line, `refers to another series (${name})`)
    }
    if (VARIANT_ONE.test(name)) return name === cfg.variant
    // DEVELOP_IN_x lets another chip stand in for x during development: not a device of its own.
    if (/^DEVELOP_IN_NRF\w+$/.test(name)) return false
    if (name in CORE_MACROS) return name === cfg.core
    if (name === 'NRF_TRUSTZONE_NONSECURE') return cfg.nonsecure
    // `#ifndef ..._ENABLE_WORKAROUND`: the user's override; the header's default is wanted.
    if (/^NRF\d+[A-Z]*_(ERRATA|CONFIGURATION)_\d+_(ENABLE_WORKAROUND|ENABLE)$/.test(name)) return false
    throw new ShapeError(line, `unknown macro ${name} in a preprocessor condition`)
  }
}

// ---------------------------------------------------------------------------------------------
// Preprocessor (only what the headers use: #if/#ifdef/#ifndef/#elif/#else/#endif/#define)

type Lookup = (name: string, line: number) => boolean
/** A compiled `#if` condition; evaluated once per configuration. */
type Cond = (lookup: Lookup, line: number) => boolean

interface LogicalLine {
  line: number // 1-based physical line where it starts
  text: string
  directive?: { name: string; arg: string }
  /** Compiled condition of #if/#ifdef/#ifndef/#elif, filled on first use. */
  cond?: Cond
  /** Tokens of a code line, filled on first use. */
  toks?: Tok[]
}

/** Lines [from, to) (0-based), with `\`-continued directive lines joined. */
function logicalLines(lines: string[], from: number, to: number): LogicalLine[] {
  const out: LogicalLine[] = []
  for (let i = from; i < to; i++) {
    let text = (lines[i] ?? '').trim()
    const start = i + 1
    if (text.startsWith('#')) {
      while (text.endsWith('\\') && i + 1 < to) {
        i++
        text = text.slice(0, -1) + ' ' + (lines[i] ?? '').trim()
      }
      const m = /^#\s*(\w+)\s*(.*)$/.exec(text.replace(/\/\*.*?\*\//g, ' ').replace(/\/\/.*$/, '').trim())
      out.push({ line: start, text, directive: { name: m?.[1] ?? '', arg: (m?.[2] ?? '').trim() } })
    } else if (text !== '') {
      out.push({ line: start, text })
    }
  }
  return out
}

interface Preprocessed {
  code: LogicalLine[]
  defines: Map<string, string>
}

function preprocess(input: LogicalLine[], lookup: Lookup): Preprocessed {
  const code: LogicalLine[] = []
  const defines = new Map<string, string>()
  const stack: { parentActive: boolean; taken: boolean; sawElse: boolean; line: number }[] = []
  let active = true
  for (const l of input) {
    if (!l.directive) {
      if (active) code.push(l)
      continue
    }
    const { name, arg } = l.directive
    const top = stack[stack.length - 1]
    switch (name) {
      case 'if':
      case 'ifdef':
      case 'ifndef': {
        const v = conditionOf(l)(lookup, l.line)
        stack.push({ parentActive: active, taken: v, sawElse: false, line: l.line })
        active = active && v
        break
      }
      case 'elif': {
        if (!top || top.sawElse) throw new ShapeError(l.line, '#elif without a matching #if')
        const v = conditionOf(l)(lookup, l.line)
        active = top.parentActive && !top.taken && v
        top.taken = top.taken || v
        break
      }
      case 'else':
        if (!top || top.sawElse) throw new ShapeError(l.line, '#else without a matching #if')
        top.sawElse = true
        active = top.parentActive && !top.taken
        top.taken = true
        break
      case 'endif':
        if (!top) throw new ShapeError(l.line, '#endif without a matching #if')
        stack.pop()
        active = top.parentActive
        break
      case 'define': {
        const d = /^(\w+)(?:\s+(.*))?$/.exec(arg)
        if (!d) throw new ShapeError(l.line, `cannot read #define ${arg}`)
        if (active) defines.set(d[1] ?? '', (d[2] ?? '').trim())
        break
      }
      default:
        throw new ShapeError(l.line, `unsupported preprocessor directive #${name}`)
    }
  }
  const open = stack[stack.length - 1]
  if (open) throw new ShapeError(open.line, 'unterminated #if')
  return { code, defines }
}

function conditionOf(l: LogicalLine): Cond {
  if (l.cond) return l.cond
  const { name, arg } = l.directive ?? { name: '', arg: '' }
  if (name === 'ifdef' || name === 'ifndef') {
    if (!/^[A-Za-z_]\w*$/.test(arg)) throw new ShapeError(l.line, `cannot read #${name} ${arg}`)
    l.cond = compileCondition(`${name === 'ifndef' ? '!' : ''}defined(${arg})`, l.line)
  } else {
    l.cond = compileCondition(arg, l.line)
  }
  return l.cond
}

/** The same conditions recur thousands of times across the headers: compile each text once. */
const conditionCache = new Map<string, Cond>()

/** `defined (X) || defined(Y) && !defined Z`, parentheses and integer literals. */
function compileCondition(src: string, line: number): Cond {
  const cached = conditionCache.get(src)
  if (cached) return cached
  const toks = src.match(/\|\||&&|!|\(|\)|[A-Za-z_]\w*|\d+|\S/g) ?? []
  let i = 0
  const fail = (what: string): never => {
    throw new ShapeError(line, `cannot evaluate #if ${src}: ${what}`)
  }
  // Every operand is evaluated (no short-circuit) so that an unknown macro is always reported.
  const chain = (operand: () => Cond, op: string, combine: (vs: boolean[]) => boolean): Cond => {
    const parts = [operand()]
    while (toks[i] === op) {
      i++
      parts.push(operand())
    }
    const only = parts[0] as Cond
    return parts.length === 1 ? only : (lk, ln) => combine(parts.map((p) => p(lk, ln)))
  }
  const or = (): Cond => chain(and, '||', (vs) => vs.some(Boolean))
  const and = (): Cond => chain(unary, '&&', (vs) => vs.every(Boolean))
  const unary = (): Cond => {
    const t = toks[i++]
    if (t === undefined) return fail('unexpected end')
    if (t === '!') {
      const c = unary()
      return (lk, ln) => !c(lk, ln)
    }
    if (t === '(') {
      const c = or()
      if (toks[i++] !== ')') fail("missing ')'")
      return c
    }
    if (t === 'defined') {
      const paren = toks[i] === '('
      if (paren) i++
      const id = toks[i++]
      if (id === undefined || !/^[A-Za-z_]\w*$/.test(id)) return fail('defined() without a macro name')
      if (paren && toks[i++] !== ')') fail("missing ')' after defined(")
      return (lk, ln) => lk(id, ln)
    }
    if (/^\d+$/.test(t)) {
      const v = Number(t) !== 0
      return () => v
    }
    return fail(`unexpected '${t}'`)
  }
  const cond = or()
  if (i !== toks.length) fail(`unexpected '${toks[i]}'`)
  conditionCache.set(src, cond)
  return cond
}

// ---------------------------------------------------------------------------------------------
// The C subset of an erratum function body

interface Tok {
  t: string
  line: number
}

const TOKEN_RE = /\s+|\/\/.*$|\/\*.*?\*\/|(0[xX][0-9A-Fa-f]+[uUlL]*|\d+[uUlL]*|[A-Za-z_]\w*|==|>>|[(){};:*&+=,])/y

function tokenize(code: LogicalLine[]): Tok[] {
  const out: Tok[] = []
  for (const l of code) {
    l.toks ??= tokenizeLine(l)
    out.push(...l.toks)
  }
  return out
}

function tokenizeLine(l: LogicalLine): Tok[] {
  const out: Tok[] = []
  TOKEN_RE.lastIndex = 0
  while (TOKEN_RE.lastIndex < l.text.length) {
    const at = TOKEN_RE.lastIndex
    const m = TOKEN_RE.exec(l.text)
    if (!m) throw new ShapeError(l.line, `unexpected '${l.text.slice(at, at + 10)}'`)
    if (m[1] !== undefined) out.push({ t: m[1], line: l.line })
  }
  return out
}

type Stmt =
  | { k: 'return'; value: boolean; line: number; end: number }
  /** Declarations, reads of var1/var2, `__DSB();`, and if/else that only choose how to read them. */
  | { k: 'read'; line: number; end: number }
  | { k: 'part'; code: number; body: Stmt[]; line: number; end: number }
  | { k: 'switch'; cases: { code: number; value: boolean; line: number }[]; def: boolean | undefined; line: number; end: number }

const NUM_RE = /^(0[xX][0-9A-Fa-f]+|\d+)[uUlL]*$/
const KEYWORDS = new Set(['return', 'if', 'else', 'switch', 'case', 'default', 'break', 'while', 'for', 'goto'])

function parseNum(t: string): number {
  const m = NUM_RE.exec(t)
  return m ? Number(m[1]) : NaN
}

class CodeParser {
  private i = 0
  /** Inside the branches of an `if` that only chooses where var1/var2 are read from. */
  private fallback = 0

  constructor(
    private readonly toks: Tok[],
    private readonly defLine: number,
    private readonly registers: HeaderRegisters
  ) {}

  parseBody(): Stmt[] {
    const out = this.stmtList()
    if (this.i < this.toks.length) this.fail(`unexpected '${this.peek()?.t}'`)
    return out
  }

  private peek(): Tok | undefined {
    return this.toks[this.i]
  }

  private line(): number {
    return this.peek()?.line ?? this.toks[this.toks.length - 1]?.line ?? this.defLine
  }

  private fail(reason: string): never {
    throw new ShapeError(this.line(), reason)
  }

  private next(): Tok {
    const t = this.toks[this.i++]
    if (!t) throw new ShapeError(this.toks[this.toks.length - 1]?.line ?? this.defLine, 'unexpected end of function')
    return t
  }

  private expect(t: string): Tok {
    const got = this.peek()
    if (got?.t !== t) this.fail(`expected '${t}' but found '${got?.t ?? 'end of function'}'`)
    return this.next()
  }

  private stmtList(): Stmt[] {
    const out: Stmt[] = []
    while (this.peek() && this.peek()?.t !== '}') out.push(this.stmt())
    return out
  }

  private block(): { body: Stmt[]; end: number } {
    if (this.peek()?.t !== '{') {
      const s = this.stmt()
      return { body: [s], end: s.end }
    }
    this.next()
    const body = this.stmtList()
    return { body, end: this.expect('}').line }
  }

  private stmt(): Stmt {
    const tok = this.peek() as Tok
    switch (tok.t) {
      case 'return': {
        this.next()
        const v = this.next()
        if (v.t !== 'true' && v.t !== 'false') this.fail(`return of '${v.t}' instead of true/false`)
        return { k: 'return', value: v.t === 'true', line: tok.line, end: this.expect(';').line }
      }
      case 'uint32_t': {
        this.next()
        const name = this.next()
        if (this.peek()?.t === '=') {
          this.next()
          this.readExpr(name)
        } else {
          this.checkVar(name)
        }
        return { k: 'read', line: tok.line, end: this.expect(';').line }
      }
      case 'var1':
      case 'var2': {
        const name = this.next()
        this.expect('=')
        this.readExpr(name)
        return { k: 'read', line: tok.line, end: this.expect(';').line }
      }
      case '__DSB': {
        // A barrier before reading FICR: no effect on the answer.
        this.next()
        this.expect('(')
        this.expect(')')
        return { k: 'read', line: tok.line, end: this.expect(';').line }
      }
      case 'if':
        return this.ifStmt()
      case 'switch':
        return this.switchStmt()
      default:
        return this.fail(`statement starting with '${tok.t}' is not one of the known erratum shapes`)
    }
  }

  private checkVar(name: Tok): void {
    if (name.t !== 'var1' && name.t !== 'var2') throw new ShapeError(name.line, `unknown variable '${name.t}'`)
  }

  /**
   * The right-hand side of a var1/var2 read. var1 is the part code, var2 the revision: which
   * registers hold them is the header's own convention (FICR +0x130/+0x134 on nRF52/53/91,
   * 0x0FFFE000/0x0FFFE004 on nRF54H), read from the header by headerRegisters. A read of a
   * register the header does not otherwise use would make `if (var1 == ...)` mean something else.
   */
  private readExpr(name: Tok): void {
    this.checkVar(name)
    const text: string[] = []
    let depth = 0
    while (this.peek() && !(depth === 0 && this.peek()?.t === ';')) {
      const t = this.next()
      if (t.t === '{' || t.t === '}' || KEYWORDS.has(t.t)) throw new ShapeError(t.line, `unexpected '${t.t}' in the read of ${name.t}`)
      if (t.t === '(') depth++
      if (t.t === ')') depth--
      text.push(t.t)
    }
    const reg = registerOf(text.join(' '))
    const known = name.t === 'var1' ? this.registers.part : this.registers.revision
    // The nRF52832 engineering-sample fallback reads another register where the usual one is blank.
    if (reg === undefined || !(known.has(reg) || this.fallback > 0))
      throw new ShapeError(name.line, `cannot tell that ${name.t} reads the ${name.t === 'var1' ? 'part' : 'revision'} code: ${reg ?? 'no register'} is not a register this header reads it from elsewhere`)
  }

  private ifStmt(): Stmt {
    const start = this.next()
    this.expect('(')
    const cond: Tok[] = []
    let depth = 1
    for (;;) {
      const t = this.next()
      if (t.t === '(') depth++
      if (t.t === ')' && --depth === 0) break
      cond.push(t)
    }
    const [a, op, b] = cond
    const partTest = cond.length === 3 && a?.t === 'var1' && op?.t === '==' && b !== undefined && !Number.isNaN(parseNum(b.t))
    if (!partTest) this.fallback++
    const then = this.block()
    let end = then.end
    let other: Stmt[] = []
    if (this.peek()?.t === 'else') {
      this.next()
      const e = this.block()
      other = e.body
      end = e.end
    }
    if (!partTest) this.fallback--
    if (partTest && b) {
      if (other.length > 0) throw new ShapeError(start.line, 'if (var1 == ...) with an else branch')
      return { k: 'part', code: parseNum(b.t), body: then.body, line: start.line, end }
    }
    // Any other condition may only choose where var1/var2 are read from (the nRF52832
    // engineering-sample fallback), never decide the answer.
    if (![...then.body, ...other].every((s) => s.k === 'read')) {
      throw new ShapeError(start.line, `if (${cond.map((t) => t.t).join(' ')}) decides the answer; only if (var1 == <part code>) is understood`)
    }
    return { k: 'read', line: start.line, end }
  }

  private switchStmt(): Stmt {
    const start = this.next()
    this.expect('(')
    const v = this.next()
    if (v.t !== 'var2') throw new ShapeError(v.line, `switch on '${v.t}' instead of the revision code var2`)
    this.expect(')')
    this.expect('{')
    const cases: { code: number; value: boolean; line: number }[] = []
    let def: boolean | undefined
    let pending: { code: number; line: number }[] = []
    let pendingDefault = false
    while (this.peek()?.t !== '}') {
      const t = this.next()
      if (t.t === 'case') {
        const n = this.next()
        const code = parseNum(n.t)
        if (Number.isNaN(code)) throw new ShapeError(n.line, `case label '${n.t}' is not a number`)
        if (cases.some((c) => c.code === code) || pending.some((c) => c.code === code)) throw new ShapeError(n.line, `duplicate case ${n.t}`)
        this.expect(':')
        pending.push({ code, line: n.line })
      } else if (t.t === 'default') {
        if (def !== undefined || pendingDefault) throw new ShapeError(t.line, 'two default labels')
        this.expect(':')
        pendingDefault = true
      } else if (t.t === 'return') {
        // Labels directly followed by another label fall through to this return.
        this.i--
        const r = this.stmt()
        if (r.k !== 'return') throw new ShapeError(t.line, 'expected return')
        if (pending.length === 0 && !pendingDefault) throw new ShapeError(t.line, 'return without a case label')
        for (const p of pending) cases.push({ code: p.code, value: r.value, line: p.line })
        if (pendingDefault) def = r.value
        pending = []
        pendingDefault = false
      } else {
        throw new ShapeError(t.line, `'${t.t}' inside switch(var2): only case/default labels with return true/false are understood`)
      }
    }
    if (pending.length > 0 || pendingDefault) this.fail('case label without a return')
    const end = this.expect('}').line
    return { k: 'switch', cases, def, line: start.line, end }
  }
}

/** The registers a header reads var1 (part code) and var2 (revision) from. */
interface HeaderRegisters {
  part: ReadonlySet<string>
  revision: ReadonlySet<string>
}

/**
 * The register a read expression names: `NRF_FICR+0x130` for a FICR offset (secure or non-secure
 * alias alike), else the first address (`0x0FFFE000`); masks after it do not change the register.
 */
function registerOf(expr: string): string | undefined {
  const n = /0[xX][0-9a-fA-F]+|\b\d+/.exec(expr)
  if (!n) return undefined
  const addr = '0x' + parseNum(n[0].replace(/ul$/i, '')).toString(16).toUpperCase().padStart(8, '0')
  return /\bNRF_FICR\w*/.test(expr) ? `NRF_FICR+${addr}` : addr
}

/**
 * The header's part-code and revision registers: those its functions read var1 and var2 from
 * more than once (the convention every erratum follows); a register only one read names is an
 * outlier, unless it is the only one the header reads.
 */
function headerRegisters(text: string): HeaderRegisters {
  const counts = { var1: new Map<string, number>(), var2: new Map<string, number>() }
  for (const m of text.matchAll(/\b(var[12])\s*=\s*([^;]+);/g)) {
    const reg = registerOf(m[2]!)
    if (reg === undefined) continue
    const c = counts[m[1] as 'var1' | 'var2']
    c.set(reg, (c.get(reg) ?? 0) + 1)
  }
  const pick = (c: Map<string, number>) => new Set([...c].filter(([, n]) => n > 1 || c.size === 1).map(([r]) => r))
  return { part: pick(counts.var1), revision: pick(counts.var2) }
}

// ---------------------------------------------------------------------------------------------
// Evaluating the parsed body for one configuration

interface Analysis {
  never: boolean
  partCode: string | null
  revisions: ErrataRevision[]
  unlisted: boolean
  evidenceStart: number
  evidenceEnd: number
}

/** Runs the statements for concrete var1/var2; undefined = fell off the end. -1 matches no code. */
function exec(stmts: Stmt[], v1: number, v2: number): boolean | undefined {
  for (const s of stmts) {
    if (s.k === 'return') return s.value
    if (s.k === 'part' && s.code === v1) {
      const r = exec(s.body, v1, v2)
      if (r !== undefined) return r
    }
    if (s.k === 'switch') {
      const c = s.cases.find((x) => x.code === v2)
      if (c) return c.value
      if (s.def !== undefined) return s.def
    }
  }
  return undefined
}

function walk(stmts: Stmt[], visit: (s: Stmt) => void): void {
  for (const s of stmts) {
    visit(s)
    if (s.k === 'part') walk(s.body, visit)
  }
}

function hex2(n: number): string {
  return '0x' + n.toString(16).padStart(2, '0')
}

function analyze(stmts: Stmt[], defLine: number): Analysis {
  const parts: Extract<Stmt, { k: 'part' }>[] = []
  walk(stmts, (s) => {
    if (s.k === 'part') parts.push(s)
  })
  const p = parts[0]
  for (const q of parts) {
    if (q.code !== p?.code) throw new ShapeError(q.line, `one device build checks several part codes (${hex2(p?.code ?? 0)}, ${hex2(q.code)})`)
    if (q !== p) throw new ShapeError(q.line, `part code ${hex2(q.code)} is checked twice`)
  }
  const labels: number[] = []
  walk(p ? p.body : stmts, (s) => {
    if (s.k === 'switch') for (const c of s.cases) if (!labels.includes(c.code)) labels.push(c.code)
  })
  const lastLine = stmts[stmts.length - 1]?.end ?? defLine
  const run = (v1: number, v2: number): boolean => {
    const r = exec(stmts, v1, v2)
    if (r === undefined) throw new ShapeError(lastLine, 'can end without returning a value')
    return r
  }
  if (p) {
    // The part code must be what decides: for any other part code the erratum must not apply.
    for (const v2 of [...labels, -1]) {
      if (run(-1, v2)) throw new ShapeError(p.line, `also returns true for part codes other than ${hex2(p.code)}`)
    }
  }
  const v1 = p ? p.code : -1
  const revisions = labels.map((code) => ({ code: hex2(code), applies: run(v1, code) }))
  const unlisted = run(v1, -1)
  // Evidence: the `if (var1 == ...)` block, or else the first statement that decides.
  const decisive = p ?? stmts.find((s) => s.k !== 'read')
  return {
    never: !unlisted && revisions.every((r) => !r.applies),
    partCode: p ? hex2(p.code) : null,
    revisions,
    unlisted,
    evidenceStart: decisive?.line ?? defLine,
    evidenceEnd: decisive?.end ?? defLine
  }
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
