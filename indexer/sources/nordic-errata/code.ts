/** Read stage: the C statement subset of an erratum function body, and the header's part-code/revision registers. */
import type { LogicalLine } from './preprocess.js'
import { ShapeError } from './types.js'

// ---------------------------------------------------------------------------------------------
// The C subset of an erratum function body

export interface Tok {
  t: string
  line: number
}

export const TOKEN_RE = /\s+|\/\/.*$|\/\*.*?\*\/|(0[xX][0-9A-Fa-f]+[uUlL]*|\d+[uUlL]*|[A-Za-z_]\w*|==|>>|[(){};:*&+=,])/y

export function tokenize(code: LogicalLine[]): Tok[] {
  const out: Tok[] = []
  for (const l of code) {
    l.toks ??= tokenizeLine(l)
    out.push(...l.toks)
  }
  return out
}

export function tokenizeLine(l: LogicalLine): Tok[] {
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

export type Stmt =
  | { k: 'return'; value: boolean; line: number; end: number }
  /** Declarations, reads of var1/var2, `__DSB();`, and if/else that only choose how to read them. */
  | { k: 'read'; line: number; end: number }
  | { k: 'part'; code: number; body: Stmt[]; line: number; end: number }
  | { k: 'switch'; cases: { code: number; value: boolean; line: number }[]; def: boolean | undefined; line: number; end: number }

export const NUM_RE = /^(0[xX][0-9A-Fa-f]+|\d+)[uUlL]*$/
export const KEYWORDS = new Set(['return', 'if', 'else', 'switch', 'case', 'default', 'break', 'while', 'for', 'goto'])

export function parseNum(t: string): number {
  const m = NUM_RE.exec(t)
  return m ? Number(m[1]) : NaN
}

export class CodeParser {
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
export interface HeaderRegisters {
  part: ReadonlySet<string>
  revision: ReadonlySet<string>
}

/**
 * The register a read expression names: `NRF_FICR+0x130` for a FICR offset (secure or non-secure
 * alias alike), else the first address (`0x0FFFE000`); masks after it do not change the register.
 */
export function registerOf(expr: string): string | undefined {
  const n = /0[xX][0-9a-fA-F]+|\b\d+/.exec(expr)
  if (!n) return undefined
  const addr = '0x' + parseNum(n[0].replace(/ul$/i, '')).toString(16).toUpperCase().padStart(8, '0')
  return /\bNRF_FICR\w*/.test(expr) ? `NRF_FICR+${addr}` : addr
}

/**
 * The header's part-code and revision registers: those its functions read var1 and var2 from
 * more than once (the convention every erratum follows); a register only one read names is an
 * outlier, unless it is the only one the header reads. `var1 == 0x06` is a comparison, not a read.
 */
export function headerRegisters(text: string): HeaderRegisters {
  const counts = { var1: new Map<string, number>(), var2: new Map<string, number>() }
  for (const m of text.matchAll(/\b(var[12])\s*=(?!=)\s*([^;]+);/g)) {
    const reg = registerOf(m[2]!)
    if (reg === undefined) continue
    const c = counts[m[1] as 'var1' | 'var2']
    c.set(reg, (c.get(reg) ?? 0) + 1)
  }
  const pick = (c: Map<string, number>) => new Set([...c].filter(([, n]) => n > 1 || c.size === 1).map(([r]) => r))
  return { part: pick(counts.var1), revision: pick(counts.var2) }
}
