import { parentPort } from 'node:worker_threads'
import { WriteError } from './inventory.js'
import { writeTerms, type RangePlan, type TermsReply } from './terms.js'

/** Worker thread of writeTermsInWorker: writes one release's full-text index and says when it is done. */
parentPort!.once('message', ({ file, plan }: { file: string; plan: RangePlan[] }) => {
  let reply: TermsReply
  try {
    writeTerms(file, plan)
    reply = { done: true }
  } catch (err) {
    reply = err instanceof WriteError ? { error: err.message, write: true } : { error: (err as Error).stack ?? String(err), write: false }
  }
  parentPort!.postMessage(reply)
})
