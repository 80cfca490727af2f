import type { Evidence, Topic } from '../model/fact.js'

/**
 * A stored fact, decoded: its body is the fact's public JSON (the Fact schema), written once by the
 * indexer (indexer/encode.ts) and served as it is. Value and scope are records here, for readers
 * that compare them member by member; `aliases` is set by the cross-check, never stored.
 */
export interface DecodedFact {
  id: string
  topic: Topic
  name: string
  aliases?: string[]
  value: Record<string, unknown>
  scope: Record<string, unknown> & { package?: string; source?: string }
  evidence: Evidence[]
  agreement?: 'agree' | 'disagree'
}

/** The one reading of a stored body: every reader of facts decodes it here, none by where its members are. */
export function decodeFact(body: string): DecodedFact {
  return JSON.parse(body) as DecodedFact
}

/** The artifacts an evidence names, as the indexer writes each Evidence: sha256, then path. */
const EVIDENCE_SOURCE = /"sourceSha256":"([0-9a-f]{64})","sourcePath":("(?:[^"\\]|\\.)*")/g

/**
 * A stored body read only as far as a reader asks: its name at once, value, scope and evidence
 * parsed when first asked for, the artifacts its evidence names found without parsing the evidence
 * (most of a body's bytes). For readers that look at many facts and use few members of each (a
 * comparison reads every fact of two targets; a check, every pin of a package for the few in use). The indexer writes every body as
 * `{"id","topic","name","value","scope","evidence"[,"agreement"]}` in that order (indexer/encode.ts);
 * the markers cannot occur earlier inside a member (quotes inside strings are escaped, and no value
 * or scope schema has a `scope` or `evidence` member). A body not laid out so is decoded whole.
 */
export class LazyFact {
  readonly name: string
  private readonly body: string
  /** Where the value starts, and where `,"scope":` and `,"evidence":` are (found when first needed). */
  private readonly v: number
  private s = -1
  private e = -1
  private whole?: DecodedFact
  private parsedValue?: Record<string, unknown>
  private parsedScope?: DecodedFact['scope']
  private parsedEvidence?: Evidence[]

  constructor(body: string) {
    this.body = body
    const n = body.indexOf(',"name":"')
    const v = n < 0 ? -1 : body.indexOf('","value":', n)
    if (v < 0 || !body.startsWith('{"id":')) {
      this.whole = decodeFact(body)
      this.name = this.whole.name
      this.v = -1
      return
    }
    const name = body.slice(n + 9, v)
    this.name = name.includes('\\') ? (JSON.parse(`"${name}"`) as string) : name
    this.v = v + 10
  }

  private find(): void {
    this.s = this.body.indexOf(',"scope":', this.v)
    this.e = this.s < 0 ? -1 : this.body.indexOf(',"evidence":', this.s)
    if (this.e < 0) this.whole = decodeFact(this.body)
  }

  get value(): Record<string, unknown> {
    if (this.parsedValue) return this.parsedValue
    if (!this.whole && this.s < 0) this.find()
    return (this.parsedValue = this.whole ? this.whole.value : (JSON.parse(this.body.slice(this.v, this.s)) as Record<string, unknown>))
  }

  get scope(): DecodedFact['scope'] {
    if (this.parsedScope) return this.parsedScope
    if (!this.whole && this.s < 0) this.find()
    return (this.parsedScope = this.whole ? this.whole.scope : (JSON.parse(this.body.slice(this.s + 9, this.e)) as DecodedFact['scope']))
  }

  /** The evidence, parsed when first asked for (only the body's tail: evidence and agreement). */
  get evidence(): Evidence[] {
    if (this.parsedEvidence) return this.parsedEvidence
    if (!this.whole && this.s < 0) this.find()
    return (this.parsedEvidence = this.whole ? this.whole.evidence : (JSON.parse(`{${this.body.slice(this.e + 1)}`) as { evidence: Evidence[] }).evidence)
  }

  /** Adds the artifacts the evidence names (path → sha256). */
  sources(into: Map<string, string>): void {
    let found = false
    if (!this.whole)
      for (const m of this.body.matchAll(EVIDENCE_SOURCE)) {
        into.set(JSON.parse(m[2]!) as string, m[1]!)
        found = true
      }
    // Every fact has evidence: a body the pattern misses is read whole.
    if (!found) for (const e of (this.whole ??= decodeFact(this.body)).evidence) into.set(e.sourcePath, e.sourceSha256)
  }
}
