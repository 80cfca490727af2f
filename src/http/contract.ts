import { createHash } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { CONTRACT_VERSIONS, type ContractVersion } from '../model/versions.js'
import { forVersion } from '../schemas/versions.js'

type Document = { info: { version: string }; paths: Record<string, object> }

/**
 * Version `v`'s document, derived from the one @fastify/swagger generates from the route schemas:
 * what later versions add left out (src/schemas/versions.ts), paths left without an
 * operation dropped, and `info.version` the version itself.
 */
function documentFor(generated: unknown, v: ContractVersion): Document {
  const doc = forVersion(generated as Document, v)
  doc.info.version = v
  doc.paths = Object.fromEntries(Object.entries(doc.paths).filter(([, item]) => Object.keys(item).length > 0))
  return doc
}

/**
 * The OpenAPI document of each contract version, serialized once when the app is ready. Its bytes
 * are what /openapi.json returns for that version and what the published `sha256:` digest is
 * computed over; nothing in them depends on the host or port serving them.
 */
export class Contract {
  private docs: Map<ContractVersion, { doc: Document; bytes: string; sha: string }> | undefined

  freeze(app: FastifyInstance): void {
    const generated = app.swagger()
    this.docs = new Map(
      CONTRACT_VERSIONS.map((v) => {
        const doc = documentFor(generated, v)
        const bytes = JSON.stringify(doc)
        return [v, { doc, bytes, sha: 'sha256:' + createHash('sha256').update(bytes).digest('hex') }]
      })
    )
  }
  private of(v: ContractVersion) {
    const d = this.docs?.get(v)
    if (d === undefined) throw new Error('contract read before the app was ready')
    return d
  }
  document(v: ContractVersion): Readonly<Document> {
    return this.of(v).doc
  }
  json(v: ContractVersion): string {
    return this.of(v).bytes
  }
  digest(v: ContractVersion): string {
    return this.of(v).sha
  }
  /** The ApiIdentity of a request in version `v`: the version and its document's digest. */
  identity(v: ContractVersion): { version: ContractVersion; openapi_sha256: string } {
    return { version: v, openapi_sha256: this.digest(v) }
  }
}
