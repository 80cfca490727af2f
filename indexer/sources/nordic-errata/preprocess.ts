/** Read stage: the C preprocessor subset the MDK headers use, run once per build configuration. */
import type { Tok } from './code.js'
import { ShapeError } from './types.js'

// ---------------------------------------------------------------------------------------------
// Preprocessor (only what the headers use: #if/#ifdef/#ifndef/#elif/#else/#endif/#define)

export type Lookup = (name: string, line: number) => boolean
/** A compiled `#if` condition; evaluated once per configuration. */
export type Cond = (lookup: Lookup, line: number) => boolean

export interface LogicalLine {
  line: number // 1-based physical line where it starts
  text: string
  directive?: { name: string; arg: string }
  /** Compiled condition of #if/#ifdef/#ifndef/#elif, filled on first use. */
  cond?: Cond
  /** Tokens of a code line, filled on first use. */
  toks?: Tok[]
}

/** Lines [from, to) (0-based), with `\`-continued directive lines joined. */
export function logicalLines(lines: string[], from: number, to: number): LogicalLine[] {
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

export interface Preprocessed {
  code: LogicalLine[]
  defines: Map<string, string>
}

export function preprocess(input: LogicalLine[], lookup: Lookup): Preprocessed {
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

export function conditionOf(l: LogicalLine): Cond {
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
export const conditionCache = new Map<string, Cond>()

/** `defined (X) || defined(Y) && !defined Z`, parentheses and integer literals. */
export function compileCondition(src: string, line: number): Cond {
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
