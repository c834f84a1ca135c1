import { parentPort } from 'node:worker_threads';
// The few model files this thread needs, not the room's index: a worker starts by loading its
// imports, and the index's whole graph (ONNX, GGUF, fusion) would delay the first encode.
import { TextTokenizer } from './tokenizer';
import { tokenizerFilesOfModel } from './tokenizer-files';
import type { EncodeJob, EncodeReply } from './protocol';

// The tokenizer thread: long prompts are encoded here, so the serving thread never spends
// hundreds of milliseconds in a tokenizer. It builds each model's tokenizer from the same files
// and the same class as the main thread, so the ids are the same ids.

const port = parentPort!;
const tokenizers = new Map<string, Promise<TextTokenizer>>();

async function tokenizerOf(job: EncodeJob): Promise<TextTokenizer> {
  const key = `${job.folder}\0${job.tokenizerRevision}`;
  let tokenizer = tokenizers.get(key);
  if (!tokenizer) {
    for (const old of tokenizers.keys()) if (old.startsWith(`${job.folder}\0`)) tokenizers.delete(old);
    tokenizer = loadTokenizer(job);
    tokenizers.set(key, tokenizer);
    tokenizer.catch(() => tokenizers.delete(key));
  }
  return tokenizer;
}

/** The model's tokenizer, built exactly as the serving thread builds it (the same files), so the ids agree. */
async function loadTokenizer(job: EncodeJob): Promise<TextTokenizer> {
  return new TextTokenizer(tokenizerFilesOfModel(job.folder, job.isGguf));
}

port.on('message', (job: EncodeJob) => {
  tokenizerOf(job)
    .then((tokenizer) => {
      tokenizer.rememberPieces(job.held);
      return { id: job.id, ...tokenizer.encodeCounted(job.text, job.literals) };
    })
    .catch((error: unknown) => ({
      id: job.id,
      error: error instanceof Error ? error.message : String(error),
    }))
    .then((reply: EncodeReply) => port.postMessage(reply));
});
