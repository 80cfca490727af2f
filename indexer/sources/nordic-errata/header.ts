/** Resolve stage: each header function evaluated per build configuration into one outcome per model. */
import type { ParseProblem } from '../../../src/model/fact.js'
import type { LoadedArtifact } from '../types.js'
import { CodeParser, headerRegisters, tokenize, type HeaderRegisters, type Stmt } from './code.js'
import { logicalLines, preprocess, type LogicalLine, type Lookup } from './preprocess.js'
import { CORE_MACROS, ShapeError, VARIANT_ONE, VARIANT_RE, type ErrataRevision, type NordicErrataStats } from './types.js'

// ---------------------------------------------------------------------------------------------
// MDK errata headers

export interface ModelInfo {
  variants: string[]
  core: string | null
  coreMacro: string | null
}

export interface Outcome {
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

export interface HeaderResult {
  artifact: LoadedArtifact
  text: string
  models: Map<string, ModelInfo>
  outcomes: Outcome[]
}

export interface Config {
  variant: string
  core: string | null // macro name, e.g. NRF_APPLICATION
  nonsecure: boolean
  model: string
}

export const FN_DEF_RE = /^static inline bool (nrf\d+[a-z]*)_(errata|configuration)_(\d+)\(void\)\s*$/
export const FN_PROTO_RE = /^static inline bool (nrf\d+[a-z]*_(?:errata|configuration)_\d+)\(void\);\s*$/
export const BANNER_RE = /^\/\*\s*=+.*=+\s*\*\/\s*$/

export function parseHeader(a: LoadedArtifact, problems: ParseProblem[], stats: NordicErrataStats): HeaderResult {
  const text = a.content.toString('utf8')
  const lines = text.split(/\r?\n/)
  const result: HeaderResult = { artifact: a, text, models: new Map(), outcomes: [] }

  const configs = buildConfigs(text, result.models)

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

    const { open, close, bannerIdx } = functionBounds(lines, i, regionStart)
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

/**
 * Build configurations: every variant macro the file names, times every core it names (the
 * headers name cores only in nrf53_erratas.h, whose only device is the two-core nRF5340), secure
 * and not; each variant's model (and core) recorded in `models`.
 */
function buildConfigs(text: string, models: Map<string, ModelInfo>): Config[] {
  const variants = [...new Set(text.match(VARIANT_RE) ?? [])].sort()
  const cores = Object.keys(CORE_MACROS).filter((m) => new RegExp(`\\b${m}\\b`).test(text))
  const configs: Config[] = []
  for (const variant of variants) {
    for (const core of cores.length > 0 ? cores : [null]) {
      const model = variant.replace(/_XX[A-Z]{2}$/, '') + (core === null ? '' : `_${CORE_MACROS[core]}`)
      let info = models.get(model)
      if (!info) {
        info = { variants: [], core: core === null ? null : (CORE_MACROS[core] ?? null), coreMacro: core }
        models.set(model, info)
      }
      info.variants.push(variant)
      for (const nonsecure of [false, true]) configs.push({ variant, core, nonsecure, model })
    }
  }
  return configs
}

/**
 * Where the function defined at line i is: its body from `{` on the next line to the first `}` in
 * column 0 (a missing `}` stops at the next definition rather than swallow it), and the banner
 * comment that opens its section and starts its preamble (PRESENT macros), -1 when none since regionStart.
 */
function functionBounds(lines: string[], i: number, regionStart: number): { open: number; close: number; bannerIdx: number } {
  let open = i + 1
  while (open < lines.length && (lines[open] ?? '').trim() === '') open++
  let close = open + 1
  while (close < lines.length && !/^}\s*$/.test(lines[close] ?? '') && !FN_DEF_RE.test(lines[close] ?? '')) close++
  let bannerIdx = -1
  for (let j = i - 1; j >= regionStart; j--) {
    if (BANNER_RE.test(lines[j] ?? '')) {
      bannerIdx = j
      break
    }
  }
  return { open, close, bannerIdx }
}

export interface FunctionInput {
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

export interface ConfigOutcome {
  cfg: Config
  analysis: Analysis
  present: boolean | undefined
  enabled: boolean | undefined
}

export function evaluateFunction(inp: FunctionInput): Outcome[] {
  const seriesKey = inp.prefix.toUpperCase() // NRF52
  const series = 'n' + seriesKey.slice(1) // nRF52
  // Macros the function's own text names, to tell "never applies" from "not concerned".
  const named = new Set(inp.lines.slice(inp.preFrom, inp.bodyTo).join('\n').match(/\b[A-Z_][A-Z0-9_]*\b/g) ?? [])
  const perConfig = evaluateConfigs(inp, seriesKey, named)
  const outcomes: Outcome[] = []
  for (const [model, info] of [...inp.models].sort(([a], [b]) => a.localeCompare(b))) {
    const outcome = modelOutcome(inp, model, info, perConfig, named, series, seriesKey)
    if (outcome) outcomes.push(outcome)
  }
  return outcomes
}

/** The function evaluated under every build configuration, in `inp.configs` order. */
function evaluateConfigs(inp: FunctionInput, seriesKey: string, named: ReadonlySet<string>): ConfigOutcome[] {
  const body = logicalLines(inp.lines, inp.bodyFrom, inp.bodyTo)
  const pre = logicalLines(inp.lines, inp.preFrom, inp.preTo)
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
    const evaluated = evaluateConfig(inp, macroLookup(cfg, seriesKey), body, pre, presentRe)
    memo.set(sig, evaluated)
    perConfig.push({ cfg, ...evaluated })
  }
  return perConfig
}

/** The function's body and preamble preprocessed under one configuration's macros. */
function evaluateConfig(inp: FunctionInput, lookup: Lookup, body: LogicalLine[], pre: LogicalLine[], presentRe: RegExp): Omit<ConfigOutcome, 'cfg'> {
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
  return { analysis, present, enabled }
}

/**
 * One model's outcome: its secure configurations where the function applies, which must all
 * answer alike; undefined where it never applies (counted when the function names the model).
 */
function modelOutcome(
  inp: FunctionInput,
  model: string,
  info: ModelInfo,
  perConfig: ConfigOutcome[],
  named: ReadonlySet<string>,
  series: string,
  seriesKey: string
): Outcome | undefined {
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
    return undefined
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
  return outcome
}

export function analysisKey(a: Analysis): string {
  return JSON.stringify([a.partCode, a.revisions, a.unlisted, a.never, a.evidenceStart])
}

/** Which macros a configuration defines. An unknown macro is a shape we do not understand. */
export function macroLookup(cfg: Config, seriesKey: string): Lookup {
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
// Evaluating the parsed body for one configuration

export interface Analysis {
  never: boolean
  partCode: string | null
  revisions: ErrataRevision[]
  unlisted: boolean
  evidenceStart: number
  evidenceEnd: number
}

/** Runs the statements for concrete var1/var2; undefined = fell off the end. -1 matches no code. */
export function exec(stmts: Stmt[], v1: number, v2: number): boolean | undefined {
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

export function walk(stmts: Stmt[], visit: (s: Stmt) => void): void {
  for (const s of stmts) {
    visit(s)
    if (s.k === 'part') walk(s.body, visit)
  }
}

export function hex2(n: number): string {
  return '0x' + n.toString(16).padStart(2, '0')
}

export function analyze(stmts: Stmt[], defLine: number): Analysis {
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
