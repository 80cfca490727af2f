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
  context: { mutate: ['src/service/facts.ts:424-657', 'src/model/tokens.ts'], tests: ['test/service/context*.test.ts', 'test/model/tokens*.test.ts', 'test/http/rest.test.ts'] },
  auth: { mutate: ['src/http/auth.ts', 'src/auth/keys.ts'], tests: ['test/http/rest.test.ts', 'test/http/auth*.test.ts', 'test/http/hardening.test.ts', 'test/mcp/http.test.ts'] }
}
