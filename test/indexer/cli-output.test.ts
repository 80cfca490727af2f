import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { scratchDirs } from '../helpers/scratch.js'

/*
 * The CLI's stderr through a pipe, as CI logs, `| tee` and a parent process see it: writes to a
 * pipe are asynchronous, and exiting before they are flushed loses lines. The child is spawned
 * with both streams as pipes; stderr is not read until the release id has come on stdout (every
 * problem line is written before it), so the pipe fills and the rest of stderr must wait in the
 * child — which then has to flush it before it exits.
 */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..')
const tmp = scratchDirs()

/** An inventory of `n` one-line artifacts of a kind no adapter reads: one problem line each (about 140 bytes). */
function oddInventory(n: number): { dir: string; paths: string[] } {
  const dir = tmp('hwfacts-cli-odd-')
  mkdirSync(join(dir, 'odd'))
  const sources = []
  for (let i = 0; i < n; i++) {
    const path = `odd/${'artifact-'.repeat(6)}${String(i).padStart(5, '0')}.bin`
    const content = Buffer.from(`artifact ${i}\n`)
    writeFileSync(join(dir, path), content)
    sources.push({ path, sha256: createHash('sha256').update(content).digest('hex'), bytes: content.length, kind: 'no-such-kind', publisher: 'test', license: 'CC0-1.0', mediaType: 'application/octet-stream' })
  }
  writeFileSync(join(dir, 'sources.json'), JSON.stringify({ format: 'hwfacts-source-inventory/1', sources }))
  return { dir, paths: sources.map((s) => s.path) }
}

/** Runs the CLI with stdout and stderr as pipes; stderr is read only after stdout has given a line. */
function cliThroughPipes(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'indexer', 'cli.ts'), ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stderr.pause()
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString('utf8')))
    child.stdout.on('data', (b: Buffer) => {
      stdout += b.toString('utf8')
      if (stdout.includes('\n')) child.stderr.resume()
    })
    child.on('error', fail)
    child.on('close', (code) => done({ code, stdout, stderr }))
  })
}

describe('the CLI through a pipe', () => {
  const N = 1500 // about 210 kB of problem lines: more than a pipe holds (64 kB on Linux)
  const { dir, paths } = oddInventory(N)
  const problemLines = (stderr: string) => stderr.split('\n').filter((l) => l.startsWith('hwfacts: problem: '))
  const expected = paths.map((p) => `hwfacts: problem: ${p}: no adapter for source kind "no-such-kind"`)

  it('index: every problem line and the summary arrive, exit code 1', async () => {
    const r = await cliThroughPipes(['index', dir, '--data-dir', tmp('hwfacts-cli-data-')])
    expect(problemLines(r.stderr)).toEqual(expected)
    expect(r.stderr).toMatch(new RegExp(`hwfacts: release [0-9a-f]+ written: 0 facts, 0 parts, 0 targets, ${N} sources, ${N} problems;`))
    expect(r.stdout).toMatch(/^[0-9a-f]+\n$/)
    expect(r.code).toBe(1)
  }, 60_000)

  it('index --promote of a partial release (the error path): every problem line, then why it was not promoted, exit code 2', async () => {
    const r = await cliThroughPipes(['index', dir, '--data-dir', tmp('hwfacts-cli-data-'), '--promote'])
    expect(problemLines(r.stderr)).toEqual(expected)
    const last = r.stderr.trimEnd().split('\n').pop()
    expect(last).toMatch(new RegExp(`^hwfacts: release [0-9a-f]+ has ${N} source problem\\(s\\) and is partial; not promoted`))
    expect(r.code).toBe(2)
  }, 60_000)
})
