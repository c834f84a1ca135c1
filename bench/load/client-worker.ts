/**
 * Entry of the load client's worker thread: runs one phase's requests on its own event loop,
 * so the client's stamps and parsing never delay (or get delayed by) the in-process server on
 * the main thread. Posts each record as it completes, then `done`.
 */
import { parentPort } from 'node:worker_threads';
import type { Target } from './client';
import type { PhaseInput } from './driver';
import { runPhase } from './driver';

parentPort?.once('message', (message: { target: Target; input: PhaseInput }) => {
  runPhase(message.target, message.input, (record) =>
    parentPort?.postMessage({ type: 'record', record }),
  ).then(
    (records) => parentPort?.postMessage({ type: 'done', records }),
    (error: Error) => parentPort?.postMessage({ type: 'failed', message: error.stack ?? error.message }),
  );
});
