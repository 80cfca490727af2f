import { describe, expect, it } from 'vitest'
import { loadConfig } from '../src/config.js'

describe('configuration from the environment', () => {
  it('bounds the heap growth at 30 % by default; 0 leaves V8 its own policy', () => {
    expect(loadConfig({}).heapGrowthPercent).toBe(30)
    expect(loadConfig({ HWFACTS_HEAP_GROWTH_PERCENT: '0' }).heapGrowthPercent).toBe(0)
    expect(loadConfig({ HWFACTS_HEAP_GROWTH_PERCENT: '25' }).heapGrowthPercent).toBe(25)
  })

  it('refuses a value that is not a whole number in range, naming the variable', () => {
    for (const bad of ['-1', '1.5', 'fifty', ' 50x'])
      expect(() => loadConfig({ HWFACTS_HEAP_GROWTH_PERCENT: bad })).toThrow(`HWFACTS_HEAP_GROWTH_PERCENT must be an integer ≥ 0, not ${JSON.stringify(bad)}`)
    expect(() => loadConfig({ HWFACTS_CONTEXT_CACHE_MB: '-2' })).toThrow('HWFACTS_CONTEXT_CACHE_MB must be an integer ≥ 0')
    expect(() => loadConfig({ HWFACTS_RATE_LIMIT_MAX: '0' })).toThrow('HWFACTS_RATE_LIMIT_MAX must be an integer ≥ 1')
  })
})
