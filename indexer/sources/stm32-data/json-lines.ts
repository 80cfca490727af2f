/**
 * The 1-based line of every JSON pointer (RFC 6901) of at most `maxDepth` segments in a JSON
 * text: for an object member the line its key is written on, for an array element the line its
 * value starts on. `JSON.parse` gives values but no positions; this scanner gives positions only,
 * and steps over anything deeper than `maxDepth` without building it (a chip file's pin lists and
 * peripherals are most of its bytes). It expects text `JSON.parse` has accepted: anything else
 * throws a JsonLinesError.
 */
export class JsonLinesError extends Error {}

const QUOTE = 34
const BACKSLASH = 92
const NL = 10

/** The end (after the closing quote) of the string starting at `at`. JSON strings hold no raw line break. */
function stringEnd(text: string, at: number): number {
  for (let j = at + 1; ; ) {
    const q = text.indexOf('"', j)
    if (q === -1) throw new JsonLinesError(`unterminated string at offset ${at}`)
    let b = q - 1
    while (text.charCodeAt(b) === BACKSLASH) b--
    if ((q - 1 - b) % 2 === 0) return q + 1
    j = q + 1
  }
}

export function jsonPointerLines(text: string, maxDepth: number): Map<string, number> {
  const scanner = new Scanner(text, maxDepth)
  scanner.value('', 0)
  return scanner.out
}

/** The scan's state: the offset `i` in the text, the line it is on, and the lines found so far. */
class Scanner {
  i = 0
  line = 1
  readonly out = new Map<string, number>()
  constructor(
    private readonly text: string,
    private readonly maxDepth: number
  ) {}

  fail(what: string): never {
    throw new JsonLinesError(`line ${this.line}: ${what}`)
  }

  ws(): void {
    for (;;) {
      const c = this.text.charCodeAt(this.i)
      if (c === NL) this.line++
      else if (c !== 32 && c !== 9 && c !== 13) return
      this.i++
    }
  }

  /** Steps over one value, counting its lines (in locals: a field updated per character is slow). */
  skip(): void {
    const s = this.text
    const n = s.length
    let j = this.i
    const c = s.charCodeAt(j)
    if (c === QUOTE) {
      this.i = stringEnd(s, j)
      return
    }
    if (c !== 123 && c !== 91) {
      // A number, true, false or null: up to the next delimiter.
      for (let d = c; j < n && d !== 44 && d !== 93 && d !== 125 && d !== 32 && d !== NL && d !== 13 && d !== 9; d = s.charCodeAt(++j));
      this.i = j
      return
    }
    let depth = 0
    let l = this.line
    while (j < n) {
      const d = s.charCodeAt(j++)
      if (d === QUOTE) {
        // Inline rather than stringEnd: most strings here are a few characters, an indexOf each costs more.
        for (let e = s.charCodeAt(j++); e !== QUOTE; e = s.charCodeAt(j++)) {
          if (e === BACKSLASH) j++
          if (j > n) this.fail('unterminated string')
        }
      } else if (d === NL) l++
      else if (d === 123 || d === 91) depth++
      else if ((d === 125 || d === 93) && --depth === 0) break
    }
    this.i = j
    this.line = l
    if (depth !== 0) this.fail('unbalanced brackets')
  }

  /** The value at `i`, whose pointer is `ptr` of `segments` segments: its members' lines, to maxDepth. */
  value(ptr: string, segments: number): void {
    this.ws()
    const c = this.text.charCodeAt(this.i)
    if (segments === this.maxDepth || (c !== 123 && c !== 91)) {
      this.skip()
      return
    }
    this.i++
    this.ws()
    const close = c === 123 ? 125 : 93
    if (this.text.charCodeAt(this.i) === close) {
      this.i++
      return
    }
    for (let n = 0; ; n++) {
      this.ws()
      const p = ptr + '/' + (c === 123 ? this.key() : n)
      this.out.set(p, this.line)
      if (c === 123) {
        this.ws()
        if (this.text.charCodeAt(this.i) !== 58) this.fail("expected ':'")
        this.i++
      }
      this.value(p, segments + 1)
      this.ws()
      const d = this.text.charCodeAt(this.i++)
      if (d === close) return
      if (d !== 44) this.fail(`expected ',' or '${String.fromCharCode(close)}'`)
    }
  }

  /** The member name at `i`, escaped as a pointer segment (`~0`, `~1`). */
  key(): string {
    const text = this.text
    if (text.charCodeAt(this.i) !== QUOTE) this.fail('expected a key')
    const end = stringEnd(text, this.i)
    const raw = text.slice(this.i + 1, end - 1)
    const key = raw.includes('\\') ? (JSON.parse(text.slice(this.i, end)) as string) : raw
    this.i = end
    return key.replace(/~/g, '~0').replace(/\//g, '~1')
  }
}
