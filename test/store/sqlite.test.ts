import { SqliteRepository } from '../../src/store/sqlite/store.js'
import { releaseRepositoryConformance } from './conformance.js'

releaseRepositoryConformance('sqlite', async (dataDir) => ({ repo: new SqliteRepository(dataDir) }))
