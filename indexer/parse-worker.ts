import { parentPort } from 'node:worker_threads'
import { WriteError } from './inventory.js'
import { parseUnit, type ParseUnit, type WorkerReply } from './parse-units.js'

/** Worker thread of parseAll: parses each unit it is sent into the parse cache and posts back its summary. */
parentPort!.on('message', ({ unit, dataRoot }: { unit: ParseUnit; dataRoot: string }) => {
  let reply: WorkerReply
  try {
    reply = { summary: parseUnit(unit, dataRoot) }
  } catch (err) {
    reply = { error: (err as Error).stack ?? String(err), write: err instanceof WriteError }
    if (err instanceof WriteError) reply.error = err.message
  }
  parentPort!.postMessage(reply)
})
