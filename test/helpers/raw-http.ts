import { connect } from 'node:net'

type Obj = Record<string, any>

/** Writes `chunks` to a raw socket with `gapMs` between them; resolves with what the server sent and when it closed. */
export function raw(port: number, chunks: Array<string | Buffer>, gapMs = 0, giveUpMs = 8000): Promise<{ text: string; closedAfterMs: number }> {
  return new Promise((resolve) => {
    const t0 = performance.now()
    const s = connect(port, '127.0.0.1')
    let text = ''
    let i = 0
    const timer = setInterval(() => {
      if (i < chunks.length && s.writable) s.write(chunks[i++]!)
    }, Math.max(gapMs, 1))
    const end = () => {
      clearInterval(timer)
      clearTimeout(giveUp)
      resolve({ text, closedAfterMs: performance.now() - t0 })
    }
    const giveUp = setTimeout(() => {
      s.destroy()
      end()
    }, giveUpMs)
    s.on('data', (d) => (text += d.toString('latin1')))
    s.on('close', end)
    s.on('error', () => {})
  })
}

export function parseRaw(text: string): { statusCode: number; headers: Obj; body: string } {
  const [head = '', body = ''] = text.split('\r\n\r\n')
  const [status, ...lines] = head.split('\r\n')
  const headers: Obj = {}
  for (const l of lines) headers[l.slice(0, l.indexOf(':')).toLowerCase()] = l.slice(l.indexOf(':') + 1).trim()
  return { statusCode: Number(status!.split(' ')[1]), headers, body }
}
