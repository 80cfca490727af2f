import { Client } from '@opensearch-project/opensearch'
import { adaptClient, type EngineTransport, type TransportOptions } from './transport.js'

/** OpenSearch through `@opensearch-project/opensearch`, whose transport always returns the envelope. */
export function opensearchTransport(url: string, opts: TransportOptions): EngineTransport {
  const client = new Client({ node: url, requestTimeout: opts.requestTimeoutMs ?? 10_000, maxRetries: opts.maxRetries ?? 2 })
  return adaptClient('opensearch', (params, options) => client.transport.request(params, options), () => client.close())
}
