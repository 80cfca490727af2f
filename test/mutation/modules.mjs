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
  // Context paging and token budgeting live in HardwareFacts.context/contextIn, and the tokenizer wrapper.
  context: { mutate: ['src/service/facts.ts:433-675', 'src/model/tokens.ts'], tests: ['test/service/context*.test.ts', 'test/model/tokens*.test.ts', 'test/http/rest.test.ts'] },
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
  // Fact encoding, shard writing and the parse cache on a few hand-written facts (no corpus, no build).
  'encode-shard': { mutate: ['indexer/encode.ts', 'indexer/shard.ts', 'indexer/parse-cache.ts'], tests: ['test/indexer/encode-shard.test.ts'] },
  // The release writer on tiny hand-made corpora (a few small files in a temp dir: a build takes well under a second).
  'release-writer': { mutate: ['indexer/build.ts'], tests: ['test/indexer/release-writer.test.ts'] },
  // The catalog's rules on hand-made target summaries (no corpus, no build).
  catalog: { mutate: ['indexer/curation/catalog.ts'], tests: ['test/indexer/catalog.test.ts', 'test/indexer/catalog-edges.test.ts'] },
  // Resolution of both sides, the status, the page cache key and the differences (releases, parts, pins) on two tiny
  // hand-written releases (test/service/compare-edges.test.ts, built once in the temp directory: about a second a
  // mutant). Not mutated here: the JSON writer and the paging step (76-155, 355-421), over the pager that context
  // shares (src/service/pager.ts), which no module mutates yet.
  compare: { mutate: ['src/service/compare.ts:157-353', 'src/service/compare.ts:424-570'], tests: ['test/service/compare-edges.test.ts'] },
  // The MCP tool layer and its token budget: argument checking, tool errors and which service operation each tool
  // runs, on a stub service; the budget search on a hand-made service (no release, no app: seconds a mutant). The
  // route is a module of its own: a third of these mutants are static (the tool list and its descriptions), and each
  // static mutant reruns every listed suite.
  mcp: { mutate: ['src/mcp/tools.ts', 'src/mcp/budget.ts'], tests: ['test/mcp/budget-units.test.ts', 'test/mcp/tools-units.test.ts'] },
  // POST /mcp on the route alone in a bare Fastify app (the contract's schemas, no release; hooks that fail as the app's
  // do): every JsonRpcError, the SSE and JSON answers, the headers a hijacked reply keeps (test/mcp/route-units.test.ts).
  'mcp-route': { mutate: ['src/mcp/route.ts'], tests: ['test/mcp/route-units.test.ts'] },
  // The text renderings of the tool results on hand-made bodies of each schema (no release, milliseconds a mutant).
  'mcp-text': { mutate: ['src/mcp/text.ts'], tests: ['test/mcp/text-units.test.ts'] }
}
