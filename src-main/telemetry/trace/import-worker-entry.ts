import { parentPort } from 'node:worker_threads';
import { TRACE_LIMITS } from '../../limits';
import { TraceImport } from './import-trace';
import type { FromImportWorker, ToImportWorker } from './import-protocol';
import { LineSplitter } from './line-splitter';
import { StagedImport } from './staged-import';

// The trace import worker: parses, checks and reports on a trace off the serving thread, then
// hands the timelines back in acknowledged batches, so the main thread never holds a whole
// file's worth of work in one turn. Everything untrusted (JSON, ranges, stamps) is read here.
// What it holds between reading and committing is staged compactly (staged-import.ts).

const port = parentPort!;
const staged = new StagedImport();
const importer = new TraceImport({ skipBadLines: true }, (timeline, text) => staged.add(timeline, text));
const splitter = new LineSplitter(TRACE_LIMITS.maxLineChars);
let runId: string | null = null;

const post = (message: FromImportWorker) => port.postMessage(message);

function onMessage(message: ToImportWorker): void {
  switch (message.kind) {
    case 'chunk':
      for (const line of splitter.push(message.text)) importer.add(line);
      return;
    case 'end':
      return summarise();
    case 'commit':
      runId = message.runId;
      return sendNext();
    case 'next':
      return sendNext();
    case 'discard':
      staged.clear();
      return port.close();
  }
}

function summarise(): void {
  for (const line of splitter.end()) importer.add(line);
  const result = importer.finish();
  post({
    kind: 'summary',
    numLines: result.numLines,
    numImported: result.numImported,
    rejected: result.rejected,
    numRejected: result.numRejected,
    report: staged.report(),
  });
}

function sendNext(): void {
  const batch = staged.nextBatch(runId);
  if (batch.length === 0) {
    staged.clear();
    post({ kind: 'done' });
    return port.close();
  }
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
