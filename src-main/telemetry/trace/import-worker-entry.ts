import { parentPort } from 'node:worker_threads';
import { TRACE_LIMITS } from '../../limits';
import { buildReport } from '../report/build-report';
import type { Timeline } from '../timeline/schema';
import { TraceImport } from './import-trace';
import type { FromImportWorker, ToImportWorker } from './import-protocol';
import { LineSplitter } from './line-splitter';

// The trace import worker: parses, checks and reports on a trace off the serving thread, then
// hands the timelines back in acknowledged batches, so the main thread never holds a whole
// file's worth of work in one turn. Everything untrusted (JSON, ranges, stamps) is read here.

const port = parentPort!;
const importer = new TraceImport({ skipBadLines: true });
const splitter = new LineSplitter(TRACE_LIMITS.maxLineChars);
let timelines: Timeline[] = [];
let numSent = 0;

const post = (message: FromImportWorker) => port.postMessage(message);

function onMessage(message: ToImportWorker): void {
  switch (message.kind) {
    case 'chunk':
      for (const line of splitter.push(message.text)) importer.add(line);
      return;
    case 'end':
      return summarise();
    case 'commit':
      for (const t of timelines) t.runId = message.runId;
      return sendNext();
    case 'next':
      return sendNext();
    case 'discard':
      timelines = [];
      return port.close();
  }
}

function summarise(): void {
  for (const line of splitter.end()) importer.add(line);
  const result = importer.finish();
  timelines = result.timelines;
  post({
    kind: 'summary',
    numLines: result.numLines,
    numImported: result.numImported,
    rejected: result.rejected,
    numRejected: result.numRejected,
    report: timelines.length > 0 ? buildReport(timelines) : null,
  });
}

function sendNext(): void {
  if (numSent >= timelines.length) {
    post({ kind: 'done' });
    return port.close();
  }
  const batch = timelines.slice(numSent, numSent + TRACE_LIMITS.batchSize);
  numSent += batch.length;
  post({ kind: 'batch', timelines: batch });
}

port.on('message', (message: ToImportWorker) => {
  try {
    onMessage(message);
  } catch (error) {
    post({ kind: 'failed', message: error instanceof Error ? error.message : String(error) });
    port.close();
  }
});
