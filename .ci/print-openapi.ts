/**
 * Writes the OpenAPI document the service serves (the exact /openapi.json bytes, MCP endpoint
 * included) to stdout, for `redocly lint` in CI. The document does not depend on any release, so an
 * empty data directory serves. HWFACTS_PUBLIC_URL, when set, becomes its `servers` entry.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ApiKeyStore } from '../src/auth/keys.js'
import { buildApp } from '../src/http/app.js'
import { mcpRoute } from '../src/mcp/route.js'
import { HardwareFacts } from '../src/service/facts.js'
import { SqliteRepository } from '../src/store/sqlite/store.js'

const dir = mkdtempSync(join(tmpdir(), 'hwfacts-openapi-'))
const repo = new SqliteRepository(dir)
const publicUrl = process.env.HWFACTS_PUBLIC_URL
const app = await buildApp({ facts: new HardwareFacts(repo, 'unused'), keys: new ApiKeyStore([]), ...(publicUrl ? { publicUrl } : {}), plugins: [mcpRoute({ publicUrl })] })
await app.ready()
process.stdout.write((await app.inject({ url: '/openapi.json' })).body + '\n')
await app.close()
await repo.close()
rmSync(dir, { recursive: true, force: true })
