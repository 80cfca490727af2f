const EXCERPT_MAX = 240

/**
 * Line index over a source text, so adapters can quote the lines an element starts on
 * without re-splitting the file for every fact.
 */
export class SourceLines {
  private readonly starts: number[] = [0]

  constructor(private readonly text: string) {
    for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) this.starts.push(i + 1)
  }

  /** The 1-based line `line`, without its line break. */
  line(line: number): string {
    const start = this.starts[line - 1]
    if (start === undefined) return ''
    const next = this.starts[line]
    return this.text.slice(start, next === undefined ? this.text.length : next - 1).replace(/\r$/, '')
  }

  /**
   * A whitespace-collapsed excerpt of the `maxLines` lines beginning at `line` (blank ones count,
   * and add nothing), cut at EXCERPT_MAX characters: what a person sees when they open the file there.
   * Lines are chosen by index arithmetic and cut with one slice: this runs once per fact.
   */
  excerpt(line: number, maxLines = 4): string {
    const { text, starts } = this
    const first = starts[line - 1]
    if (first === undefined) return ''
    let len = 0
    let end = first
    for (let l = line; l < line + maxLines && len < EXCERPT_MAX; l++) {
      const a0 = starts[l - 1]
      if (a0 === undefined) break
      const next = starts[l]
      let a = a0
      let b = next === undefined ? text.length : next - 1
      while (a < b && text.charCodeAt(a) <= 32) a++
      while (b > a && text.charCodeAt(b - 1) <= 32) b--
      if (a === b) continue
      len += b - a + 1
      end = b
    }
    if (end === first) return ''
    const joined = text.slice(first, end).replace(/\s+/g, ' ').trim()
    return joined.length > EXCERPT_MAX ? joined.slice(0, EXCERPT_MAX - 1) + '…' : joined
  }
}
