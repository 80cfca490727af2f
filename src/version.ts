import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The package's own version, read from its package.json (beside src/ when run with tsx, two levels up from dist/src/). */
function packageVersion(): string {
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    const file = join(dir, 'package.json')
    if (existsSync(file)) return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version
    if (dirname(dir) === dir) throw new Error('package.json not found above ' + fileURLToPath(import.meta.url))
  }
}

export const PACKAGE_VERSION = packageVersion()
