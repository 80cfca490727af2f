import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import closeWithGrace from 'close-with-grace'
import { cursorSecret } from './auth/cursor-secret.js'
import { ApiKeyStore, generateKey } from './auth/keys.js'
import { openBackends } from './backends.js'
import { loadConfig, type Config } from './config.js'
import { buildApp } from './http/app.js'
import type { ReadinessCheck } from './http/routes/health.js'
import { drainAndClose } from './http/drain.js'
import { releaseFilesCheck } from './http/release-files.js'
import { boundHeapGrowth } from './memory.js'
import { mcpRoute } from './mcp/route.js'
import { HardwareFacts } from './service/facts.js'
import { DataDir } from './store/layout.js'

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
  boundHeapGrowth(cfg.heapGrowthPercent)
  const devKeyFile = cfg.sampleData ? ensureDevKey(cfg) : undefined
  // Before any backend is opened: a wrong keys file stops the start.
  const keys = ApiKeyStore.fromFile(cfg.apiKeysFile, { allowMissing: cfg.sampleData })
  const secret = cursorSecret(cfg.dataDir, cfg.cursorSecret)
  const backends = await openBackends(cfg)
  const facts = new HardwareFacts(backends.repo, secret.secret, { contextCacheBytes: cfg.contextCacheBytes, archiveRoot: cfg.dataDir })
  // The promoted release is opened (its file hashed in a worker thread) while this thread builds the
  // app, which takes about as long (compiling the routes' schemas).
  const opening = facts.store().catch(() => undefined)
  const sourcesCheck: ReadinessCheck = {
    name: 'sources',
    critical: false,
    check: async () => {
      const id = await backends.repo.promotedId()
      return (id && facts.sourceChecks.status(id)) || { ok: true, detail: `the archived sources of release ${id ?? '(none)'} are re-hashed on first use` }
    }
  }
  // The served release's files, re-checked while served (the SQLite store's; a search engine checks its own).
  const releaseFiles = cfg.searchEngineUrl
    ? []
    : [
        releaseFilesCheck({
          servedDir: async () => {
            const id = await backends.repo.promotedId()
            return id === undefined ? undefined : new DataDir(cfg.dataDir).releaseDir(id)
          }
        })
      ]
  const app = await buildApp({
    facts,
    keys,
    logger: { level: cfg.logLevel, redact: ['req.headers.authorization'] },
    rateLimit: cfg.rateLimit,
    timeouts: cfg.timeouts,
    authFailures: cfg.authFailures,
    readinessChecks: [...backends.readinessChecks, ...releaseFiles, sourcesCheck],
    ...(backends.rateLimitStore ? { rateLimitStore: backends.rateLimitStore } : {}),
    ...(cfg.publicUrl ? { publicUrl: cfg.publicUrl } : {}),
    plugins: [mcpRoute({ maxBytes: cfg.mcpMaxBytes, publicUrl: cfg.publicUrl })]
  })
  // Ready means ready: the promoted release is open (its file checked against its recorded digest)
  // and its catalog indexed before the port opens. Its archived sources are re-hashed meanwhile in
  // a worker thread: /readyz's `sources` check says how far that is, and answers reporting
  // `checksumVerified` wait for it (other releases' sources are re-hashed on first use).
  const promoted = await opening
  if (promoted) void facts.sourceChecks.of(promoted.manifest)
  await facts.warm()
  app.log.info(`cursor secret: ${secret.source}${cfg.cursorSecret ? '' : ' (set HWFACTS_CURSOR_SECRET for cursors shared by several instances)'}`)
  // SIGHUP re-reads the keys file; a wrong file keeps the keys in use.
  process.on('SIGHUP', () => {
    try {
      app.log.info(`API keys reloaded from ${cfg.apiKeysFile}: ${keys.reload(cfg.apiKeysFile)} keys`)
    } catch (err) {
      app.log.error(`API keys NOT reloaded, the previous keys stay in use: ${(err as Error).message}`)
    }
  })
  closeWithGrace({ delay: cfg.drainMs + 15_000, skip: ['SIGHUP'], logger: app.log }, async ({ signal, err }) => {
    if (err) app.log.error({ err }, 'closing after an uncaught error')
    // SIGTERM is an orchestrator's stop: drain. SIGINT (Ctrl-C) and errors close at once.
    const drainMs = signal === 'SIGTERM' ? cfg.drainMs : 0
    if (!err) app.log.info(`${signal ?? 'close'}: draining for ${drainMs} ms, then closing`)
    await drainAndClose(app, drainMs)
    await backends.close()
  })
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
