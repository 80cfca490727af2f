import { createHash } from 'node:crypto'
import type { FastifyInstance } from 'fastify'

/**
 * The served OpenAPI document, serialized once when the app is ready. Its bytes are what
 * /openapi.json returns and what the published `sha256:` digest is computed over.
 */
export class Contract {
  private bytes: string | undefined
  private sha: string | undefined

  freeze(app: FastifyInstance): void {
    this.bytes = JSON.stringify(app.swagger())
    this.sha = 'sha256:' + createHash('sha256').update(this.bytes).digest('hex')
  }
  json(): string {
    if (this.bytes === undefined) throw new Error('contract read before the app was ready')
    return this.bytes
  }
  digest(): string {
    return this.sha ?? this.json()
  }
}
