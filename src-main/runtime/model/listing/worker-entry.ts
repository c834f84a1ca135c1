import { parentPort } from 'node:worker_threads';
import { listModel } from './list-model';
import type { ListingJob, ListingReply } from './listing-protocol';

// The listing thread: each model the catalogue finds new or changed is read and checked here,
// so a hostile or huge file costs this thread's time and memory, never the serving thread's.

const port = parentPort!;

port.on('message', (job: ListingJob) => {
  const reply: ListingReply = { id: job.id, result: listModel(job) };
  port.postMessage(reply);
});
