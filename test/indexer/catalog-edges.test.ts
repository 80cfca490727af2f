import { describe, it } from 'vitest'
describe('catalog edges', () => { it('placeholder', () => {}) })
