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
