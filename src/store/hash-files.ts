import { Worker } from 'node:worker_threads'

/**
 * The hashing thread: reads each file it is given 1 MiB at a time (a release file is hundreds of
 * MiB: never held whole) and posts `[index, sha256]`, or `[index, null, error code]`. Plain
 * JavaScript, evaluated: it needs only node's own modules, so it runs the same from the TypeScript
 * sources and from a build.
 */
const HASHER = `
const { parentPort, workerData } = require('node:worker_threads')
const { createHash } = require('node:crypto')
const { closeSync, openSync, readSync } = require('node:fs')
const buf = Buffer.allocUnsafe(1 << 20)
workerData.files.forEach((file, i) => {
  let fd
  try {
    fd = openSync(file, 'r')
    const h = createHash('sha256')
    for (let n; (n = readSync(fd, buf, 0, buf.length, null)) > 0; ) h.update(buf.subarray(0, n))
    parentPort.postMessage([i, h.digest('hex')])
  } catch (err) {
    parentPort.postMessage([i, null, err.code ?? err.message])
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
})
`

/**
 * The sha256 of each file, computed in a worker thread so the event loop (and the other core) stays
 * free: `onEach` is called as each file is done, with its digest or, when it cannot be read, null
 * and the error code. Settles when every file is done; rejects if the thread dies. The thread
 * never keeps the process from exiting.
 */
export function hashFiles(files: readonly string[], onEach: (index: number, sha256: string | null, error?: string) => void): Promise<void> {
  if (files.length === 0) return Promise.resolve()
  const worker = new Worker(HASHER, { eval: true, workerData: { files } })
  worker.unref()
  return new Promise<void>((resolve, reject) => {
    let done = 0
    worker.on('message', ([i, sha256, error]: [number, string | null, string?]) => {
      onEach(i, sha256, error)
      if (++done === files.length) resolve()
    })
    worker.on('error', reject)
    worker.on('exit', (code) => done < files.length && reject(new Error(`the hashing thread exited with code ${code}`)))
  }).finally(() => worker.terminate())
}
