import { readFileSync } from 'node:fs'
import { Instrumenter } from '@stryker-mutator/instrumenter'
import { describe, expect, it } from 'vitest'
// @ts-expect-error: a plain ESM module of the mutation runner, without types
import { strykerPlugins } from './description-ignorer.mjs'

/**
 * The description ignorer under Stryker's own instrumenter, on a whole file: every mutant of the file
 * is placed, so a helper's declaration is wrapped (a switch, a coverage counter, the call that keeps
 * its name) before the calls below it are looked at: what a whole run sees, and a run narrowed to
 * lines does not.
 */
const quiet = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {}, fatal: () => {}, trace: () => {}, isDebugEnabled: () => false, isInfoEnabled: () => false, isTraceEnabled: () => false, isWarnEnabled: () => false, isErrorEnabled: () => false, isFatalEnabled: () => false }
const ignorer = (strykerPlugins as Array<{ name: string; value: unknown }>).find((p) => p.name === 'DescriptionText')!.value

async function mutants(name: string, content: string) {
  const r = await new Instrumenter(quiet as never).instrument([{ name, content, mutate: true }], { plugins: null, excludedMutations: [], ignorers: [ignorer as never] })
  const lines = content.split('\n')
  return r.mutants.map((m) => {
    const { start, end } = m.location
    const original = start.line === end.line ? lines[start.line]!.slice(start.column, end.column) : undefined
    return { line: start.line + 1, original, replacement: m.replacement, ignored: m.status === 'Ignored' }
  })
}

describe('DescriptionText', () => {
  it('ignores a description member, an object of only descriptions, and a string bound to a `description` parameter, wherever the helper is declared', async () => {
    const src = [
      "import { Type } from 'typebox'",
      "const Hex = (description: string) => Type.String({ pattern: '^0x[0-9A-Fa-f]+$', description })",
      "function Text(description: string, nullable = true) { return nullable ? Type.Union([Type.String(), Type.Null()], { description }) : Type.String({ description }) }",
      "const fact = <T extends string>(id: string, topic: T, description: string) => Type.Object({ topic: Type.Literal(topic) }, { $id: id, description })",
      "export const A = Type.Object({ address: Hex('Absolute address.'), access: Text('Access.'), n: Type.Integer({ minimum: 2, description: 'How many.' }) }, { description: 'A thing.' })",
      "export const F = fact('F', 'registers', 'A registers fact.')",
      "export const B = Type.Object({ x: Type.String() }, { $id: 'B' })"
    ].join('\n')
    const all = await mutants('src/schemas/x.ts', src)
    const texts = ["'Absolute address.'", "'Access.'", "'How many.'", "'A thing.'", "'A registers fact.'"]
    for (const t of texts) {
      const of = all.filter((m) => m.replacement === '""' && src.split('\n')[m.line - 1]!.includes(t))
      expect(of.length, t).toBeGreaterThan(0)
    }
    const line = (n: number) => all.filter((m) => m.line === n)
    // The texts (and the `{ description: … }` objects) are ignored; the schemas' behaviour is not.
    expect(line(5).filter((m) => !m.ignored).map((m) => m.replacement)).toContain('{}')
    for (const m of line(5).filter((m) => m.replacement === '""')) expect(m.ignored, JSON.stringify(m)).toBe(true)
    expect(line(6).filter((m) => m.replacement === '""').map((m) => m.ignored)).toEqual([false, false, true])
    expect(line(2).filter((m) => !m.ignored).length).toBeGreaterThan(0)
    expect(line(7).every((m) => !m.ignored)).toBe(true)
  })

  it('on the schema files: every text passed to Hex, Text, fact and perTopic is ignored, and only those texts there', async () => {
    for (const file of ['src/schemas/facts.ts', 'src/schemas/catalog.ts']) {
      const src = readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8')
      const texts = new Set<string>()
      src.split('\n').forEach((l, i) => {
        for (const m of l.matchAll(/\b(?:Hex|Text)\(('[^']*')\)/g)) texts.add(`${i + 1} ${m[1]}`)
        const last = /\b(?:fact|perTopic)\(.*, ('[^']*')\)$/.exec(l)
        if (last) texts.add(`${i + 1} ${last[1]}`)
      })
      expect(texts.size, file).toBeGreaterThan(file.endsWith('facts.ts') ? 20 : 0)
      const all = await mutants(file, src)
      const onTexts = all.filter((m) => texts.has(`${m.line} ${m.original}`))
      expect(onTexts.length, file).toBeGreaterThanOrEqual(texts.size)
      expect(onTexts.filter((m) => !m.ignored).map((m) => `${file}:${m.line} ${m.original}`)).toEqual([])
      // The ids and topics beside them are still mutated.
      expect(all.some((m) => !m.ignored && m.original === "'registers'"), file).toBe(file.endsWith('facts.ts'))
    }
  })
})
