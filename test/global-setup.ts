import { corpusDataDir } from './helpers/corpus-release.js'

/** Builds the whole-corpus release once, before the test files fork, so none of them waits on another. */
export default async function setup(): Promise<void> {
  const t = Date.now()
  const dir = await corpusDataDir()
  process.stdout.write(`corpus release ready in ${dir} (${Math.round((Date.now() - t) / 1000)} s)\n`)
}
