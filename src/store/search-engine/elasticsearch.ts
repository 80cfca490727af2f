import { Client } from '@elastic/elasticsearch'
import { adaptClient, type EngineTransport, type TransportOptions } from './transport.js'

/** Elasticsearch 8 through `@elastic/elasticsearch` (which refuses to talk to OpenSearch). */
export function elasticsearchTransport(url: string, opts: TransportOptions): EngineTransport {
  const client = new Client({ node: url, requestTimeout: opts.requestTimeoutMs ?? 10_000, maxRetries: opts.maxRetries ?? 2 })
  // `meta: true`: this client returns the bare body unless asked for the envelope.
  return adaptClient('elasticsearch', (params, options) => client.transport.request(params, { ...options, meta: true }), () => client.close())
}
