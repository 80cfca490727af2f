import { expect } from 'vitest'

type Obj = Record<string, any>

const PROBLEM_MEMBERS = ['code', 'detail', 'docUrl', 'error', 'message', 'param', 'request_id', 'requestId', 'status', 'title', 'type']

/** A Problem body: the spec's members (instance optional), the code, and nothing taken from the client. */
export function expectProblem(res: { statusCode: number; headers: Obj; body: string }, status: number, code: string, param: string | null = null): Obj {
  expect(res.statusCode, res.body).toBe(status)
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/)
  expect(res.headers['x-content-type-options']).toBe('nosniff')
  expect(res.headers['cache-control']).toBe('no-store')
  const p = JSON.parse(res.body) as Obj
  expect(Object.keys(p).filter((k) => k !== 'instance').sort()).toEqual([...PROBLEM_MEMBERS].sort())
  expect(p).toMatchObject({ status, code, error: code, param })
  return p
}
