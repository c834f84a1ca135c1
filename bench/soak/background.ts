import { spawn } from 'node:child_process';
import type { Tally } from './tally';
import { exchange } from './exchange';
import { bulkTrace } from './inputs';

/** Reads `/api/events` for the whole soak and counts every runtime timeline the server finished. */
export function countFinishedTimelines(url: string, tally: Tally): () => void {
  const abort = new AbortController();
  const read = async () => {
    while (!abort.signal.aborted) {
      try {
        const response = await fetch(`${url}api/events`, { signal: abort.signal });
        const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = '';
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          tally.numEventChars += value.length;
          buffer += value;
          let end: number;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            const message = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            for (const line of message.split('\n'))
              if (line.startsWith('data: ')) countBatch(line.slice(6), tally);
          }
        }
      } catch {
        // The stream is reopened until the soak ends (a drop here is the soak's own doing or a
        // restart); events sent while it was closed are not counted, so the check stays honest.
      }
    }
  };
  void read();
  return () => abort.abort();
}

function countBatch(data: string, tally: Tally): void {
  const events = JSON.parse(data) as { name: string; payload: { timeline?: { source: string } } }[];
  for (const event of events)
    if (event.name === 'timeline.finished' && event.payload.timeline?.source === 'runtime')
      tally.numAcknowledged++;
}

const HOLDER = `const Database = require('better-sqlite3');
const db = new Database(process.argv[1]);
db.exec('BEGIN IMMEDIATE');
setTimeout(() => { db.exec('ROLLBACK'); db.close(); }, Number(process.argv[2]));`;

/**
 * Every `everyMs`, another process takes the history database's write lock for `holdMs` (as a
 * backup tool or a second copy of the app would). Resolves how many times it held it.
 */
export function holdLockPeriodically(
  dbPath: string,
  everyMs: number,
  holdMs: number,
): { stop(): Promise<number> } {
  let numHeld = 0;
  let running: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    running = new Promise((resolve) => {
      const child = spawn(process.execPath, ['-e', HOLDER, dbPath, String(holdMs)], { stdio: 'ignore' });
      child.once('exit', (code) => {
        if (code === 0) numHeld++;
        resolve();
      });
    });
  }, everyMs);
  return {
    stop: async () => {
      clearInterval(timer);
      await running;
      return numHeld;
    },
  };
}

/** One 50 MB trace import through the streamed upload route; counts it and what it imported. */
export async function importBulkTrace(url: string, tally: Tally, megabytes: number): Promise<string> {
  const trace = bulkTrace(megabytes, `bulk-${Date.now()}`);
  const startAt = performance.now();
  const answer = await exchange(`${url}api/traces/import?fileName=bulk.jsonl`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-ndjson' },
    body: trace.text,
    signal: AbortSignal.timeout(600_000),
  });
  const value =
    answer.status === 200 ? (JSON.parse(answer.text) as { value: { numImported: number } }).value : null;
  if (value) tally.numImported += value.numImported;
  tally.count(
    `${megabytes} MB trace import: http ${answer.status}`,
    value?.numImported === trace.numGood,
    answer.text.slice(0, 300),
  );
  return `${megabytes} MB trace import: ${trace.numGood} lines in ${((performance.now() - startAt) / 1000).toFixed(1)} s`;
}
