import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import openapiTS, { astToString } from 'openapi-typescript'
import ts from 'typescript'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { testApp, type TestApp } from '../helpers/app.js'
import { corpusDataDir } from '../helpers/corpus-release.js'

/** What a client developer writes against types generated from /openapi.json. */
const CLIENT = `
import type { paths } from './api.js'

type Body<P extends keyof paths> = paths[P]['get'] extends { responses: { 200: { content: { 'application/json': infer B } } } } ? B : never

export function read(ctx: Body<'/v1/context'>, res: Body<'/v1/parts/resolve'>) {
  const locator: string = ctx.facts[0].evidence[0].locator
  const cursor: string | null = ctx.page.nextCursor
  const name: string = res.candidates[0].name
  const tooSmall: boolean = ctx.page.budgetTooSmall
  const fact = ctx.facts[0]
  // The value's shape follows the topic; a register carries its address as hex text.
  const address: string | undefined = fact.topic === 'registers' && 'address' in fact.value ? fact.value.address : undefined
  const status: 'resolved' | 'ambiguous' | 'not_found' = res.status
  const pins = res.topics.pins
  const target: string | undefined = pins.status === 'resolved' ? pins.target.key : undefined
  return { locator, cursor, name, tooSmall, address, status, target }
}
`

/** Generates the types from `doc` and type-checks CLIENT against them (strict); the diagnostics. */
async function compile(dir: string, doc: object): Promise<string[]> {
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, 'api.ts'), astToString(await openapiTS(doc as never)))
  writeFileSync(join(dir, 'client.ts'), CLIENT)
  const program = ts.createProgram([join(dir, 'client.ts')], {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    skipLibCheck: true,
    types: []
  })
  return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'))
}

/** The document with one member of a component renamed, as a careless change to a schema would. */
function renamed(doc: { components: { schemas: Record<string, { properties: Record<string, unknown>; required?: string[] }> } }, component: string, from: string) {
  const copy = structuredClone(doc)
  const s = copy.components.schemas[component]!
  s.properties[`${from}_renamed`] = s.properties[from]
  delete s.properties[from]
  s.required = s.required?.map((r) => (r === from ? `${from}_renamed` : r))
  return copy
}

describe('types generated from /openapi.json with openapi-typescript', () => {
  let t: TestApp
  let doc: Parameters<typeof renamed>[0]
  let dir: string

  beforeAll(async () => {
    t = await testApp(await corpusDataDir())
    doc = (await t.app.inject({ url: '/openapi.json' })).json()
    // Inside the work tree, so the generated client resolves nothing from elsewhere.
    mkdirSync(resolve('.cache'), { recursive: true })
    dir = mkdtempSync(join(resolve('.cache'), 'typed-client-'))
  })
  afterAll(async () => {
    await t?.close()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  it('type-check a client reading facts[0].evidence[0].locator, page.nextCursor and candidates[0].name', async () => {
    expect(await compile(join(dir, 'served'), doc)).toEqual([])
  }, 60_000)

  it('fail to compile that client when any of those members is renamed', async () => {
    for (const [component, member] of [
      ['Evidence', 'locator'],
      ['Page', 'nextCursor'],
      ['Candidate', 'name'],
      ['ContextResponse', 'facts']
    ] as const) {
      const errors = await compile(join(dir, `${component}-${member}`), renamed(doc, component, member))
      // A closed part loses the member; the open top level (spec: additional properties allowed) makes it `unknown`.
      expect(errors.join('\n'), `${component}.${member} renamed`).toMatch(new RegExp(`Property '${member}' does not exist|'ctx\\.${member}' is of type 'unknown'`))
    }
  }, 120_000)
})
