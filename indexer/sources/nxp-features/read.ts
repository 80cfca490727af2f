/**
 * Read stage of an NXP MCUXpresso SDK feature header (`MKL25Z4_features.h`): only the
 * preprocessor structure these files use. `#define NAME value` lines with the comment right above
 * them, and the conditionals around them: the include guard (`#ifndef X` + `#define X`), chains of
 * `#if defined(CPU_…) || …` / `#elif` / `#else` / `#endif` that say which parts a block of
 * macros applies to, and any other condition (`#ifdef __ZEPHYR__`), which says nothing about parts.
 * Nothing is evaluated beyond that; what this grammar does not cover is a problem with its line.
 */
import type { ParseProblem } from '../../../src/model/fact.js'

/** A block the macros below it are inside of. */
export type Frame =
  /** `#if`/`#elif defined(CPU_A) || …`: the parts (without `CPU_`) the block applies to. */
  | { kind: 'parts'; line: number; parts: string[] }
  /** `#else` of a parts chain: every part of the file the chain's branches did not name. */
  | { kind: 'else'; line: number; excluded: string[] }
  /** Any other condition, or one that could not be read: the block is not tied to parts. */
  | { kind: 'other'; line: number; condition: string }

export interface Comment {
  /** As written, delimiters included (commentText gives its text: read only for the few macros used). */
  body: string
  line: number
}

export interface Define {
  name: string
  /** A function-like macro's parameter list, e.g. `(x)`. */
  params?: string
  /** The replacement text, comments removed, continuation lines joined. */
  value: string
  line: number
  endLine: number
  /** The comment that ends right above the define. */
  comment?: Comment
  /** Enclosing blocks, outermost first (the include guard left out). */
  frames: Frame[]
}

export interface FeaturesHeader {
  /** Every `CPU_` part a condition names, without the prefix, with the line it is first named on. */
  parts: Map<string, number>
  defines: Define[]
  /** False when a condition naming parts could not be read: `parts` may then miss some. */
  allPartsKnown: boolean
}

interface OpenChain {
  /** The frame of the current branch; null for the include guard. */
  frame: Frame | null
  /** Parts the chain's branches named so far (for `#else`); null when the chain is not a parts chain. */
  named: string[] | null
  line: number
  sawElse: boolean
}

const DIRECTIVE_RE = /^\s*#\s*([a-z]+)\b\s*(.*)$/
const DEFINE_RE = /^([A-Za-z_]\w*)(\([^)]*\))?\s*([\s\S]*)$/
const DEFINED_RE = /^defined\s*(?:\(\s*CPU_(\w+)\s*\)|\s+CPU_(\w+))$/

/** Block and line comments removed from one logical line of a directive. */
const stripComments = (s: string) => s.replace(/\/\*.*?\*\//g, ' ').replace(/\/\/.*$/, '').trim()

export function readFeaturesHeader(text: string, file: string, problems: ParseProblem[]): FeaturesHeader {
  const lines = text.split(/\r?\n/)
  const parts = new Map<string, number>()
  const defines: Define[] = []
  const stack: OpenChain[] = []
  /** The name an opening `#ifndef` tests: the include guard when the next directive defines it. */
  let guardCandidate: { name: string; chain: OpenChain } | null = null
  let comment: Comment | undefined
  let allPartsKnown = true
  const problem = (line: number, reason: string) => problems.push({ file, line, reason })

  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i] ?? ''
    const t = raw.trim()
    if (t === '') {
      comment = undefined
      continue
    }
    if (t.startsWith('/*')) {
      const start = i
      let body = t
      while (!body.includes('*/', 2) && i + 1 < lines.length) body += '\n' + (lines[++i] ?? '')
      if (!body.includes('*/', 2)) problem(start + 1, 'comment not closed before the end of the file')
      comment = { body, line: start + 1 }
      continue
    }
    if (t.startsWith('//')) {
      comment = { body: t, line: i + 1 }
      continue
    }
    const d = DIRECTIVE_RE.exec(raw)
    if (!d) {
      problem(i + 1, `not a preprocessor line or comment: ${t.slice(0, 80)}`)
      comment = undefined
      continue
    }
    // A directive with its continuation lines, each physical line's text kept for part lines.
    const start = i
    const pieces = [d[2] ?? '']
    while ((pieces[pieces.length - 1] ?? '').endsWith('\\') && i + 1 < lines.length) {
      pieces[pieces.length - 1] = (pieces[pieces.length - 1] ?? '').slice(0, -1)
      pieces.push(lines[++i] ?? '')
    }
    const directive = d[1] ?? ''
    const rest = stripComments(pieces.join(' '))
    const line = start + 1
    const above = comment
    comment = undefined
    const top = stack[stack.length - 1]
    const wasGuardCandidate = guardCandidate
    guardCandidate = null

    switch (directive) {
      case 'if':
      case 'ifdef':
      case 'ifndef': {
        const chain: OpenChain = { frame: null, named: null, line, sawElse: false }
        if (directive === 'ifndef' && stack.length === 0 && /^\w+$/.test(rest)) {
          // Possibly the include guard: decided by the next directive.
          chain.frame = { kind: 'other', line, condition: `#ifndef ${rest}` }
          guardCandidate = { name: rest, chain }
        } else {
          // `#ifndef` of anything but the guard is a condition, not about parts, whatever it names.
          const cond = directive === 'if' ? rest : directive === 'ifdef' ? `defined(${rest})` : null
          const ps = cond === null ? null : cpuParts(cond)
          if (ps) {
            chain.named = [...ps]
            chain.frame = { kind: 'parts', line, parts: ps }
            notePartLines(ps, pieces, line, parts)
          } else {
            if (rest === '' || /\bCPU_\w/.test(rest)) {
              problem(line, `#${directive} condition is not a list of defined(CPU_…) parts: ${rest.slice(0, 120)}`)
              allPartsKnown = false
            }
            chain.frame = { kind: 'other', line, condition: `#${directive} ${rest}` }
          }
        }
        stack.push(chain)
        break
      }
      case 'elif': {
        if (!top || top.frame === null) {
          problem(line, '#elif without an open #if')
          break
        }
        if (top.sawElse) problem(line, `#elif after #else (of the #if at line ${top.line})`)
        const ps = cpuParts(rest)
        if (ps) notePartLines(ps, pieces, line, parts)
        if (ps && top.named) {
          top.named.push(...ps)
          top.frame = { kind: 'parts', line, parts: ps }
        } else {
          // After a branch not about parts, which parts reach this one cannot be told.
          if (ps) problem(line, `#elif of parts after a condition that is not about parts (line ${top.frame.line})`)
          else if (top.named || rest === '' || /\bCPU_\w/.test(rest)) {
            problem(line, `#elif condition is not a list of defined(CPU_…) parts: ${rest.slice(0, 120)}`)
            allPartsKnown = false
          }
          top.frame = { kind: 'other', line, condition: `#elif ${rest}` }
          top.named = null
        }
        break
      }
      case 'else':
        if (!top || top.frame === null) {
          problem(line, '#else without an open #if')
          break
        }
        if (top.sawElse) problem(line, `second #else (of the #if at line ${top.line})`)
        top.sawElse = true
        top.frame = top.named ? { kind: 'else', line, excluded: [...top.named] } : { kind: 'other', line, condition: '#else' }
        break
      case 'endif':
        if (!stack.pop()) problem(line, '#endif without an open #if')
        break
      case 'define': {
        const m = DEFINE_RE.exec(pieces.join('\n').trim())
        if (!m) {
          problem(line, `#define without a macro name: ${t.slice(0, 80)}`)
          break
        }
        const name = m[1] ?? ''
        if (wasGuardCandidate && wasGuardCandidate.name === name && wasGuardCandidate.chain === top) {
          top.frame = null
          break
        }
        defines.push({
          name,
          ...(m[2] ? { params: m[2] } : {}),
          value: stripComments((m[3] ?? '').replace(/\n/g, ' ')).replace(/\s+/g, ' '),
          line,
          endLine: i + 1,
          ...(above ? { comment: above } : {}),
          frames: stack.flatMap((c) => (c.frame ? [c.frame] : []))
        })
        break
      }
      default:
        // `#undef`, `#include`, `#pragma`, `#error` … could change what a macro is: not guessed at.
        problem(line, `unsupported directive #${directive}`)
    }
  }
  for (const c of stack) problem(c.line, 'conditional not closed by #endif before the end of the file')
  return { parts, defines, allPartsKnown }
}

/** `defined(CPU_A) || defined(CPU_B)` → ['A', 'B']; null for any other expression. */
function cpuParts(cond: string): string[] | null {
  const out: string[] = []
  for (const term of cond.split('||')) {
    const m = DEFINED_RE.exec(term.trim())
    if (!m) return null
    out.push((m[1] ?? m[2]) as string)
  }
  return out
}

/** The physical line each newly seen part is written on (a condition may span continuation lines). */
function notePartLines(ps: readonly string[], pieces: readonly string[], first: number, parts: Map<string, number>): void {
  for (const p of ps) {
    if (parts.has(p)) continue
    const re = new RegExp(`\\bCPU_${p}\\b`)
    const k = pieces.findIndex((s) => re.test(s))
    parts.set(p, first + Math.max(k, 0))
  }
}

/** `/* @brief Has errata 6070. *\/` → `Has errata 6070.` (every line of a multi-line comment, joined). */
export function commentText(c: Comment): string {
  return c.body
    .replace(/^\s*\/\/|^\s*\/\*+/, '')
    .replace(/\*+\/\s*$/, '')
    .split('\n')
    .map((l) => l.replace(/^\s*\*+(?!\/)/, ''))
    .join(' ')
    .replace(/^\s*@brief\b/, '')
    .replace(/\s+/g, ' ')
    .trim()
}

/**
 * The parts a define applies to: 'all' when no enclosing block is a parts condition, the parts
 * every such block allows otherwise, or the first block that is not about parts.
 */
export function appliesTo(d: Define, fileParts: readonly string[]): { parts: string[] | 'all' } | { other: Frame } {
  let parts: string[] | 'all' = 'all'
  for (const f of d.frames) {
    if (f.kind === 'other') return { other: f }
    const here = f.kind === 'parts' ? f.parts : fileParts.filter((p) => !f.excluded.includes(p))
    parts = parts === 'all' ? here : parts.filter((p) => here.includes(p))
  }
  return { parts }
}
