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
  const out = new Map<string, number>()
  let i = 0
  let line = 1

  const fail = (what: string): never => {
    throw new JsonLinesError(`line ${line}: ${what}`)
  }
  const ws = () => {
    for (;;) {
      const c = text.charCodeAt(i)
      if (c === NL) line++
      else if (c !== 32 && c !== 9 && c !== 13) return
      i++
    }
  }
  /** Steps over one value, counting its lines (in locals: the closure's `i` and `line` are slow to update per character). */
  const skip = () => {
    const s = text
    const n = s.length
    let j = i
    const c = s.charCodeAt(j)
    if (c === QUOTE) {
      i = stringEnd(s, j)
      return
    }
    if (c !== 123 && c !== 91) {
      // A number, true, false or null: up to the next delimiter.
      for (let d = c; j < n && d !== 44 && d !== 93 && d !== 125 && d !== 32 && d !== NL && d !== 13 && d !== 9; d = s.charCodeAt(++j));
      i = j
      return
    }
    let depth = 0
    let l = line
    while (j < n) {
      const d = s.charCodeAt(j++)
      if (d === QUOTE) {
        // Inline rather than stringEnd: most strings here are a few characters, an indexOf each costs more.
        for (let e = s.charCodeAt(j++); e !== QUOTE; e = s.charCodeAt(j++)) {
          if (e === BACKSLASH) j++
          if (j > n) fail('unterminated string')
        }
      } else if (d === NL) l++
      else if (d === 123 || d === 91) depth++
      else if ((d === 125 || d === 93) && --depth === 0) break
    }
    i = j
    line = l
    if (depth !== 0) fail('unbalanced brackets')
  }
  const value = (ptr: string, segments: number) => {
    ws()
    const c = text.charCodeAt(i)
    if (segments === maxDepth || (c !== 123 && c !== 91)) {
      skip()
      return
    }
    i++
    ws()
    const close = c === 123 ? 125 : 93
    if (text.charCodeAt(i) === close) {
      i++
      return
    }
    for (let n = 0; ; n++) {
      ws()
      let p: string
      if (c === 123) {
        if (text.charCodeAt(i) !== QUOTE) fail('expected a key')
        const end = stringEnd(text, i)
        const raw = text.slice(i + 1, end - 1)
        const key = raw.includes('\\') ? (JSON.parse(text.slice(i, end)) as string) : raw
        p = ptr + '/' + key.replace(/~/g, '~0').replace(/\//g, '~1')
        out.set(p, line)
        i = end
        ws()
        if (text.charCodeAt(i) !== 58) fail("expected ':'")
        i++
        value(p, segments + 1)
      } else {
        p = ptr + '/' + n
        out.set(p, line)
        value(p, segments + 1)
      }
      ws()
      const d = text.charCodeAt(i++)
      if (d === close) return
      if (d !== 44) fail(`expected ',' or '${String.fromCharCode(close)}'`)
    }
  }
  value('', 0)
  return out
}
