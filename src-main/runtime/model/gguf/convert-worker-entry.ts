import { parentPort } from 'node:worker_threads';
import { convertGguf } from './gguf-convert';
import type { ConvertJob, ConvertReply } from './convert-protocol';

// The conversion thread: one GGUF conversion (seconds to minutes of reading, re-packing and
// writing) off the serving thread. Progress goes out at most every PROGRESS_EVERY_MS.

const PROGRESS_EVERY_MS = 100;
const port = parentPort!;

port.on('message', (job: ConvertJob) => {
  let lastAt = 0;
  const post = (reply: ConvertReply) => port.postMessage(reply);
  try {
    const record = convertGguf(job.file, job.dir, (bytesDone, bytesTotal) => {
      const now = performance.now();
      if (now - lastAt < PROGRESS_EVERY_MS && bytesDone < bytesTotal) return;
      lastAt = now;
      post({ type: 'progress', bytesDone, bytesTotal });
    });
    post({ type: 'done', record });
  } catch (error) {
    post({ type: 'failed', message: error instanceof Error ? error.message : String(error) });
  }
});
