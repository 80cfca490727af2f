/**
 * The one seam between the search-engine store and a client library. Elasticsearch 8 and
 * OpenSearch speak the same REST DSL for everything this store does; only the clients' call and
 * error shapes differ, and each adapter (elasticsearch.ts, opensearch.ts) hides exactly that.
 */
export type EngineFlavor = 'elasticsearch' | 'opensearch'

export interface EngineRequest {
  method: 'GET' | 'HEAD' | 'POST' | 'PUT' | 'DELETE'
  path: string
  body?: unknown
  /** An NDJSON body (`_bulk`), sent as is. */
  ndjson?: string
  querystring?: Record<string, string | number | boolean>
  /** Statuses returned as responses instead of thrown (typically 404). */
  ignore?: number[]
  timeoutMs?: number
  /** Client-level retries on connection errors; 0 where the caller retries itself. */
  maxRetries?: number
}

export interface EngineResponse<T> {
  status: number
  body: T
}

export interface EngineTransport {
  readonly flavor: EngineFlavor
  request<T = unknown>(req: EngineRequest): Promise<EngineResponse<T>>
  close(): Promise<void>
}

/** An engine failure with the HTTP status (0: no response) and the engine's error type. */
export class EngineError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    message: string
  ) {
    super(message)
    this.name = 'EngineError'
  }

  /** Worth retrying: overload (429), server errors, or no response at all. */
  get transient(): boolean {
    return this.status === 0 || this.status === 429 || this.status >= 500
  }
}

/** Both clients throw errors carrying `statusCode` and the engine's JSON `body` when there was a response. */
export function toEngineError(err: unknown): EngineError {
  if (err instanceof EngineError) return err
  const e = err as { statusCode?: number; body?: { error?: { type?: string; reason?: string } | string }; message?: string; name?: string }
  const status = typeof e.statusCode === 'number' ? e.statusCode : 0
  const body = e.body?.error
  const type = typeof body === 'object' && body?.type ? body.type : (e.name ?? 'error')
  const reason = typeof body === 'object' && body?.reason ? body.reason : typeof body === 'string' ? body : (e.message ?? String(err))
  return new EngineError(status, type, `${type}: ${reason}`)
}

/** The request shape both clients' `transport.request(params, options)` accept. */
export interface ClientParams {
  method: string
  path: string
  body?: Record<string, unknown>
  bulkBody?: string
  querystring?: Record<string, string | number | boolean>
}
export interface ClientOptions {
  ignore?: number[]
  requestTimeout?: number
  maxRetries?: number
}

/** An EngineTransport over one client's `transport.request`; the adapters differ only in `send`. */
export function adaptClient(
  flavor: EngineFlavor,
  send: (params: ClientParams, options: ClientOptions) => Promise<{ statusCode?: number | null; body: unknown }>,
  close: () => Promise<void>
): EngineTransport {
  return {
    flavor,
    async request<T>(r: EngineRequest): Promise<EngineResponse<T>> {
      const params: ClientParams = {
        method: r.method,
        path: r.path,
        ...(r.body !== undefined ? { body: r.body as Record<string, unknown> } : {}),
        ...(r.ndjson !== undefined ? { bulkBody: r.ndjson } : {}),
        ...(r.querystring ? { querystring: r.querystring } : {})
      }
      const options: ClientOptions = {
        ...(r.ignore ? { ignore: r.ignore } : {}),
        ...(r.timeoutMs ? { requestTimeout: r.timeoutMs } : {}),
        ...(r.maxRetries !== undefined ? { maxRetries: r.maxRetries } : {})
      }
      try {
        const res = await send(params, options)
        return { status: res.statusCode ?? 0, body: res.body as T }
      } catch (err) {
        throw toEngineError(err)
      }
    },
    close
  }
}

export interface TransportOptions {
  /** Per-request timeout unless a request sets its own (default 10 s). */
  requestTimeoutMs?: number
  maxRetries?: number
}

/** Loads only the client library the flavor needs. */
export async function openTransport(url: string, flavor: EngineFlavor, opts: TransportOptions = {}): Promise<EngineTransport> {
  if (flavor === 'elasticsearch') return (await import('./elasticsearch.js')).elasticsearchTransport(url, opts)
  return (await import('./opensearch.js')).opensearchTransport(url, opts)
}
