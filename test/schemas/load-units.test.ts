/**
 * Every schema module loads. Imported inside the test, not at the top: a schema that throws while
 * its module is evaluated (an empty list given to Object.fromEntries, a helper that returns nothing)
 * must fail a test. Suites that import the schemas at the top only fail to collect then, which fails
 * no test, and Stryker counts such a mutant as survived.
 */
import { expect, it } from 'vitest'

it('each schema module loads and exports its schemas', async () => {
  const modules = [
    await import('../../src/schemas/components.js'),
    await import('../../src/schemas/versions.js'),
    await import('../../src/schemas/params.js'),
    await import('../../src/schemas/facts.js'),
    await import('../../src/schemas/catalog.js'),
    await import('../../src/schemas/responses.js'),
    await import('../../src/schemas/compare.js'),
    await import('../../src/schemas/discrepancies.js'),
    await import('../../src/schemas/check.js')
  ]
  for (const m of modules) expect(Object.keys(m).length).toBeGreaterThan(0)
})
