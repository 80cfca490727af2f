import { describe, expect, it } from 'vitest'
import { DataDir } from '../../src/store/layout.js'
import { openSqliteRelease, STATEMENT_CACHE_MAX } from '../../src/store/sqlite/store.js'
import { corpusDataDir } from '../helpers/corpus-release.js'

/** Item 2 of issue 29: the ranked-query statements kept per release are bounded (RELIABILITY: 128). */
describe('2: prepared statements of many query shapes', () => {
  it('keeps at most 128 statements however many query shapes a client makes', async () => {
    const dir = await corpusDataDir()
    const store = openSqliteRelease(new DataDir(dir).releaseDb(new DataDir(dir).promotedId()!))
    try {
      const target = store.catalog.targets.find((x) => x.factCounts.registers)!.key
      const cache = (store as unknown as { statements: { size: number } }).statements
      // A text term with a name filter takes the ranked SQL path: each name count is its own statement.
      for (let n = 1; n <= 400; n++)
        await store.queryFacts({ target, topic: 'registers', names: Array.from({ length: n }, (_, i) => `REGISTER_${i}`), prefixes: [], terms: ['usart'], limit: 5 })
      // 400 shapes were made: the 128 most recent are kept.
      expect(cache.size).toBe(128)
      expect(STATEMENT_CACHE_MAX).toBe(128)
    } finally {
      await store.close()
    }
  })
})
