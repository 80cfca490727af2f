import type { FactQuery, ReleaseRepository, ReleaseStore } from '../../src/store/types.js'

/**
 * A repository that reports every FactQuery its stores answer. Each release's store is wrapped
 * once and kept, as the real repositories keep theirs: the service caches per store object, so a
 * fresh wrapper per call would rebuild those caches on every request.
 */
export function recordingRepository(repo: ReleaseRepository, onQuery: (q: FactQuery) => void): ReleaseRepository {
  const wrapped = new Map<ReleaseStore, ReleaseStore>()
  const wrap = (s: ReleaseStore) => {
    let w = wrapped.get(s)
    if (!w) {
      w = {
        manifest: s.manifest,
        catalog: s.catalog,
        close: () => s.close(),
        queryFacts: (q) => (onQuery(q), s.queryFacts(q)),
        selectFacts: (q) => (onQuery(q), s.selectFacts(q))
      }
      wrapped.set(s, w)
    }
    return w
  }
  return {
    kind: repo.kind,
    promotedId: () => repo.promotedId(),
    list: () => repo.list(),
    close: () => repo.close(),
    open: async (id) => {
      const s = await repo.open(id)
      return s && wrap(s)
    }
  }
}
