import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { countTokens as reference } from 'gpt-tokenizer/encoding/cl100k_base'
import { describe, expect, it } from 'vitest'
import { countTokens } from '../../src/model/tokens.js'
import { DataDir } from '../../src/store/layout.js'
import { corpusDataDir } from '../helpers/corpus-release.js'

describe('countTokens', () => {
  it('equals the reference cl100k_base count on source texts, ASCII and not', () => {
    const texts = [
      readFileSync(join(process.cwd(), '..', 'shared', 'corpus', 'errata', 'nordic', 'nrf52_erratas.h'), 'utf8').slice(0, 60_000),
      readFileSync(join(process.cwd(), '..', 'shared', 'corpus', 'svd', 'Espressif', 'esp32.svd'), 'utf8').slice(0, 60_000),
      'Température ambiante −40 °C … 85 °C, µA/MHz, naïve café 日本語 😀',
      "it's they'll we've I'M   \n\n  trailing   ",
      ''
    ]
    for (const t of texts) for (let i = 0; i < t.length; i += 1999) expect(countTokens(t.slice(i, i + 3000))).toBe(reference(t.slice(i, i + 3000)))
  })

  it('the token counts stored with every fact of the corpus release match the reference on a sample', async () => {
    const dir = await corpusDataDir()
    const db = new Database(new DataDir(dir).releaseDb(new DataDir(dir).promotedId()!), { readonly: true })
    const rows = db.prepare('SELECT tokens, body FROM facts WHERE ord % 97 = 0').all() as Array<{ tokens: number; body: string }>
    db.close()
    expect(rows.length).toBeGreaterThan(1000)
    for (const r of rows) expect(r.tokens).toBe(reference(r.body))
  })
})
