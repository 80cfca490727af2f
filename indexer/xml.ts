import { SaxesParser } from 'saxes'

/** A parsed XML element with the 1-based line its start tag begins on, for evidence locators. */
export interface XmlElement {
  name: string
  attrs: Record<string, string>
  children: XmlElement[]
  /** Concatenated character data directly inside this element, trimmed. */
  text: string
  line: number
}

export class XmlParseError extends Error {
  constructor(
    message: string,
    readonly line: number
  ) {
    super(message)
  }
}

/**
 * Parses a whole document with saxes (a conformant streaming parser) into a small element tree.
 * Namespace prefixes are kept in names as written; the publishers' files use a default namespace.
 */
export function parseXml(source: string): XmlElement {
  const parser = new SaxesParser({ position: true })
  const stack: XmlElement[] = []
  const texts: string[][] = []
  let root: XmlElement | undefined
  let tagLine = 1
  parser.on('opentagstart', () => {
    // Fired once the character after the name is read: when that is a line break, the tag began
    // on the line before (`<` and the name leave the column above 0 on the tag's own line).
    tagLine = parser.column === 0 ? parser.line - 1 : parser.line
  })
  parser.on('opentag', (tag) => {
    const el: XmlElement = { name: tag.name, attrs: tag.attributes as Record<string, string>, children: [], text: '', line: tagLine }
    const parent = stack[stack.length - 1]
    if (parent) parent.children.push(el)
    else root = el
    stack.push(el)
    texts.push([])
  })
  parser.on('text', (t) => {
    texts[texts.length - 1]?.push(t)
  })
  parser.on('cdata', (t) => {
    texts[texts.length - 1]?.push(t)
  })
  parser.on('closetag', () => {
    const el = stack.pop()
    const parts = texts.pop()
    if (el && parts && parts.length > 0) el.text = parts.join('').trim()
  })
  try {
    parser.write(source).close()
  } catch (err) {
    throw new XmlParseError((err as Error).message, parser.line)
  }
  if (!root) throw new XmlParseError('document has no root element', parser.line)
  return root
}

/** Parses without building anything: the baseline the indexing benchmark compares against. */
export function bareParse(source: string): void {
  const parser = new SaxesParser({ position: true })
  parser.write(source).close()
}

export function child(el: XmlElement, name: string): XmlElement | undefined {
  for (const c of el.children) if (c.name === name) return c
  return undefined
}

export function children(el: XmlElement, name: string): XmlElement[] {
  return el.children.filter((c) => c.name === name)
}

/** Text of the first child element with this name, or undefined when absent or empty. */
export function childText(el: XmlElement, name: string): string | undefined {
  const c = child(el, name)
  return c && c.text !== '' ? c.text : undefined
}
