import { RELEASE_ID } from '../layout.js'

const PREFIX = /^[a-z0-9][a-z0-9_-]{0,63}$/

/**
 * Index names of one deployment (HWFACTS_INDEX_PREFIX): `<prefix>-facts-<releaseId>` per kept
 * release, the alias `<prefix>-facts` on the promoted one, and `<prefix>-releases` holding one
 * record (manifest + catalog) per fully loaded release.
 */
export class IndexNames {
  constructor(readonly prefix: string) {
    if (!PREFIX.test(prefix)) throw new Error(`index prefix ${JSON.stringify(prefix)} must be lowercase letters, digits, - or _ (at most 64)`)
  }
  release(id: string): string {
    return `${this.prefix}-facts-${id}`
  }
  get alias(): string {
    return `${this.prefix}-facts`
  }
  get releases(): string {
    return `${this.prefix}-releases`
  }
  /** Every release index of this prefix (for alias removal). */
  get releasePattern(): string {
    return `${this.prefix}-facts-*`
  }
  /** The release id of one of our release indices, else undefined. */
  idOf(index: string): string | undefined {
    const head = `${this.prefix}-facts-`
    const id = index.startsWith(head) ? index.slice(head.length) : ''
    return RELEASE_ID.test(id) ? id : undefined
  }
}
