/**
 * The modules that decide facts and answers, each mutated on its own with only the tests that
 * exercise it (a whole-suite run per mutant is far too slow on a shared 2-core box).
 * `mutate`: Stryker globs (`file:from-to` narrows to lines); `tests`: vitest include globs (the
 * focused suites; the REST suite only where it is the one that exercises the module).
 */
export const MODULES = {
  // One SVD per vendor (HWFACTS_SVD_SAMPLE): all 25 make a mutant's run take most of a minute here.
  svd: { mutate: ['indexer/sources/svd.ts', 'indexer/sources/svd/*.ts'], tests: ['test/indexer/svd*.test.ts'], env: { HWFACTS_SVD_SAMPLE: 'STM32F407,nrf52.svd,esp32.svd,rp2040,ATSAMD21' } },
  stm32: { mutate: ['indexer/sources/stm32.ts', 'indexer/sources/stm32-gpio.ts', 'indexer/sources/stm32-names.ts'], tests: ['test/indexer/stm32*.test.ts'] },
  'nordic-errata': { mutate: ['indexer/sources/nordic-errata.ts', 'indexer/sources/nordic-errata/*.ts'], tests: ['test/indexer/nordic-errata*.test.ts'] },
  resolve: { mutate: ['src/service/catalog-index.ts', 'src/model/text.ts'], tests: ['test/service/resolve*.test.ts'] },
  cursor: { mutate: ['src/service/cursor.ts'], tests: ['test/service/cursor*.test.ts', 'test/service/context*.test.ts', 'test/http/rest.test.ts'] },
  // Context paging and token budgeting live in HardwareFacts.context/contextIn and the page's helpers; the cross-checked
  // pages (depth topics of a part two sources describe) on a release of world-corpus files (depth-cross-check, 6 s).
  context: { mutate: ['src/service/facts.ts:551-675'], tests: ['test/service/context*.test.ts', 'test/service/depth-cross-check.test.ts', 'test/http/rest.test.ts'] },
  // The answers without a page: coverage, sources, discrepancies, the release, and the lookup they share (facts.ts
  // 433-550, between the parts `facts` and `context` mutate), on the hand-made catalog of facts-edges.
  'facts-answers': { mutate: ['src/service/facts.ts:433-550'], tests: ['test/service/facts-edges.test.ts'] },
  // The token counter (a module of its own since 2026-11-26: with the context and REST suites in one module, each of its
  // module-level mutants ran all three files, about 2 h 30 min a run): exact against gpt-tokenizer's reference on corpus,
  // random and adversarial texts; its memo (RangeMemo) filled directly at 16 and 256 slots, past half and past its arena
  // (the 300,000- and 600,000-chunk tests over the service's own memos, 4-6 s each, did that until 2026-11-27).
  tokens: { mutate: ['src/model/tokens.ts'], tests: ['test/model/tokens*.test.ts'] },
  // The focused suites first (test/auth/keys.test.ts: the keys file and store; test/http/auth-plugin.test.ts:
  // the plugin on a minimal app, the failed-credential limit under a controlled clock, the per-connection
  // memo on a real kept-alive socket; test/http/auth.test.ts: the store and the 401/403 answers). They run
  // in a few seconds and, smallest first (vitest.stryker.config.ts), kill every mutant that is killed.
  // The REST, hardening and MCP suites kill nothing more for this module. Hardening (releases built, real
  // servers) stays because with the focused suites in front it runs only for the few mutants they leave:
  // a full run takes 8 min 42 s with it, 6 min 47 s without (2026-11-25, concurrency 2). Were many mutants
  // to survive again, each would pay its minute of setup (the 1 h 24 min estimate of 2026-11-24: 54 survivors).
  auth: { mutate: ['src/http/auth.ts', 'src/auth/keys.ts'], tests: ['test/auth/keys*.test.ts', 'test/http/auth*.test.ts', 'test/http/rest.test.ts', 'test/http/hardening.test.ts', 'test/mcp/http.test.ts'] },
  // The Problem layer and the functions of the error table (its rows are data: titles and guidance
  // are read by the error-codes route's own test). One minimal app, no release: seconds per mutant.
  'http-errors': { mutate: ['src/http/problem.ts', 'src/service/errors.ts:168-197'], tests: ['test/http/problem.test.ts'] },
  // Each rule with the in-process store and with a real Redis (the global setup starts one).
  'rate-limit': { mutate: ['src/http/rate-limit.ts'], tests: ['test/http/rate-limit.test.ts'] },
  inventory: { mutate: ['indexer/inventory.ts'], tests: ['test/indexer/inventory.test.ts'] },
  // The naming rules and the vendor rules' reader; the rules' data (vendors.json) is checked by the same suites.
  'curation-rules': { mutate: ['indexer/curation/rules.ts', 'indexer/curation/vendors.ts'], tests: ['test/indexer/curation-rules.test.ts', 'test/indexer/vendors.test.ts', 'test/indexer/catalog.test.ts'] },
  // Fact encoding, shard writing and the parse cache on a few hand-written facts (no corpus, no build); the body
  // token counts against the reference tokenizer (encode-tokens).
  'encode-shard': { mutate: ['indexer/encode.ts', 'indexer/shard.ts', 'indexer/parse-cache.ts'], tests: ['test/indexer/encode-shard.test.ts', 'test/indexer/encode-tokens.test.ts'] },
  // The release writer on tiny hand-made corpora (a few small files in a temp dir: a build takes well under a second).
  'release-writer': { mutate: ['indexer/build.ts'], tests: ['test/indexer/release-writer.test.ts'] },
  // The catalog's rules on hand-made target summaries (no corpus, no build).
  catalog: { mutate: ['indexer/curation/catalog.ts'], tests: ['test/indexer/catalog.test.ts', 'test/indexer/catalog-edges.test.ts'] },
  // The whole comparison: the JSON writer and its token counts, resolution of both sides, the status, the page cache key,
  // the paging step over the shared pager (src/service/pager.ts, its own module) and the differences (releases, parts,
  // pins), on two tiny hand-written releases (test/service/compare-edges.test.ts, built once in the temp directory:
  // about a second a mutant).
  compare: { mutate: ['src/service/compare.ts'], tests: ['test/service/compare-edges.test.ts'] },
  // The world adapters, each whole, on inline inputs (the *-edges suites) and the small fixtures; their
  // world-corpus checks are skipped in Stryker's sandbox (.cache is not copied there).
  'probe-rs': { mutate: ['indexer/sources/probe-rs.ts', 'indexer/sources/probe-rs/*.ts'], tests: ['test/indexer/probe-rs-edges.test.ts', 'test/indexer/probe-rs.test.ts'] },
  'nxp-features': { mutate: ['indexer/sources/nxp-features.ts', 'indexer/sources/nxp-features/*.ts'], tests: ['test/indexer/nxp-features-edges.test.ts', 'test/indexer/nxp-features.test.ts'] },
  modm: { mutate: ['indexer/sources/modm.ts', 'indexer/sources/modm/*.ts'], tests: ['test/indexer/modm-edges.test.ts', 'test/indexer/modm.test.ts'] },
  'stm32-data': { mutate: ['indexer/sources/stm32-data.ts', 'indexer/sources/stm32-data/*.ts'], tests: ['test/indexer/stm32-data-edges.test.ts', 'test/indexer/stm32-data.test.ts'] },
  // POST /v1/check in two runs of about half an hour and twenty minutes (1,085 mutants at about 3 s each here): `check`, the
  // entries and the findings of each topic (check.ts 1-388, pins.ts), on hand-made inputs (test/check/check-edges.test.ts:
  // pins facts as stored bodies, limit, DMA, errata and clock facts as read); `check-answer`, the answer (Check: status,
  // validity, order, pin reads, the token budget) over the core corpus release the run builds once, without an app.
  check: { mutate: ['src/service/check.ts:1-388', 'src/service/pins.ts'], tests: ['test/check/check-edges.test.ts'] },
  'check-answer': { mutate: ['src/service/check.ts:389-601'], tests: ['test/check/check-edges.test.ts'] },
  // Agreement between sources on in-memory stores (plans, matchers by name, number and address range, discrepancies).
  'cross-check': { mutate: ['src/service/cross-check.ts'], tests: ['test/service/cross-check*.test.ts'] },
  // The SQLite store, the stored body's lazy reader, the revision rule and the data directory, on a hand-made
  // release of two shards (test/store/sqlite-edges.test.ts: written by the indexer's shard writer in the temp
  // directory, well under a second) and hand-written bodies and data directories. The conformance suite
  // (test/store/sqlite.test.ts: the whole corpus release against a brute-force model) is left out: it takes
  // minutes, which every mutant the focused suites leave would pay.
  'store-sqlite': {
    mutate: ['src/store/sqlite/*.ts', 'src/store/fact-body.ts', 'src/store/revisions.ts', 'src/store/layout.ts'],
    tests: ['test/store/sqlite-edges.test.ts', 'test/store/fact-body-layout.test.ts', 'test/store/revisions.test.ts', 'test/store/statement-cache.test.ts']
  },
  // The one token-budgeted pager of context and compare, on hand-made heads and items (no release).
  pager: { mutate: ['src/service/pager.ts'], tests: ['test/service/pager-edges.test.ts', 'test/service/pager.test.ts'] },
  // The service layer outside the context page (which `context` mutates): the release a request reads, the
  // answer cache, resolution and its statuses, catalog search and part, the answers without facts and their
  // budget, the store query of a page; over an in-memory repository of a hand-made catalog (no release).
  facts: { mutate: ['src/service/facts.ts:1-432', 'src/service/facts.ts:676-784'], tests: ['test/service/facts-edges.test.ts'] },
  // The MCP tool layer and its token budget: argument checking, tool errors and which service operation each tool
  // runs, on a stub service; the budget search on a hand-made service (no release, no app: seconds a mutant). The
  // route is a module of its own: a third of these mutants are static (the tool list and its descriptions), and each
  // static mutant reruns every listed suite.
  mcp: { mutate: ['src/mcp/tools.ts', 'src/mcp/budget.ts'], tests: ['test/mcp/budget-units.test.ts', 'test/mcp/tools-units.test.ts'] },
  // POST /mcp on the route alone in a bare Fastify app (the contract's schemas, no release; hooks that fail as the app's
  // do): every JsonRpcError, the SSE and JSON answers, the headers a hijacked reply keeps (test/mcp/route-units.test.ts).
  'mcp-route': { mutate: ['src/mcp/route.ts'], tests: ['test/mcp/route-units.test.ts'] },
  // The text renderings of the tool results on hand-made bodies of each schema (no release, milliseconds a mutant).
  'mcp-text': { mutate: ['src/mcp/text.ts'], tests: ['test/mcp/text-units.test.ts'] },
  // The service's small supports on hand-made inputs (test/service/support-units.test.ts, no release, no app): readAll's
  // batches over a stub store, the archived sources' re-hash, the MCP server over an in-memory transport. The same file
  // checks the error table's rows (statuses and retryability against the spec and HTTP), which no module mutates:
  // Stryker makes no mutant inside an `as const` literal (errors.ts 1-167 gives none; its functions are http-errors').
  'service-support': {
    mutate: ['src/service/read-all.ts', 'src/service/source-check.ts', 'src/mcp/server.ts'],
    tests: ['test/service/support-units.test.ts']
  },
  // What the process reads and opens before serving: the configuration, the heap bound, the cursor secret, the backends
  // (the SQLite store, the rate-limit Redis and its breaker, on a Redis the test starts and on ports that refuse or hang).
  // src/server.ts is not here: only its own process runs it (test/http/server-process.test.ts), out of Stryker's sight.
  startup: {
    mutate: ['src/config.ts', 'src/memory.ts', 'src/auth/cursor-secret.ts', 'src/backends.ts'],
    tests: ['test/config.test.ts', 'test/auth/cursor-secret.test.ts', 'test/startup-units.test.ts']
  },
  // The request helpers of the HTTP layer (Service-Version, methods, strict query and integers, request target, cache
  // headers, the contract's documents, the /v1 operation declaration) on a bare Fastify app with only them and the Problem
  // layer (test/http/http-units.test.ts: inline routes, the contract's schemas only where a test reads the document).
  http: {
    mutate: ['src/http/contract.ts', 'src/http/headers.ts', 'src/http/integers.ts', 'src/http/methods.ts', 'src/http/querystring.ts', 'src/http/request-target.ts', 'src/http/versions.ts', 'src/http/fact-route.ts'],
    tests: ['test/http/http-units.test.ts']
  },
  // The app as buildApp assembles it (Fastify's options, request ids, the hooks' order, the route list), the drain and the
  // served files' check: test/http/app-units.test.ts on one app over the sample corpus' release (built in its first test:
  // what buildApp decides runs once, so that test checks each option, hook and route once), then the release-files and
  // drain suites, each building its app inside a test (an app built in a hook would make every mutant of buildApp static).
  'http-app': {
    mutate: ['src/http/app.ts', 'src/http/drain.ts', 'src/http/release-files.ts'],
    tests: ['test/http/app-units.test.ts', 'test/http/release-files.test.ts', 'test/http/drain.test.ts']
  },
  // Each route plugin alone on baseApp (the app without its routes) over the sample corpus' release: its declaration in
  // the contract's document and its answer against the service's own call (test/http/routes-units.test.ts). Most of these
  // mutants are declarations: each builds the app of its own route (a second or less), not the whole app.
  'http-routes': { mutate: ['src/http/routes/**/*.ts'], tests: ['test/http/routes-units.test.ts'] },
  // The search-engine store: names, documents, the query DSL, the transport seam and the repository's memo without an
  // engine (test/store/engine-units.test.ts: a local HTTP server stands in for the clients' peer), then every query
  // filter on a real OpenSearch over a hand-made release of 13 facts (test/store/engine-store.test.ts, loaded once a run:
  // a few seconds a mutant). Needs OPENSEARCH_URL (`.ci/services.sh opensearch-start`, `eval "$(.ci/services.sh env)"`).
  'store-engine': {
    mutate: ['src/store/search-engine/*.ts', 'src/store/types.ts', 'src/store/errors.ts', 'src/store/hash-files.ts'],
    tests: ['test/store/engine-units.test.ts', 'test/store/engine-store.test.ts'],
    requires: ['OPENSEARCH_URL']
  },
  // The engine loader on a real OpenSearch (test/store/engine-edges.test.ts: loads, reloads, refusals, bulk retries through
  // transports that fail or doctor requests, promotion, retirement, listing; each test under its own prefix). Loads cost a
  // second or two each on the shared box, so a mutant that survives pays about a minute: `engine-cli`, the command's
  // options and output over the same suite, is a module of its own (only the command's two tests cover it).
  'engine-loader': { mutate: ['indexer/engine.ts'], tests: ['test/store/engine-edges.test.ts'], requires: ['OPENSEARCH_URL'] },
  'engine-cli': { mutate: ['indexer/engine-cli.ts'], tests: ['test/store/engine-edges.test.ts'], requires: ['OPENSEARCH_URL'] },
  // The model's rules outside the tokenizer (which `context` mutates) and the text key (`resolve`): the pre-tokenizer's
  // scanner against gpt-tokenizer's own pattern, fact terms, signal peripherals, contract versions and topics, the
  // package version (catalog.ts and source.ts declare types only: no mutants). Milliseconds a mutant.
  model: {
    mutate: ['src/model/catalog.ts', 'src/model/fact-terms.ts', 'src/model/fact.ts', 'src/model/pre-tokenizer.ts', 'src/model/signals.ts', 'src/model/source.ts', 'src/model/versions.ts', 'src/version.ts'],
    tests: ['test/model/model-units.test.ts']
  },
  // The TypeBox schemas in three runs (1,060 mutants after the descriptions; at 3 to 6 s a static mutant on the shared box,
  // one run would take one or two hours): `schemas`, the helpers that make components, inlined schemas, outlines and each
  // version's form, and the request parameters against the spec's tables; `schema-bodies` (facts, the catalog's parts,
  // discrepancies) and `schema-responses` (the operations' bodies, compare, check): the bodies against the spec and the
  // schema files' own rules (which objects stay open, ids, patterns, enums, bounds) and hand-made right and wrong bodies.
  // No release, no app. Every mutant of a declaration is static (it runs every listed test); description texts are
  // documentation, ignored (DescriptionText, test/mutation/description-ignorer.mjs).
  schemas: {
    mutate: ['src/schemas/components.ts', 'src/schemas/versions.ts', 'src/schemas/params.ts'],
    tests: ['test/schemas/load-units.test.ts', 'test/schemas/schema-units.test.ts', 'test/schemas/components-units.test.ts', 'test/schemas/versions.test.ts'],
    ignorers: ['DescriptionText']
  },
  'schema-bodies': {
    mutate: ['src/schemas/facts.ts', 'src/schemas/catalog.ts', 'src/schemas/discrepancies.ts'],
    tests: ['test/schemas/load-units.test.ts', 'test/schemas/bodies-units.test.ts', 'test/schemas/schema-units.test.ts'],
    ignorers: ['DescriptionText']
  },
  'schema-responses': {
    mutate: ['src/schemas/responses.ts', 'src/schemas/compare.ts', 'src/schemas/check.ts'],
    tests: ['test/schemas/load-units.test.ts', 'test/schemas/bodies-units.test.ts', 'test/schemas/schema-units.test.ts'],
    ignorers: ['DescriptionText']
  },
  // The indexer's shared pieces outside the adapters: the XML tree, source lines and excerpts, memory values, results and
  // their merge across sources, on hand-made inputs (test/indexer/support-edges.test.ts imports no adapter).
  'indexer-support': {
    mutate: ['indexer/xml.ts', 'indexer/sources/evidence.ts', 'indexer/sources/memory.ts', 'indexer/sources/merge.ts', 'indexer/sources/types.ts'],
    tests: ['test/indexer/support-edges.test.ts']
  },
  // The curation file, the catalog's targets and the reachability check, on hand-made files, targets and catalogs.
  'indexer-curation': { mutate: ['indexer/curation/curation.ts', 'indexer/curation/reach.ts'], tests: ['test/indexer/curation-edges.test.ts'] },
  // The parse step: units, a unit's own facts, parseUnit into the parse cache, parseAll on this thread, in worker threads
  // (startWorker), from the cache and failing, a unit's request to a worker on a stand-in; the adapter list and the
  // stopwatch. Scratch archives, tiny SVDs. parse-worker.ts is not here: it runs only inside worker threads, where
  // Stryker's switch for the active mutant is never set (its replies are checked through parseAll).
  parse: {
    mutate: ['indexer/parse-units.ts', 'indexer/workers.ts', 'indexer/sources/index.ts', 'indexer/stopwatch.ts'],
    tests: ['test/indexer/parse-edges.test.ts']
  },
  // The hwfacts commands (main, in-process: exit codes, stdout and stderr) and what they run (releases, fetch against a
  // local HTTP server) on tiny corpora in scratch directories. Not mutated: the program wrapper (exitWhenFlushed and the
  // isMain block, 189-214), which only a spawned CLI runs (test/indexer/cli-output.test.ts).
  'indexer-cli': { mutate: ['indexer/cli.ts:1-188', 'indexer/releases.ts', 'indexer/fetch.ts'], tests: ['test/indexer/cli-edges.test.ts'] }
}
