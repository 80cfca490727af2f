import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { NoParams } from '../../schemas/params.js'
import { ref } from '../../schemas/components.js'
import { Health } from '../../schemas/responses.js'
import { GET_ERRORS, SERVICE_VERSION_HEADER, errorResponses } from '../fact-route.js'
import type { HardwareFacts } from '../../service/facts.js'
import type { Contract } from '../contract.js'

/** A backend the service depends on when configured (search engine, Redis). */
export interface ReadinessCheck {
  name: string
  /** Whether the service can still answer without it (e.g. rate limits fall back in-process). */
  critical: boolean
  check: () => Promise<{ ok: boolean; detail?: string }>
}

const SERVICE = 'hardware-facts'

export default async function healthRoutes(app: FastifyInstance, opts: { facts: HardwareFacts; contract: Contract; checks: ReadinessCheck[]; version: string }) {
  const schema = (operationId: string, summary: string) => ({
    operationId,
    summary,
    querystring: NoParams,
    headers: SERVICE_VERSION_HEADER,
    security: [],
    response: { 200: ref(Health), 503: ref(Health), ...errorResponses(GET_ERRORS) }
  })
  app.get('/livez', { schema: schema('livez', 'Process liveness'), config: { rateLimit: false } }, async () => ({ status: 'ok', service: SERVICE, version: opts.version }))

  const ready = async (req: FastifyRequest, reply: FastifyReply) => {
    const checks: Record<string, unknown> = {}
    let ok = true
    let release: unknown = null
    if (app.draining) {
      ok = false
      checks.shutdown = { ok: false, detail: 'shutting down: finishing requests in flight' }
    }
    try {
      const r = await opts.facts.release()
      release = { id: r.id, complete: r.complete, facts: r.counts.facts }
    } catch (err) {
      ok = false
      checks.release = { ok: false, detail: (err as Error).message }
    }
    for (const c of opts.checks) {
      const r = await c.check().catch((err: Error) => ({ ok: false, detail: err.message }))
      checks[c.name] = { ...r, critical: c.critical }
      if (!r.ok && c.critical) ok = false
    }
    return reply.code(ok ? 200 : 503).send({
      status: ok ? 'ok' : 'not_ready',
      service: SERVICE,
      version: opts.version,
      release,
      api: opts.contract.identity(req.contractVersion),
      checks
    })
  }
  for (const [path, id] of [['/readyz', 'readyz'], ['/health', 'health'], ['/healthz', 'healthz']] as const)
    app.get(path, { schema: schema(id, path === '/readyz' ? 'Release-aware readiness' : 'Alias of /readyz'), config: { rateLimit: false } }, ready)
}
