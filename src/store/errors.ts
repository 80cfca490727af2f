/** What the store refuses to serve, in its own terms. */
export type StoreFailure =
  /** A file of the release failed its digest check, or a shard cannot be opened. */
  'release-unavailable'

/**
 * An expected failure of the store. The service maps each kind to its Problem code
 * (src/service/errors.ts), so the store depends on nothing of the service.
 */
export class StoreError extends Error {
  constructor(
    readonly failure: StoreFailure,
    message: string
  ) {
    super(message)
    this.name = 'StoreError'
  }
}
