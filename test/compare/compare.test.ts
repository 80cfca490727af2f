import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { countTokens } from 'gpt-tokenizer/encoding/cl100k_base'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DataDir } from '../../src/store/layout.js'
import { testApp, type TestApp } from '../helpers/app.js'
import { CORPUS_INVENTORY, corpusDataDir } from '../helpers/corpus-release.js'
import { ContractChecker } from '../helpers/openapi.js'
import { gpioAf, hex8, mcuPinsWithSignal, nordicErrata, svdPeripheral, svdRegisters } from './raw-sources.js'
import { subsetRelease } from './subset-release.js'

type Obj = Record<string, any>
const WIDE = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '.cache', 'corpus-wide')
const haveWide = existsSync(join(WIDE, 'sources.json'))
if (!haveWide) console.log(`compare releases: skipped: ${WIDE} is not unpacked (tar -xJf ../shared/corpus-wide.tar.xz -C .cache)`)
const core = (p: string) => readFileSync(join(CORPUS_INVENTORY, p), 'utf8')

function expectProblem(res: { statusCode: number; headers: Record<string, unknown>; json: () => Obj }, status: number, code: string, param: string | null) {
  expect(res.statusCode).toBe(status)
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/)
  expect(res.json()).toMatchObject({ code, param, status })
}

/** Every entry of a comparison, paged with its cursor; each page checked against its token bound. */
async function all(get: (url: string) => Promise<{ statusCode: number; body: string; json: () => Obj }>, url: string, member: 'entries' | 'changes'): Promise<{ items: Obj[]; pages: number; first: Obj }> {
  const items: Obj[] = []
  let cursor: string | null = null
  let pages = 0
  let first: Obj | undefined
  do {
    const res = await get(url + (cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''))
    expect(res.statusCode).toBe(200)
    const j = res.json()
    first ??= j
    // The bound is on the whole answer, counted with the real tokenizer.
    expect(countTokens(res.body)).toBeLessThanOrEqual(j.page.tokens)
    expect(j.page.tokens).toBeLessThanOrEqual(j.page.maxTokens)
    items.push(...j[member])
    cursor = j.page.nextCursor
    pages++
  } while (cursor)
  return { items, pages, first: first! }
}

describe('GET /v1/compare/parts (core corpus)', () => {
  let t: TestApp
  let contract: ContractChecker
  const get = (url: string, headers: Record<string, string> = {}) => contract.call(t.app, { method: 'GET', url, headers: { ...t.auth, ...headers } })

  beforeAll(async () => {
    t = await testApp(await corpusDataDir(), { rateLimit: { max: 100_000, timeWindowMs: 60_000 } }, [{ releases: ['0000000000000000'] }])
    contract = new ContractChecker(JSON.parse((await t.app.inject({ url: '/openapi.json' })).body))
  })
  afterAll(async () => {
    await t.close()
    expect(contract.checked).toBeGreaterThan(10)
  })

  it('pins: USART1_TX on STM32F407VG and STM32G474RE, pins and AF numbers as the pin-data files give them', async () => {
    const expected = (mcu: string, modes: string) => {
      const m = core(modes)
      return mcuPinsWithSignal(core(mcu), 'USART1_TX').map((pin) => `${pin}/AF${gpioAf(m, pin, 'USART1_TX')}`)
    }
    const f4 = expected('pins/stm32/mcu/STM32F407V(E-G)Tx.xml', 'pins/stm32/mcu/IP/GPIO-STM32F417_gpio_v1_0_Modes.xml')
    const g4 = expected('pins/stm32/mcu/STM32G474R(B-C-E)Tx.xml', 'pins/stm32/mcu/IP/GPIO-STM32G47x_gpio_v1_0_Modes.xml')
    expect(f4).toContain('PA9/AF7')
    const res = await get('/v1/compare/parts?part=STM32F407VG&other=STM32G474RE&topic=pins&signal=usart1_tx&include_same=true')
    const j = res.json()
    expect(j.status).toBe('ok')
    expect(j.entries).toHaveLength(1)
    const e = j.entries[0]
    expect(e.name).toBe('USART1_TX')
    const got = (side: Obj) => side.pins.map((p: Obj) => `${p.pin}/AF${p.af}`)
    expect(got(e.part)).toEqual(f4)
    expect(got(e.other)).toEqual(g4)
    expect(e.status).toBe(JSON.stringify(f4) === JSON.stringify(g4) ? 'same' : 'differs')
    for (const p of [...e.part.pins, ...e.other.pins]) expect(p.evidence[0].sourcePath).toMatch(/^pins\/stm32\/mcu\//)
  })

  it('registers: USART1 of STM32F407VG vs STM32G474RE, every register and field as the two SVDs give them', async () => {
    const a = svdPeripheral(core('svd/STMicro/STM32F407.svd'), 'USART1')
    const b = svdPeripheral(core('svd/STMicro/STM32G474xx.svd'), 'USART1')
    const ra = svdRegisters(a.registersXml)
    const rb = svdRegisters(b.registersXml)
    const { items, pages } = await all(get, '/v1/compare/parts?part=STM32F407VG&other=STM32G474RE&topic=registers&peripheral=USART1&include_same=true&limit=7', 'entries')
    expect(pages).toBeGreaterThan(1)
    const by = new Map(items.map((e) => [e.name, e]))
    expect(by.size).toBe(items.length)
    expect([...by.keys()]).toEqual([...by.keys()].sort((x, y) => (x < y ? -1 : 1)))
    const periph = by.get('USART1')!
    expect(periph.differences).toEqual(a.base === b.base ? [] : [{ member: 'baseAddress', part: hex8(a.base), other: hex8(b.base) }])
    // Registers: on one part only, or compared by address and reset value.
    for (const name of new Set([...ra.keys(), ...rb.keys()])) {
      const e = by.get(`USART1.${name}`)
      expect(e, name).toBeDefined()
      const x = ra.get(name)
      const y = rb.get(name)
      expect(e!.kind).toBe('register')
      expect(e!.status).toBe(!y ? 'only_part' : !x ? 'only_other' : e!.differences.length ? 'differs' : 'same')
      if (x) expect(e!.part.value.address).toBe(hex8(a.base + x.offset))
      if (y) expect(e!.other.value.address).toBe(hex8(b.base + y.offset))
      if (x && y && x.resetValue !== undefined && y.resetValue !== undefined && x.resetValue !== y.resetValue)
        expect(e!.differences.map((d: Obj) => d.member)).toContain('resetValue')
      // Fields of registers on both parts: position and width.
      if (x && y)
        for (const f of new Set([...x.fields.keys(), ...y.fields.keys()])) {
          const fe = by.get(`USART1.${name}.${f}`)!
          const fx = x.fields.get(f)
          const fy = y.fields.get(f)
          expect(fe.status, `${name}.${f}`).toBe(!fy ? 'only_part' : !fx ? 'only_other' : fe.differences.length ? 'differs' : 'same')
          if (fx && fy)
            expect(fe.differences.filter((d: Obj) => d.member !== 'access')).toEqual(
              (['bitOffset', 'bitWidth'] as const).filter((m) => fx[m] !== fy[m]).map((m) => ({ member: m, part: fx[m], other: fy[m] }))
            )
        }
    }
    // What the SVDs say differ, by name: the F407's DR is split into RDR/TDR on the G474, which adds PRESC.
    expect(by.get('USART1.DR')?.status).toBe(ra.has('DR') && !rb.has('DR') ? 'only_part' : expect.any(String))
    expect(by.get('USART1.PRESC')?.status).toBe(rb.has('PRESC') && !ra.has('PRESC') ? 'only_other' : expect.any(String))
    // Without include_same, only the differences; counts still cover everything.
    const diffs = await all(get, '/v1/compare/parts?part=STM32F407VG&other=STM32G474RE&topic=registers&peripheral=USART1&limit=50&max_tokens=16000', 'entries')
    expect(diffs.items.map((e) => e.name)).toEqual(items.filter((e) => e.status !== 'same').map((e) => e.name))
    const c = diffs.first.counts
    expect(c.onlyPart + c.onlyOther + c.differs + c.same).toBe(items.length)
  })

  it('errata: nRF52832 vs nRF52840, which errata the MDK header lists for one and not the other', async () => {
    const h = core('errata/nordic/nrf52_erratas.h')
    const a = nordicErrata(h, '0x06')
    const b = nordicErrata(h, '0x08')
    expect(a.size).toBeGreaterThan(50)
    const { items, first } = await all(get, '/v1/compare/parts?part=nRF52832&other=nRF52840&topic=errata&limit=50&max_tokens=16000', 'entries')
    const names = (status: string) => items.filter((e) => e.status === status).map((e) => Number(e.name.replace('errata.', ''))).sort((x, y) => x - y)
    const sorted = (s: Iterable<number>) => [...s].sort((x, y) => x - y)
    expect(names('only_part')).toEqual(sorted([...a].filter((n) => !b.has(n))))
    expect(names('only_other')).toEqual(sorted([...b].filter((n) => !a.has(n))))
    expect(first.counts.same).toBe([...a].filter((n) => b.has(n)).length)
    expect(items.some((e) => e.status === 'same')).toBe(false)
  })

  it('electrical: limits side by side (the CPU clock as <Frequency> gives it)', async () => {
    const freq = (p: string) => Number(/<Frequency>(\d+)<\/Frequency>/.exec(core(p))![1])
    const res = await get('/v1/compare/parts?part=STM32F407VG&other=STM32G474RE&topic=electrical&include_same=true&fact_names=clock.cpu.max')
    const [e] = res.json().entries
    expect(e.part.value.value).toBe(freq('pins/stm32/mcu/STM32F407V(E-G)Tx.xml'))
    expect(e.other.value.value).toBe(freq('pins/stm32/mcu/STM32G474R(B-C-E)Tx.xml'))
    expect(e.status).toBe(e.part.value.value === e.other.value.value ? 'same' : 'differs')
  })

  it('each side is the fact as /v1/context returns it, typed in the contract by the same Fact schema', async () => {
    const q = 'fact_names=USART1.BRR,USART1.CR1.UE'
    const entries = (await get(`/v1/compare/parts?part=STM32F407VG&other=STM32G474RE&topic=registers&include_same=true&${q}`)).json().entries as Obj[]
    // Context pages in document order, comparisons in name order.
    const facts = async (part: string) => ((await get(`/v1/context?part=${part}&topic=registers&${q}`)).json().facts as Obj[]).sort((x, y) => (x.name < y.name ? -1 : 1))
    expect(entries.map((e) => e.part)).toEqual(await facts('STM32F407VG'))
    expect(entries.map((e) => e.other)).toEqual(await facts('STM32G474RE'))
    const schemas = (await t.app.inject({ url: '/openapi.json' })).json().components.schemas
    for (const side of [schemas.PartDiff.properties.part, schemas.ReleaseChange.properties.from, schemas.ReleaseChange.properties.to])
      expect(side.anyOf).toContainEqual({ $ref: '#/components/schemas/Fact' })
    expect(schemas.PartDiff.properties.differences.items.properties.part).toEqual({ $ref: '#/components/schemas/ComparedValue' })
  })

  it('an ambiguous part is refused with candidates, never picked', async () => {
    const j = (await get('/v1/compare/parts?part=STM32F407&other=STM32G474RE&topic=pins')).json()
    expect(j.status).toBe('ambiguous')
    expect(j.part.status).toBe('ambiguous')
    expect(j.part.candidates.length).toBeGreaterThan(1)
    expect(j.other.status).toBe('resolved')
    expect(j.entries).toEqual([])
  })

  it('max_tokens bounds the whole answer; a cursor continues without overlap and is bound to its comparison', async () => {
    const url = '/v1/compare/parts?part=STM32F407VG&other=STM32G474RE&topic=registers&peripheral=USART1&max_tokens=1500'
    const p1 = await get(url)
    const j1 = p1.json()
    expect(countTokens(p1.body)).toBeLessThanOrEqual(1500)
    expect(j1.page.truncatedBy).toBe('max_tokens')
    const j2 = (await get(`${url}&cursor=${encodeURIComponent(j1.page.nextCursor)}`)).json()
    expect(j2.entries[0].name > j1.entries.at(-1).name).toBe(true)
    // Same request, same bytes.
    expect((await get(url)).body).toBe(p1.body)
    expectProblem(await get(`/v1/compare/parts?part=STM32F407VG&other=STM32G474RE&topic=registers&peripheral=USART2&cursor=${encodeURIComponent(j1.page.nextCursor)}`), 400, 'INVALID_CURSOR', 'cursor')
  })

  it('follows the contract: Problems naming the parameter, auth, release limits, Service-Version, 405', async () => {
    expectProblem(await get('/v1/compare/parts?part=STM32F407VG&topic=pins'), 400, 'MISSING_PARAMETER', 'other')
    expectProblem(await get('/v1/compare/parts?part=STM32F407VG&other=STM32G474RE&topic=registers&signal=USART1_TX'), 400, 'INVALID_PARAMETER', 'signal')
    expectProblem(await get('/v1/compare/parts?part=STM32F407VG&other=STM32G474RE&topic=pins&peripheral=USART1'), 400, 'INVALID_PARAMETER', 'peripheral')
    expectProblem(await get('/v1/compare/parts?part=STM32F407VG&other=STM32G474RE&topic=pins&limit=51'), 400, 'INVALID_PARAMETER', 'limit')
    expectProblem(await get('/v1/compare/parts?part=STM32F407VG&other=STM32G474RE&topic=pins&colour=red'), 400, 'UNKNOWN_PARAMETER', 'colour')
    expectProblem(await get('/v1/compare/parts?part=STM32F407VG&other=STM32G474RE&topic=pins&cursor=abc.def'), 400, 'INVALID_CURSOR', 'cursor')
    expectProblem(await get('/v1/compare/parts?part=STM32F407VG&other=STM32G474RE&topic=pins', { 'service-version': '2020-01-01' }), 400, 'UNSUPPORTED_SERVICE_VERSION', expect.anything() as never)
    expectProblem(await get('/v1/compare/parts?part=STM32F407VG&other=STM32G474RE&topic=pins&corpus_release=0000000000000001', t.keyFor({ releases: ['0000000000000000'] })), 403, 'FORBIDDEN', 'corpus_release')
    expectProblem(await contract.call(t.app, { method: 'GET', url: '/v1/compare/parts?part=STM32F407VG&other=STM32G474RE&topic=pins' }), 401, 'UNAUTHENTICATED', null)
    const post = await contract.call(t.app, { method: 'POST', url: '/v1/compare/parts?part=STM32F407VG&other=STM32G474RE&topic=pins', headers: t.auth })
    expect(post.statusCode).toBe(405)
    const spec = (await t.app.inject({ url: '/openapi.json' })).json()
    expect(spec.paths['/v1/compare/parts'].get.responses['200'].content['application/json'].schema.$ref).toMatch(/ComparePartsResponse$/)
    expect(spec.components.schemas.PartDiff).toBeDefined()
  })

  it('both endpoints: the limits of /v1/context, each refusal naming its parameter; auth, Service-Version and 405 on /v1/compare/releases too', async () => {
    const release = (await get('/v1/release')).json().release.id as string
    const base = {
      parts: '/v1/compare/parts?part=STM32F407VG&other=STM32G474RE&topic=registers',
      releases: `/v1/compare/releases?part=STM32F407VG&topic=registers&from_release=${release}`
    }
    for (const url of Object.values(base)) {
      for (const [q, param] of [
        ['limit=0', 'limit'],
        ['limit=51', 'limit'],
        ['max_tokens=255', 'max_tokens'],
        ['max_tokens=16001', 'max_tokens'],
        [`cursor=${'a'.repeat(513)}`, 'cursor'],
        ['fact_names=,', 'fact_names'],
        ['peripheral=' + 'X'.repeat(65), 'peripheral'],
        ['topic=clocks', 'topic']
      ] as const)
        expectProblem(await get(`${url}&${q}`), 400, 'INVALID_PARAMETER', param)
      expectProblem(await get(url.replace('part=STM32F407VG', 'part=S')), 400, 'INVALID_PARAMETER', 'part')
      expectProblem(await get(url.replace('part=STM32F407VG', `part=${'S'.repeat(129)}`)), 400, 'INVALID_PARAMETER', 'part')
    }
    expectProblem(await get(`${base.releases}&from_release=ABC`), 400, 'INVALID_PARAMETER', 'from_release')
    expectProblem(await get(`${base.parts}&corpus_release=ABC`), 400, 'INVALID_PARAMETER', 'corpus_release')
    expectProblem(await get(base.releases, { 'service-version': '2020-01-01' }), 400, 'UNSUPPORTED_SERVICE_VERSION', expect.anything() as never)
    expect((await get(base.releases, { 'service-version': '2026-08-26' })).statusCode).toBe(200)
    expectProblem(await contract.call(t.app, { method: 'GET', url: base.releases }), 401, 'UNAUTHENTICATED', null)
    expectProblem(await contract.call(t.app, { method: 'GET', url: base.releases, headers: { authorization: 'Bearer not-a-key' } }), 401, expect.any(String) as never, null)
    expect((await contract.call(t.app, { method: 'PUT', url: base.releases, headers: t.auth })).statusCode).toBe(405)
    // Releases not kept, or not the key's: named by their parameter.
    expectProblem(await get(`${base.releases}&to_release=ffffffffffffffff`), 400, 'UNKNOWN_CORPUS_RELEASE', 'to_release')
    expectProblem(await get(`/v1/compare/releases?part=STM32F407VG&topic=registers&from_release=0000000000000001`, t.keyFor({ releases: ['0000000000000000'] })), 403, 'FORBIDDEN', 'from_release')
  })

  it('compare/releases refuses an ambiguous part with candidates, never picking one', async () => {
    const release = (await get('/v1/release')).json().release.id as string
    const j = (await get(`/v1/compare/releases?part=STM32F407&topic=pins&from_release=${release}`)).json()
    expect(j.status).toBe('ambiguous')
    for (const side of [j.from, j.to]) {
      expect(side.status).toBe('ambiguous')
      expect(side.candidates.length).toBeGreaterThan(1)
      expect(side.candidateCount).toBeGreaterThanOrEqual(side.candidates.length)
    }
    expect(j.changes).toEqual([])
    expect(j.counts).toEqual({ added: 0, removed: 0, changed: 0, unchanged: 0 })
  })
})

describe.skipIf(!haveWide)('GET /v1/compare/releases: the core STM32F407 SVD (cmsis-svd-data) against the wide corpus\'s ST SVD', () => {
  const CORE_SVD = 'svd/STMicro/STM32F407.svd'
  const WIDE_SVD = 'svd/STMicro/stm32f4/STM32F407.svd'
  let dir: string
  let from: string
  let to: string
  let t: TestApp
  let contract: ContractChecker
  const get = (url: string, headers: Record<string, string> = {}) => contract.call(t.app, { method: 'GET', url, headers: { ...t.auth, ...headers } })
  const sha = (corpus: string, path: string) => (JSON.parse(readFileSync(join(corpus, 'sources.json'), 'utf8')).sources as Obj[]).find((s) => s.path === path)!.sha256 as string

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hwfacts-compare-'))
    from = await subsetRelease(CORPUS_INVENTORY, [CORE_SVD], dir)
    to = await subsetRelease(WIDE, [WIDE_SVD], dir)
    new DataDir(dir).promote(to)
    t = await testApp(dir, { rateLimit: { max: 100_000, timeWindowMs: 60_000 } }, [{ releases: [to] }, { releases: ['*'] }])
    contract = new ContractChecker(JSON.parse((await t.app.inject({ url: '/openapi.json' })).body))
  }, 120_000)
  afterAll(async () => {
    await t?.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('a changed register address, with both values and both evidences, as the two files give it', async () => {
    const a = svdPeripheral(core(CORE_SVD), 'FSMC')
    const b = svdPeripheral(readFileSync(join(WIDE, WIDE_SVD), 'utf8'), 'FSMC')
    const xa = svdRegisters(a.registersXml).get('BWTR3')!
    const xb = svdRegisters(b.registersXml).get('BWTR3')!
    expect(xa.offset).not.toBe(xb.offset)
    const j = (await get(`/v1/compare/releases?part=STM32F407&topic=registers&from_release=${from}&fact_names=FSMC.BWTR3`)).json()
    expect(j.status).toBe('ok')
    expect(j.to.release).toBe(to)
    expect(j.changes).toHaveLength(1)
    const c = j.changes[0]
    expect(c).toMatchObject({ change: 'changed', name: 'FSMC.BWTR3' })
    expect(c.changedMembers).toEqual(expect.arrayContaining(['address', 'offset']))
    expect(c.from.value.address).toBe(hex8(a.base + xa.offset))
    expect(c.to.value.address).toBe(hex8(b.base + xb.offset))
    expect(c.from.evidence[0].sourceSha256).toBe(sha(CORPUS_INVENTORY, CORE_SVD))
    expect(c.to.evidence[0].sourceSha256).toBe(sha(WIDE, WIDE_SVD))
    expect(j.artifacts).toEqual([
      { path: CORE_SVD, status: 'removed', fromSha256: sha(CORPUS_INVENTORY, CORE_SVD), toSha256: null },
      { path: WIDE_SVD, status: 'added', fromSha256: null, toSha256: sha(WIDE, WIDE_SVD) }
    ])
  })

  it('added and removed facts match what each file has', async () => {
    const wide = readFileSync(join(WIDE, WIDE_SVD), 'utf8')
    const hasFpu = (svd: string) => /<name>FPU<\/name>\s*<description>/.test(svd)
    const j = (await get(`/v1/compare/releases?part=STM32F407&topic=registers&from_release=${from}&fact_names=FPU,FSMC.BCR1.CPSIZE`)).json()
    const by = new Map<string, Obj>(j.changes.map((c: Obj) => [c.name, c]))
    if (hasFpu(core(CORE_SVD)) && !hasFpu(wide)) expect(by.get('FPU')).toMatchObject({ change: 'removed', to: null })
    const cpsize = (svd: string) => svdRegisters(svdPeripheral(svd, 'FSMC').registersXml).get('BCR1')!.fields.has('CPSIZE')
    expect(cpsize(wide)).toBe(true)
    expect(by.get('FSMC.BCR1.CPSIZE')).toMatchObject({ change: cpsize(core(CORE_SVD)) ? 'changed' : 'added', from: cpsize(core(CORE_SVD)) ? expect.anything() : null })
  })

  it('pages in name order within max_tokens, the same as one big page; same request, same bytes', async () => {
    const url = `/v1/compare/releases?part=STM32F407&topic=registers&from_release=${from}&to_release=${to}&fact_name_prefixes=FSMC.`
    const paged = await all(get, `${url}&limit=4&max_tokens=2000`, 'changes')
    expect(paged.pages).toBeGreaterThan(1)
    const big = await all(get, `${url}&limit=50&max_tokens=16000`, 'changes')
    expect(big.pages).toBeLessThan(paged.pages)
    expect(paged.items).toEqual(big.items)
    const names = big.items.map((c: Obj) => `${c.name}`)
    expect(names).toEqual([...names].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0)))
    const c = big.first.counts
    expect(c.added + c.removed + c.changed).toBe(big.items.length)
    expect((await get(`${url}&limit=4`)).body).toBe((await get(`${url}&limit=4`)).body)
  })

  it('the key must be allowed to read both releases; unknown releases and bad ids name their parameter', async () => {
    const url = `/v1/compare/releases?part=STM32F407&topic=registers&from_release=${from}&fact_names=FSMC.BWTR3`
    expectProblem(await get(url, t.keyFor({ releases: [to] })), 403, 'FORBIDDEN', 'from_release')
    expect((await get(url, t.keyFor({ releases: ['*'] }))).statusCode).toBe(200)
    expectProblem(await get(`/v1/compare/releases?part=STM32F407&topic=registers&from_release=ffffffffffffffff`), 400, 'UNKNOWN_CORPUS_RELEASE', 'from_release')
    expectProblem(await get(`/v1/compare/releases?part=STM32F407&topic=registers&from_release=${from}&to_release=XYZ`), 400, 'INVALID_PARAMETER', 'to_release')
    expectProblem(await get(`/v1/compare/releases?part=STM32F407&topic=registers`), 400, 'MISSING_PARAMETER', 'from_release')
    const res = await contract.call(t.app, { method: 'DELETE', url, headers: t.auth })
    expect(res.statusCode).toBe(405)
  })

  it('an artifact at the same path with other bytes is named changed', async () => {
    const moved = await subsetRelease(WIDE, [{ path: WIDE_SVD, as: CORE_SVD }], dir)
    const j = (await get(`/v1/compare/releases?part=STM32F407&topic=registers&from_release=${from}&to_release=${moved}&fact_names=FSMC.BWTR3`)).json()
    expect(j.artifacts).toEqual([{ path: CORE_SVD, status: 'changed', fromSha256: sha(CORPUS_INVENTORY, CORE_SVD), toSha256: sha(WIDE, WIDE_SVD) }])
    expect(j.changes.map((c: Obj) => c.change)).toEqual(['changed'])
  }, 60_000)

  it('a part that does not resolve in one release is refused with why', async () => {
    const j = (await get(`/v1/compare/releases?part=STM32G474RE&topic=registers&from_release=${from}`)).json()
    expect(j.status).toBe('not_found')
    expect(j.changes).toEqual([])
  })
})
