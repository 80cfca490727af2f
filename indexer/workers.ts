import { Worker } from 'node:worker_threads'

/**
 * A worker thread running the indexer module `name` (e.g. `parse-worker`): compiled JavaScript in a
 * build; run from TypeScript sources (tsx, tests), the worker registers tsx's loader first, as a
 * worker does not inherit its parent's module hooks.
 */
export function startWorker(name: string): Worker {
  const ext = import.meta.url.endsWith('.ts') ? '.ts' : '.js'
  const entry = new URL(`./${name}${ext}`, import.meta.url)
  if (ext === '.js') return new Worker(entry)
  return new Worker(`import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(entry.href)}) })`, { eval: true })
}
