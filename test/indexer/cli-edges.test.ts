import { createHash } from 'node:crypto'
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { dirname, join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { main } from '../../indexer/cli.js'
import { fetchSources, rawUrl } from '../../indexer/fetch.js'
import { PromotionError, promote, readManifest, verify, verifyFiles } from '../../indexer/releases.js'
import type { InventoryRecord } from '../../indexer/inventory.js'
import { DataDir } from '../../src/store/layout.js'
import { scratchDirs } from '../helpers/scratch.js'

/*
 * The `hwfacts` commands (indexer/cli.ts `main`, in this process) and what they run (releases.ts,
 * fetch.ts) on tiny corpora written here: exit codes, the lines on stdout and stderr, errors.
 * Expected lines follow the CLI's usage text and the commands' doc comments; ids and counts are
 * read from the files the commands wrote (manifest.json), not from the commands' answers.
 */

const tmp = scratchDirs()
const sha = (b: Buffer | string) => createHash('sha256').update(b).digest('hex')

/** An SVD of one peripheral P with `registers` registers. */
function svd(device: string, registers: number): string {
  const regs = Array.from({ length: registers }, (_, i) => `<register><name>R${i}</name><addressOffset>0x${(i * 4).toString(16)}</addressOffset><size>32</size></register>`)
  return ['<?xml version="1.0"?>', `<device><name>${device}</name>`, '<peripherals><peripheral><name>P</name><baseAddress>0x1000</baseAddress>', '<registers>', ...regs, '</registers></peripheral></peripherals></device>', ''].join('\n')
}
const BROKEN = '<?xml version="1.0"?>\n<device>\n<name>Bad</name>\n<peripherals>\n'

function corpus(files: Array<{ path: string; text: string; url?: string }>): { dir: string; records: InventoryRecord[] } {
  const dir = tmp('hwfacts-cli-')
  const records = files.map((f) => {
    mkdirSync(dirname(join(dir, f.path)), { recursive: true })
    writeFileSync(join(dir, f.path), f.text)
    return { path: f.path, sha256: sha(f.text), bytes: Buffer.byteLength(f.text), kind: 'cmsis-svd', publisher: 'Acme', license: 'MIT', mediaType: 'application/xml', ...(f.url ? { upstream: { url: f.url } } : {}) }
  })
  writeFileSync(join(dir, 'sources.json'), JSON.stringify({ format: 'hwfacts-source-inventory/1', sources: records }))
  return { dir, records }
}

/** Runs `hwfacts ...args` in this process; what it wrote to stdout and stderr, and its exit code. */
async function run(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = ''
  let err = ''
  const o = vi.spyOn(process.stdout, 'write').mockImplementation((s: string | Uint8Array) => ((out += String(s)), true))
  const e = vi.spyOn(process.stderr, 'write').mockImplementation((s: string | Uint8Array) => ((err += String(s)), true))
  try {
    const code = await main(args)
    return { code, out, err }
  } finally {
    o.mockRestore()
    e.mockRestore()
  }
}
/** The error `hwfacts ...args` throws (the program prints its message and exits 2). */
async function fails(...args: string[]): Promise<Error> {
  const r = await run(...args).then(
    () => undefined,
    (e: unknown) => e as Error
  )
  expect(r).toBeInstanceOf(Error)
  return r!
}

afterEach(() => {
  delete process.env.HWFACTS_DATA_DIR
  delete process.env.HWFACTS_API_KEYS_FILE
})

describe('usage', () => {
  it('no command: the usage on stdout, exit 2; --help or -h: exit 0', async () => {
    const none = await run()
    expect(none.code).toBe(2)
    expect(none.out).toMatch(/^usage:\n {2}hwfacts index <sources-dir\|sources.json>/)
    expect(none.out.endsWith('The data dir defaults to $HWFACTS_DATA_DIR, else ./data.\n')).toBe(true)
    expect(none.err).toBe('')
    for (const h of ['--help', '-h']) expect(await run(h)).toEqual({ code: 0, out: none.out, err: '' })
    expect(await run('index', '--help')).toEqual({ code: 0, out: none.out, err: '' })
  })

  it('an unknown command or missing arguments: the usage on stderr, exit 2', async () => {
    const usage = (await run()).out
    for (const args of [['bogus'], ['toString'], ['index'], ['promote'], ['verify'], ['fetch'], ['keys'], ['keys', 'create'], ['keys', 'make', 'k1'], ['keys', 'create', 'bad key'], ['keys', 'create', 'k'.repeat(65)]]) {
      const r = await run(...args, '--data-dir', tmp('hwfacts-cli-d-'))
      expect(r, args.join(' ')).toEqual({ code: 2, out: '', err: usage })
    }
  })
})

describe('index, releases, promote, verify', () => {
  let dataDir: string
  let data: DataDir
  let good: string
  let partial: string

  beforeAll(async () => {
    dataDir = tmp('hwfacts-cli-data-')
    data = new DataDir(dataDir)
    // One SVD each: one parse unit, parsed on this thread (no worker threads to start).
    good = (await run('index', corpus([{ path: 'svd/Acme/A1.svd', text: svd('A1', 2) }]).dir, '--data-dir', dataDir)).out.trim()
    partial = (await run('index', join(corpus([{ path: 'svd/Acme/Bad.svd', text: BROKEN }]).dir, 'sources.json'), '--data-dir', dataDir)).out.trim()
  })

  it('index: the release id alone on stdout; progress, then the summary on stderr; exit 0 without problems', async () => {
    const a = corpus([{ path: 'svd/Acme/A1.svd', text: svd('A1', 2) }])
    const r = await run('index', a.dir, '--data-dir', dataDir)
    expect(r.code).toBe(0)
    expect(r.out).toBe(`${good}\n`)
    const m = readManifest(data, good)!
    const lines = r.err.trimEnd().split('\n')
    // Not a terminal: plain progress lines, one per stage start and end at most every tenth.
    for (const l of lines.slice(0, -1)) expect(l).toMatch(/^hwfacts: (\S+ \d+\/\d+|coverage: .*)$/)
    for (const n of m.coverageNotes) expect(lines).toContain(`hwfacts: coverage: ${n}`)
    const verifyLines = lines.filter((l) => l.startsWith('hwfacts: verify '))
    expect(verifyLines).toEqual(['hwfacts: verify 1/1'])
    expect(lines.at(-1)).toMatch(
      new RegExp(
        `^hwfacts: release ${good} \\(already kept, unchanged\\): ${m.counts.facts} facts, ${m.counts.parts} parts, ${m.counts.targets} targets, 1 sources, 0 problems; 0 units parsed, 1 from the parse cache; \\{.*\\}$`
      )
    )
    expect(data.promotedId()).toBeUndefined()
  })

  it('index of a new release says written; with problems each is a line (file:line: reason) and the exit code is 1', async () => {
    const m = readManifest(data, partial)!
    expect(m.problems.length).toBe(1)
    const c = corpus([{ path: 'svd/Acme/Bad.svd', text: BROKEN }])
    const d = tmp('hwfacts-cli-data-')
    const r = await run('index', c.dir, '--data-dir', d)
    expect(r.code).toBe(1)
    const id = r.out.trim()
    const mc = readManifest(new DataDir(d), id)!
    const p = mc.problems[0]!
    expect(p.line).toBeGreaterThan(0)
    expect(r.err).toContain(`\nhwfacts: problem: svd/Acme/Bad.svd:${p.line}: ${p.reason}\n`)
    expect(r.err).toContain(`hwfacts: release ${id} written: ${mc.counts.facts} facts, ${mc.counts.parts} parts, ${mc.counts.targets} targets, 1 sources, 1 problems; 1 units parsed, 0 from the parse cache; {`)
    for (const n of mc.coverageNotes) expect(r.err).toContain(`\nhwfacts: coverage: ${n}\n`)
    expect(mc.coverageNotes.length).toBeGreaterThan(0)
  })

  it('index --curation: the file given is read (a problem it acknowledges is a coverage note, exit 0); a problem without a line has none in its line', async () => {
    const c = corpus([{ path: 'svd/Acme/Bad.svd', text: BROKEN }])
    const cur = join(tmp('hwfacts-cli-cur-'), 'mine.json')
    writeFileSync(cur, JSON.stringify({ format: 'hwfacts-curation/2', acknowledged: [{ file: 'svd/Acme/Bad.svd', reason: 'known broken' }] }))
    const r = await run('index', c.dir, '--data-dir', tmp('hwfacts-cli-data-'), '--curation', cur)
    expect(r.code).toBe(0)
    expect(r.err).toMatch(/\nhwfacts: coverage: acknowledged source defect svd\/Acme\/Bad\.svd:\d+: .* \(curation: known broken\)\n/)
    expect(r.err).not.toContain('hwfacts: problem:')
    // Twelve files of an inventory kind no adapter reads: a problem of the file alone each; their
    // verification a progress line each but where it stays within the same tenth (7/12 is 5/10 like 6/12).
    const odd = tmp('hwfacts-cli-odd-')
    const names = Array.from({ length: 12 }, (_, i) => `x${String(i).padStart(2, '0')}.bin`)
    for (const n of names) writeFileSync(join(odd, n), n)
    writeFileSync(join(odd, 'sources.json'), JSON.stringify({ sources: names.map((n) => ({ path: n, sha256: sha(n), bytes: n.length, kind: 'odd', publisher: 'p', license: 'MIT', mediaType: 'application/octet-stream' })) }))
    const o = await run('index', odd, '--data-dir', tmp('hwfacts-cli-data-'))
    expect(o.code).toBe(1)
    for (const n of names) expect(o.err).toContain(`\nhwfacts: problem: ${n}: no adapter for source kind "odd"\n`)
    expect(o.err.split('\n').filter((l) => l.startsWith('hwfacts: verify '))).toEqual([1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 12].map((i) => `hwfacts: verify ${i}/12`))
  })

  it('releases: one line each, the promoted one starred, a partial one marked', async () => {
    const d = tmp('hwfacts-cli-rel-')
    const dd = new DataDir(d)
    const a = corpus([{ path: 'svd/Acme/A1.svd', text: svd('A1', 2) }])
    const b = corpus([{ path: 'svd/Acme/Bad.svd', text: BROKEN }])
    const idA = (await run('index', a.dir, '--data-dir', d, '--promote')).out.trim()
    const idB = (await run('index', b.dir, '--data-dir', d)).out.trim()
    expect(dd.promotedId()).toBe(idA)
    const [mA, mB] = [readManifest(dd, idA)!, readManifest(dd, idB)!]
    const lines = new Map([
      [idA, `* ${idA}  ${mA.createdAt}  ${mA.counts.facts} facts  1 sources`],
      [idB, `  ${idB}  ${mB.createdAt}  ${mB.counts.facts} facts  1 sources  PARTIAL (1 problems)`]
    ])
    const r = await run('releases', '--data-dir', d)
    expect(r).toEqual({ code: 0, out: dd.releaseIds().map((id) => lines.get(id) + '\n').join(''), err: '' })
    expect(await run('releases', '--data-dir', tmp('hwfacts-cli-empty-'))).toEqual({ code: 0, out: '', err: '' })
  })

  it('index --promote: promotes a whole release and says so; a partial one only with --allow-partial', async () => {
    const d = tmp('hwfacts-cli-pro-')
    const a = corpus([{ path: 'svd/Acme/A1.svd', text: svd('A1', 1) }])
    const r = await run('index', a.dir, '--data-dir', d, '--promote')
    const id = r.out.trim()
    expect(r.err.endsWith(`hwfacts: promoted ${id}\n`)).toBe(true)
    expect(new DataDir(d).promotedId()).toBe(id)
    const b = corpus([{ path: 'svd/Acme/Bad.svd', text: BROKEN }])
    const e = await fails('index', b.dir, '--data-dir', d, '--promote')
    expect(e).toBeInstanceOf(PromotionError)
    expect(e.message).toMatch(/^release [0-9a-f]{16} has 1 source problem\(s\) and is partial; not promoted \(use --allow-partial to override\)$/)
    expect(new DataDir(d).promotedId()).toBe(id)
    const ok = await run('index', b.dir, '--data-dir', d, '--promote', '--allow-partial')
    expect(ok.code).toBe(1)
    expect(new DataDir(d).promotedId()).toBe(ok.out.trim())
  })

  it('promote: a kept release, partial only with --allow-partial; an unknown one refused', async () => {
    expect(await run('promote', good, '--data-dir', dataDir)).toEqual({ code: 0, out: `promoted ${good}\n`, err: '' })
    expect(data.promotedId()).toBe(good)
    const e = await fails('promote', partial, '--data-dir', dataDir)
    expect(e.message).toBe(`release ${partial} has 1 source problem(s) and is partial; not promoted (use --allow-partial to override)`)
    expect(data.promotedId()).toBe(good)
    expect(await run('promote', partial, '--data-dir', dataDir, '--allow-partial')).toEqual({ code: 0, out: `promoted ${partial}\n`, err: '' })
    expect(data.promotedId()).toBe(partial)
    for (const id of ['0123456789abcdef', 'not-an-id', '../x']) {
      const u = await fails('promote', id, '--data-dir', dataDir)
      expect(u).toBeInstanceOf(PromotionError)
      expect(u.message).toBe(`no kept release ${id} in ${dataDir}`)
    }
    // The functions as the CLI calls them.
    expect(promote(data, good).counts).toEqual(readManifest(data, good)!.counts)
    expect(() => promote(data, partial)).toThrow(PromotionError)
    expect(promote(data, partial, true).problems.length).toBe(1)
    expect(readManifest(data, 'zz')).toBeUndefined()
    // Only a release id names a manifest, not a path that reaches one.
    expect(readManifest(data, `../releases/${good}`)).toBeUndefined()
  })

  it('verify: every archived artifact and the release files re-hashed; damage named, exit 1', async () => {
    const d = tmp('hwfacts-cli-ver-')
    const dd = new DataDir(d)
    // One SVD (one unit, one shard) and an artifact of a kind no adapter reads: archived and named by the release.
    const a = corpus([{ path: 'svd/Acme/A1.svd', text: svd('A1', 2) }])
    writeFileSync(join(a.dir, 'z.bin'), 'zz')
    const inv = JSON.parse(readFileSync(join(a.dir, 'sources.json'), 'utf8')) as { sources: unknown[] }
    inv.sources.push({ path: 'z.bin', sha256: sha('zz'), bytes: 2, kind: 'odd', publisher: 'p', license: 'MIT', mediaType: 'application/octet-stream' })
    writeFileSync(join(a.dir, 'sources.json'), JSON.stringify(inv))
    const id = (await run('index', a.dir, '--data-dir', d)).out.trim()
    const m = readManifest(dd, id)!
    expect(m.shards!.length).toBe(1)
    expect(await run('verify', id, '--data-dir', d)).toEqual({ code: 0, out: `2/2 archived artifacts verified\nrelease files verified (release.sqlite and 1 shards)\n`, err: '' })
    expect(verify(dd, id)).toEqual([
      { path: 'svd/Acme/A1.svd', ok: true },
      { path: 'z.bin', ok: true }
    ])
    expect(await verifyFiles(dd, id)).toEqual([])
    // A changed archive and a missing one.
    const [s1, s2] = m.sources
    const f1 = join(d, s1!.archivePath)
    chmodSync(f1, 0o644)
    writeFileSync(f1, 'changed')
    rmSync(join(d, s2!.archivePath))
    const bad = await run('verify', id, '--data-dir', d)
    expect(bad.code).toBe(1)
    expect(bad.err).toBe(`hwfacts: svd/Acme/A1.svd: archived bytes hash to ${sha('changed')}\nhwfacts: z.bin: missing archive (ENOENT)\n`)
    expect(bad.out).toBe('0/2 archived artifacts verified\nrelease files verified (release.sqlite and 1 shards)\n')
    // A damaged release file: named under the release directory.
    const top = dd.releaseDb(id)
    chmodSync(top, 0o644)
    writeFileSync(top, Buffer.concat([readFileSync(top), Buffer.from('x')]))
    const files = await verifyFiles(dd, id)
    expect(files.length).toBeGreaterThan(0)
    const worse = await run('verify', id, '--data-dir', d)
    expect(worse.code).toBe(1)
    expect(worse.out).toBe('0/2 archived artifacts verified\n')
    for (const f of files) expect(worse.err).toContain(`hwfacts: ${dd.releaseDir(id)}/${f}\n`)
    const u = await fails('verify', '0123456789abcdef', '--data-dir', d)
    expect(u.message).toBe(`no kept release 0123456789abcdef in ${d}`)
    await expect(verifyFiles(dd, '0123456789abcdef')).rejects.toThrow(`no kept release 0123456789abcdef in ${d}`)
  })
})

describe('verify of release files alone', () => {
  it('intact archives but a damaged release file: exit 1', async () => {
    const d = tmp('hwfacts-cli-ver-')
    const dd = new DataDir(d)
    const id = (await run('index', corpus([{ path: 'svd/Acme/A1.svd', text: svd('A1', 1) }]).dir, '--data-dir', d)).out.trim()
    const top = dd.releaseDb(id)
    chmodSync(top, 0o644)
    writeFileSync(top, Buffer.concat([readFileSync(top), Buffer.from('x')]))
    const r = await run('verify', id, '--data-dir', d)
    expect(r.code).toBe(1)
    expect(r.out).toBe('1/1 archived artifacts verified\n')
    expect(r.err).toMatch(new RegExp(`^hwfacts: ${dd.releaseDir(id)}/`))
  })
})

describe('data directory', () => {
  it('--data-dir, else $HWFACTS_DATA_DIR', async () => {
    const d = tmp('hwfacts-cli-env-')
    const a = corpus([{ path: 'svd/Acme/A1.svd', text: svd('A1', 1) }])
    process.env.HWFACTS_DATA_DIR = d
    const id = (await run('index', a.dir)).out.trim()
    expect(new DataDir(d).releaseIds()).toEqual([id])
    const other = tmp('hwfacts-cli-env-')
    await run('index', a.dir, '--data-dir', other)
    expect(new DataDir(other).releaseIds()).toEqual([id])
  })
})

describe('keys create', () => {
  it('stores the key`s record (not its secret) in the keys file, mode 0600, and prints the secret once', async () => {
    const d = tmp('hwfacts-cli-keys-')
    const r = await run('keys', 'create', 'ci-1', '--data-dir', d)
    expect(r.code).toBe(0)
    const file = join(d, 'api-keys.json')
    expect(r.err).toBe(`hwfacts: added key ci-1 to ${file}; the secret below is not stored anywhere\n`)
    const secret = r.out.trim()
    expect(r.out).toBe(`${secret}\n`)
    expect(statSync(file).mode & 0o777).toBe(0o600)
    const text = readFileSync(file, 'utf8')
    expect(text.endsWith('}\n')).toBe(true)
    expect(text).toContain('\n  "keys": [\n')
    const doc = JSON.parse(text) as { keys: Array<{ id: string }> }
    expect(doc.keys.map((k) => k.id)).toEqual(['ci-1'])
    expect(text).not.toContain(secret)
    expect(text).toContain(sha(secret))
    // A second key joins the first; the same id again is refused.
    expect((await run('keys', 'create', 'A.b_c-2', '--data-dir', d)).code).toBe(0)
    expect((JSON.parse(readFileSync(file, 'utf8')) as { keys: Array<{ id: string }> }).keys.map((k) => k.id)).toEqual(['ci-1', 'A.b_c-2'])
    const e = await fails('keys', 'create', 'ci-1', '--data-dir', d)
    expect(e).toBeInstanceOf(PromotionError)
    expect(e.message).toBe(`${file} already has a key ci-1`)
  })

  it('--keys-file, else $HWFACTS_API_KEYS_FILE, else api-keys.json in the data directory; its directory made', async () => {
    const d = tmp('hwfacts-cli-keys-')
    const given = join(d, 'deep', 'er', 'k.json')
    expect((await run('keys', 'create', 'k1', '--data-dir', d, '--keys-file', given)).code).toBe(0)
    expect(existsSync(given)).toBe(true)
    const env = join(d, 'env', 'keys.json')
    process.env.HWFACTS_API_KEYS_FILE = env
    expect((await run('keys', 'create', 'k2', '--data-dir', d)).code).toBe(0)
    expect(existsSync(env)).toBe(true)
    expect(existsSync(join(d, 'api-keys.json'))).toBe(false)
  })
})

describe('fetch', () => {
  const A = svd('A1', 1)
  const B = svd('B2', 2)
  const served = new Map<string, string>([
    ['/m/svd/Acme/A1.svd', A],
    ['/m/svd/Acme/B2.svd', B],
    ['/gh/o/r/main/svd/A1.svd', A],
    ['/raw/B2', B],
    ['/wrong', 'not the bytes']
  ])
  let server: Server
  let base: string
  beforeAll(async () => {
    server = createServer((req, res) => {
      const body = served.get(req.url ?? '')
      if (body === undefined) {
        res.statusCode = 404
        res.end('no')
      } else res.end(body)
    })
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  afterAll(() => new Promise<void>((r) => server.close(() => r())))

  const rec = (path: string, text: string, upstream?: InventoryRecord['upstream']): InventoryRecord => ({ path, sha256: sha(text), bytes: Buffer.byteLength(text), kind: 'cmsis-svd', publisher: 'Acme', license: 'MIT', mediaType: 'application/xml', ...(upstream ? { upstream } : {}) })
  function inventory(records: InventoryRecord[]): string {
    const dir = tmp('hwfacts-cli-fetch-')
    writeFileSync(join(dir, 'sources.json'), JSON.stringify({ format: 'hwfacts-source-inventory/1', sources: records }))
    return join(dir, 'sources.json')
  }

  it('rawUrl: the mirror (with or without its slash), else rawUrl, else a GitHub blob page`s raw file, else the url', () => {
    const r = rec('svd/Acme/A1.svd', A, { url: 'https://github.com/o/r/blob/v1.2/dir/A1.svd' })
    expect(rawUrl(r)).toBe('https://raw.githubusercontent.com/o/r/v1.2/dir/A1.svd')
    expect(rawUrl(r, 'https://m.example/base')).toBe('https://m.example/base/svd/Acme/A1.svd')
    expect(rawUrl(r, 'https://m.example/base/')).toBe('https://m.example/base/svd/Acme/A1.svd')
    expect(rawUrl(rec('p', A, { url: 'https://github.com/o/r/blob/v1/x', rawUrl: 'https://raw.example/x' }))).toBe('https://raw.example/x')
    expect(rawUrl(rec('p', A, { url: 'https://example.com/x.svd' }))).toBe('https://example.com/x.svd')
    expect(rawUrl(rec('p', A, { url: 'https://github.com/o/r/tree/main/x' }))).toBe('https://github.com/o/r/tree/main/x')
    expect(rawUrl(rec('p', A, { repository: 'o/r' }))).toBeUndefined()
    expect(rawUrl(rec('p', A))).toBeUndefined()
    expect(rawUrl(rec('p', A, { url: 'https://github.com/owner/repo/blob/main/a/b.svd' }))).toBe('https://raw.githubusercontent.com/owner/repo/main/a/b.svd')
  })

  it('downloads from a mirror, checks each digest, archives by content and lays the files out with the inventory', async () => {
    const inv = inventory([rec('svd/Acme/A1.svd', A), rec('svd/Acme/B2.svd', B)])
    const d = tmp('hwfacts-cli-fetch-data-')
    const out = join(tmp('hwfacts-cli-fetch-out-'), 'corpus')
    const r = await run('fetch', inv, '--data-dir', d, '--mirror', `${base}/m`, '--out', out)
    expect(r).toEqual({ code: 0, out: '2 fetched, 0 failed\n', err: 'hwfacts: fetched svd/Acme/A1.svd\nhwfacts: fetched svd/Acme/B2.svd\n' })
    expect(readFileSync(new DataDir(d).archivePath(sha(A)), 'utf8')).toBe(A)
    expect(readFileSync(new DataDir(d).archivePath(sha(B)), 'utf8')).toBe(B)
    expect(readFileSync(join(out, 'svd/Acme/B2.svd'), 'utf8')).toBe(B)
    const copy = readFileSync(join(out, 'sources.json'), 'utf8')
    expect(JSON.parse(copy)).toEqual({ format: 'hwfacts-source-inventory/1', sources: [rec('svd/Acme/A1.svd', A), rec('svd/Acme/B2.svd', B)] })
    expect(copy).toBe(JSON.stringify(JSON.parse(copy), null, 1) + '\n')
  })

  it('each failure is a line (no URL, HTTP status, wrong digest), the rest fetched; exit 1; nothing laid out without --out', async () => {
    const inv = inventory([
      rec('svd/A1.svd', A, { url: `${base}/gh/o/r/main/svd/A1.svd` }),
      rec('none.svd', A),
      rec('gone.svd', A, { url: `${base}/missing` }),
      rec('bad.svd', A, { url: `${base}/wrong` }),
      rec('B2.svd', B, { rawUrl: `${base}/raw/B2` })
    ])
    const d = tmp('hwfacts-cli-fetch-data-')
    const each: string[] = []
    const r = await fetchSources(inv, new DataDir(d), { onEach: (p) => each.push(p) })
    expect(r).toEqual({
      fetched: 2,
      // In path order, as the inventory is read.
      failures: [
        { path: 'bad.svd', reason: `${base}/wrong: sha256 ${sha('not the bytes')} does not match the inventory's ${sha(A)}` },
        { path: 'gone.svd', reason: `${base}/missing: HTTP 404` },
        { path: 'none.svd', reason: 'no upstream URL' }
      ]
    })
    expect(each).toEqual(['B2.svd', 'svd/A1.svd'])
    // Without a callback.
    expect(await fetchSources(inv, new DataDir(tmp('hwfacts-cli-fetch-data-')))).toEqual(r)
    expect(readdirSync(dirname(inv))).toEqual(['sources.json'])
    const cli = await run('fetch', inv, '--data-dir', d)
    expect(cli.code).toBe(1)
    expect(cli.out).toBe('2 fetched, 3 failed\n')
    expect(cli.err).toBe(
      [
        'hwfacts: fetched B2.svd',
        'hwfacts: fetched svd/A1.svd',
        `hwfacts: bad.svd: ${base}/wrong: sha256 ${sha('not the bytes')} does not match the inventory's ${sha(A)}`,
        `hwfacts: gone.svd: ${base}/missing: HTTP 404`,
        'hwfacts: none.svd: no upstream URL',
        ''
      ].join('\n')
    )
  })
})

// Last: it builds the sample corpus (seconds), and a mutant's run stops at the first failing test.
describe('sample', () => {
  it('builds and promotes the sample release when none is promoted; otherwise does nothing', async () => {
    const d = tmp('hwfacts-cli-sample-')
    const r = await run('sample', '--data-dir', d)
    expect(r.code).toBe(0)
    const id = new DataDir(d).promotedId()!
    expect(r.out).toMatch(new RegExp(`^Built and promoted the sample release ${id} from .*/test/fixtures/sample-corpus\\n$`))
    expect(readManifest(new DataDir(d), id)!.problems).toEqual([])
    expect(await run('sample', '--data-dir', d)).toEqual({ code: 0, out: '', err: '' })
    expect(new DataDir(d).releaseIds()).toEqual([id])
  })
})
