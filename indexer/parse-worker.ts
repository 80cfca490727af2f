import { parentPort } from 'node:worker_threads'
import { parseUnit, type ParseUnit } from './parse-units.js'

/** Worker thread of parseAll: parses each unit it is sent and posts the result back. */
parentPort!.on('message', (unit: ParseUnit) => parentPort!.postMessage(parseUnit(unit)))
