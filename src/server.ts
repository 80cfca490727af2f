import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { ApiKeyStore, generateKey } from './auth/keys.js'
import { openBackends } from './backends.js'
import { loadConfig, type Config } from './config.js'
import { buildApp } from './http/app.js'
import { mcpRoute } from './mcp/route.js'
import { HardwareFacts } from './service/facts.js'
import { DataDir } from './store/layout.js'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const SAMPLE_CORPUS = join(ROOT, 'test', 'fixtures', 'sample-corpus')

/** On a fresh clone there is no release: build and promote the small sample one. */
async function ensureSampleRelease(cfg: Config): Promise<void> {
  const data = new DataDir(cfg.dataDir)
  if (data.promotedId() !== undefined) return
  const { buildRelease } = await import('../indexer/build.js')
  const r = await buildRelease({ inventory: SAMPLE_CORPUS, dataDir: cfg.dataDir })
  data.promote(r.id)
  process.stdout.write(`Built and promoted the sample release ${r.id} from ${SAMPLE_CORPUS}\n`)
}

/** A local development key, stored hashed; its secret is written once to a 0600 file, never logged. */
function ensureDevKey(cfg: Config): string | undefined {
  if (existsSync(cfg.apiKeysFile)) return undefined
  const { secret, record } = generateKey('local-dev')
  mkdirSync(dirname(cfg.apiKeysFile), { recursive: true })
  writeFileSync(cfg.apiKeysFile, JSON.stringify({ keys: [record] }, null, 2) + '\n', { mode: 0o600 })
  const secretFile = join(cfg.dataDir, 'dev-api-key')
  writeFileSync(secretFile, secret + '\n', { mode: 0o600 })
  chmodSync(secretFile, 0o600)
  return secretFile
}

export async function start(cfg: Config = loadConfig()) {
  if (cfg.sampleData) await ensureSampleRelease(cfg)
  const devKeyFile = cfg.sampleData ? ensureDevKey(cfg) : undefined
  const backends = await openBackends(cfg)
  const facts = new HardwareFacts(backends.repo, cfg.cursorSecret, { contextCacheBytes: cfg.contextCacheBytes, archiveRoot: cfg.dataDir })
  // The promoted release's sources are re-hashed before the first request (other releases on first use).
  await facts.store().then((s) => facts.sourceChecks.of(s.manifest), () => undefined)
  const app = await buildApp({
    facts,
    keys: ApiKeyStore.fromFile(cfg.apiKeysFile),
    logger: { level: cfg.logLevel, redact: ['req.headers.authorization'] },
    rateLimit: cfg.rateLimit,
    readinessChecks: backends.readinessChecks,
    ...(backends.redis ? { redis: backends.redis } : {}),
    ...(cfg.publicUrl ? { publicUrl: cfg.publicUrl } : {}),
    plugins: [mcpRoute({ maxBytes: cfg.mcpMaxBytes, publicUrl: cfg.publicUrl })]
  })
  const close = async () => {
    await app.close()
    await backends.close()
    process.exit(0)
  }
  process.once('SIGINT', close)
  process.once('SIGTERM', close)
  const address = await app.listen({ host: cfg.host, port: cfg.port })
  const keyFile = devKeyFile ?? (existsSync(join(cfg.dataDir, 'dev-api-key')) ? join(cfg.dataDir, 'dev-api-key') : undefined)
  process.stdout.write(
    `\nHardware Facts is listening on ${address}\n` +
      (keyFile
        ? `Try:  curl -H "Authorization: Bearer $(cat ${keyFile})" '${address}/v1/parts/resolve?q=STM32F407VG'\n`
        : `API keys: ${cfg.apiKeysFile} (create one with: npx hwfacts keys create <id>)\n`) +
      `Contract: ${address}/openapi.json\n\n`
  )
  return app
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  start().catch((err: Error) => {
    process.stderr.write(`hardware-facts: ${err.message}\n`)
    process.exit(1)
  })
}
