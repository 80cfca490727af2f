import { countTokens as reference } from 'gpt-tokenizer/encoding/cl100k_base'
import { describe, expect, it } from 'vitest'
import type { FactDraft } from '../../src/model/fact.js'
import { encodeFact } from '../../indexer/encode.js'

/*
 * encodeFact counts a body's tokens piece by piece (cut after the keys "value", "scope" and
 * "evidence", and in the evidence after each "locator" and "excerpt"; recurring pieces counted once): the sum must be the reference tokenizer's
 * count of the whole body, whatever the members hold and whatever was encoded before.
 */

const evidence = (locator: string, excerpt: string) => ({ sourceSha256: 'ab'.repeat(32), sourcePath: 'svd/X/Y.svd', locator, excerpt })
const draft = (name: string, value: Record<string, unknown>, more: Partial<FactDraft> = {}): FactDraft => ({
  target: 'svd:X/Y',
  topic: 'registers',
  name,
  value,
  scope: { device: 'Y' },
  evidence: [evidence('line 1: /device', '<register>')],
  ...more
})

function expectExact(f: FactDraft) {
  const e = encodeFact(f)
  const { target: _t, peripherals: _p, ...rest } = f
  expect(JSON.parse(e.body)).toEqual({ id: e.id, ...rest })
  expect(e.body).toBe(JSON.stringify({ id: e.id, topic: f.topic, name: f.name, value: f.value, scope: f.scope, evidence: f.evidence, ...(f.agreement ? { agreement: f.agreement } : {}) }))
  expect(e.tokens, e.body).toBe(reference(e.body))
}

describe('encodeFact: a body token count from its pieces', () => {
  it('equals the reference where members end in digits, brackets, spaces, quotes or characters past ASCII', () => {
    const values: Array<Record<string, unknown>> = [
      { offset: '0x00', size: 32 },
      { description: 'ends in a space ' },
      { description: 'ends in digits 123' },
      { description: 'quoted "x"', list: ['a', 1, null, true] },
      { description: 'µs and °C', n: 1.5e-7 },
      {},
      { nested: { a: [{ b: 'c]' }] } }
    ]
    const names = ['USART1.CR1', 'A.B[0]', 'x"y', 'PA9 ', '٣', 'errata.109']
    for (const value of values)
      for (const name of names) {
        expectExact(draft(name, value))
        expectExact(draft(name, value, { scope: { device: 'Y', package: 'LQFP100', parts: ['A1', 'B2'] }, agreement: 'agree' }))
        expectExact(draft(name, value, { scope: { device: 'Y', source: 'chip' }, agreement: 'disagree', evidence: [evidence('line 2: "q"', 'a  '), evidence('9', '')] }))
      }
  })

  it('equals the reference whatever the evidence holds: several sources, keys in any order, key-like text', () => {
    const other = { excerpt: 'x', locator: 'line 3', sourcePath: 'p', sourceSha256: 'cd'.repeat(32) }
    const excerpts = ['<a ",\"locator":"x>', 'ends in a letter', 'ends in 42', 'ends in space ', '"', '', 'µ٣ é', '<field>,"excerpt</field>']
    for (const excerpt of excerpts)
      for (const locator of ['line 7: /device/peripheral[name=A]', '","excerpt', 'line 12', ''])
        for (const evidence2 of [[evidence(locator, excerpt)], [evidence(locator, excerpt), evidence('line 1', excerpt)], [other, evidence(locator, excerpt)], [evidence(locator, excerpt), other]])
          expectExact(draft('R', { v: 1 }, { evidence: evidence2 as FactDraft['evidence'], agreement: evidence2.length > 1 ? 'agree' : undefined }))
  })

  it('equals the reference on random members, values and scopes recurring as in a unit', () => {
    let seed = 3
    const random = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 8) / (1 << 24)
    const alphabet = 'aZ09 "\\:,.{}[]_-\t\nµ٣é'
    const text = (max: number) => Array.from({ length: Math.floor(random() * max) }, () => alphabet[Math.floor(random() * alphabet.length)]).join('')
    const pool = Array.from({ length: 40 }, () => ({ description: text(40), access: text(6) }))
    const scopes = Array.from({ length: 5 }, () => ({ device: text(10) }))
    for (let i = 0; i < 3000; i++) {
      const f = draft(text(20), pool[Math.floor(random() * pool.length)]!, { scope: scopes[Math.floor(random() * scopes.length)]!, evidence: [evidence(text(30), text(60))] })
      const e = encodeFact(f)
      expect(e.tokens, e.body).toBe(reference(e.body))
    }
  })
})
