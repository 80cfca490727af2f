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
  return new HeaderReader(text, file, problems).read()
}

/** One directive with its continuation lines, as its handler reads it. */
interface Directive {
  name: string
  /** Its text after the name, comments removed, continuation lines joined. */
  rest: string
  /** Each physical line's text after the name, kept for the lines parts are written on. */
  pieces: string[]
  line: number
  /** The comment that ends right above it. */
  above: Comment | undefined
  /** The raw first line, for problems. */
  raw: string
}

/** The reader's state as it goes line by line: the open conditionals, the comment just read. */
class HeaderReader {
  private readonly lines: string[]
  private readonly out: FeaturesHeader = { parts: new Map(), defines: [], allPartsKnown: true }
  private readonly stack: OpenChain[] = []
  /** The name an opening `#ifndef` tests: the include guard when the next directive defines it. */
  private guardCandidate: { name: string; chain: OpenChain } | null = null
  private comment: Comment | undefined

  constructor(
    text: string,
    private readonly file: string,
    private readonly problems: ParseProblem[]
  ) {
    this.lines = text.split(/\r?\n/)
  }

  private problem(line: number, reason: string): void {
    this.problems.push({ file: this.file, line, reason })
  }

  read(): FeaturesHeader {
    const lines = this.lines
    for (let i = 0; i < lines.length; i++) {
      const raw = lines[i] ?? ''
      const t = raw.trim()
      if (t === '') {
        this.comment = undefined
        continue
      }
      if (t.startsWith('/*')) {
        const start = i
        let body = t
        while (!body.includes('*/', 2) && i + 1 < lines.length) body += '\n' + (lines[++i] ?? '')
        if (!body.includes('*/', 2)) this.problem(start + 1, 'comment not closed before the end of the file')
        this.comment = { body, line: start + 1 }
        continue
      }
      if (t.startsWith('//')) {
        this.comment = { body: t, line: i + 1 }
        continue
      }
      const d = DIRECTIVE_RE.exec(raw)
      if (!d) {
        this.problem(i + 1, `not a preprocessor line or comment: ${t.slice(0, 80)}`)
        this.comment = undefined
        continue
      }
      // A directive with its continuation lines, each physical line's text kept for part lines.
      const line = i + 1
      const pieces = [d[2] ?? '']
      while ((pieces[pieces.length - 1] ?? '').endsWith('\\') && i + 1 < lines.length) {
        pieces[pieces.length - 1] = (pieces[pieces.length - 1] ?? '').slice(0, -1)
        pieces.push(lines[++i] ?? '')
      }
      const directive: Directive = { name: d[1] ?? '', rest: stripComments(pieces.join(' ')), pieces, line, above: this.comment, raw: t }
      this.comment = undefined
      const wasGuardCandidate = this.guardCandidate
      this.guardCandidate = null
      this.directive(directive, wasGuardCandidate, i + 1)
    }
    for (const c of this.stack) this.problem(c.line, 'conditional not closed by #endif before the end of the file')
    return this.out
  }

  private directive(d: Directive, wasGuardCandidate: HeaderReader['guardCandidate'], endLine: number): void {
    const top = this.stack[this.stack.length - 1]
    switch (d.name) {
      case 'if':
      case 'ifdef':
      case 'ifndef':
        return this.openIf(d)
      case 'elif':
        return this.elif(d, top)
      case 'else':
        return this.else(d, top)
      case 'endif':
        if (!this.stack.pop()) this.problem(d.line, '#endif without an open #if')
        return
      case 'define':
        return this.define(d, top, wasGuardCandidate, endLine)
      default:
        // `#undef`, `#include`, `#pragma`, `#error` … could change what a macro is: not guessed at.
        this.problem(d.line, `unsupported directive #${d.name}`)
    }
  }

  private openIf({ name, rest, pieces, line }: Directive): void {
    const chain: OpenChain = { frame: null, named: null, line, sawElse: false }
    if (name === 'ifndef' && this.stack.length === 0 && /^\w+$/.test(rest)) {
      // Possibly the include guard: decided by the next directive.
      chain.frame = { kind: 'other', line, condition: `#ifndef ${rest}` }
      this.guardCandidate = { name: rest, chain }
    } else {
      // `#ifndef` of anything but the guard is a condition, not about parts, whatever it names.
      const cond = name === 'if' ? rest : name === 'ifdef' ? `defined(${rest})` : null
      const ps = cond === null ? null : cpuParts(cond)
      if (ps) {
        chain.named = [...ps]
        chain.frame = { kind: 'parts', line, parts: ps }
        notePartLines(ps, pieces, line, this.out.parts)
      } else {
        if (rest === '' || /\bCPU_\w/.test(rest)) {
          this.problem(line, `#${name} condition is not a list of defined(CPU_…) parts: ${rest.slice(0, 120)}`)
          this.out.allPartsKnown = false
        }
        chain.frame = { kind: 'other', line, condition: `#${name} ${rest}` }
      }
    }
    this.stack.push(chain)
  }

  private elif({ rest, pieces, line }: Directive, top: OpenChain | undefined): void {
    if (!top || top.frame === null) {
      this.problem(line, '#elif without an open #if')
      return
    }
    if (top.sawElse) this.problem(line, `#elif after #else (of the #if at line ${top.line})`)
    const ps = cpuParts(rest)
    if (ps) notePartLines(ps, pieces, line, this.out.parts)
    if (ps && top.named) {
      top.named.push(...ps)
      top.frame = { kind: 'parts', line, parts: ps }
      return
    }
    // After a branch not about parts, which parts reach this one cannot be told.
    if (ps) this.problem(line, `#elif of parts after a condition that is not about parts (line ${top.frame.line})`)
    else if (top.named || rest === '' || /\bCPU_\w/.test(rest)) {
      this.problem(line, `#elif condition is not a list of defined(CPU_…) parts: ${rest.slice(0, 120)}`)
      this.out.allPartsKnown = false
    }
    top.frame = { kind: 'other', line, condition: `#elif ${rest}` }
    top.named = null
  }

  private else({ line }: Directive, top: OpenChain | undefined): void {
    if (!top || top.frame === null) {
      this.problem(line, '#else without an open #if')
      return
    }
    if (top.sawElse) this.problem(line, `second #else (of the #if at line ${top.line})`)
    top.sawElse = true
    top.frame = top.named ? { kind: 'else', line, excluded: [...top.named] } : { kind: 'other', line, condition: '#else' }
  }

  private define({ pieces, line, above, raw }: Directive, top: OpenChain | undefined, wasGuardCandidate: HeaderReader['guardCandidate'], endLine: number): void {
    const m = DEFINE_RE.exec(pieces.join('\n').trim())
    if (!m) {
      this.problem(line, `#define without a macro name: ${raw.slice(0, 80)}`)
      return
    }
    const name = m[1] ?? ''
    if (wasGuardCandidate && wasGuardCandidate.name === name && wasGuardCandidate.chain === top) {
      top.frame = null
      return
    }
    this.out.defines.push({
      name,
      ...(m[2] ? { params: m[2] } : {}),
      value: stripComments((m[3] ?? '').replace(/\n/g, ' ')).replace(/\s+/g, ' '),
      line,
      endLine,
      ...(above ? { comment: above } : {}),
      frames: this.stack.flatMap((c) => (c.frame ? [c.frame] : []))
    })
  }
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
