import { parentPort } from 'node:worker_threads';
// The few model files this thread needs, not the room's index: a worker starts by loading its
// imports, and the index's whole graph (ONNX, GGUF, fusion) would delay the first encode.
import { readGgufSet } from '../model/gguf/gguf-files';
import { tokenizerFilesOfGguf } from '../model/gguf/gguf-tokenizer';
import { TextTokenizer } from '../model/tokenizer';
import { readTokenizerFiles } from '../model/tokenizer-files';
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

/** The model's tokenizer, built exactly as listing builds it (from the folder's files or the GGUF's metadata), so the ids agree. */
async function loadTokenizer(job: EncodeJob): Promise<TextTokenizer> {
  if (job.isGguf) return new TextTokenizer(tokenizerFilesOfGguf(readGgufSet(job.folder).metadata));
  return new TextTokenizer(readTokenizerFiles(job.folder));
}

port.on('message', (job: EncodeJob) => {
  tokenizerOf(job)
    .then((tokenizer) => ({ id: job.id, ...tokenizer.encodeCounted(job.text, job.literals) }))
    .catch((error: unknown) => ({
      id: job.id,
      error: error instanceof Error ? error.message : String(error),
    }))
    .then((reply: EncodeReply) => port.postMessage(reply));
});
