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
   * A whitespace-collapsed excerpt beginning at `line` and spanning up to `maxLines` lines,
   * cut at EXCERPT_MAX characters: what a person sees when they open the file there.
   */
  excerpt(line: number, maxLines = 4): string {
    const out: string[] = []
    let len = 0
    for (let l = line; l < line + maxLines && len < EXCERPT_MAX; l++) {
      const s = this.line(l).trim()
      if (s === '') continue
      out.push(s)
      len += s.length + 1
    }
    const joined = out.join(' ').replace(/\s+/g, ' ')
    return joined.length > EXCERPT_MAX ? joined.slice(0, EXCERPT_MAX - 1) + '…' : joined
  }
}
