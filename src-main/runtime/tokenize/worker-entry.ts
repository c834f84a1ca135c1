import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parentPort } from 'node:worker_threads';
import { MODEL_FILES, TextTokenizer } from '../model';
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
    tokenizer = loadTokenizer(job.folder);
    tokenizers.set(key, tokenizer);
    tokenizer.catch(() => tokenizers.delete(key));
  }
  return tokenizer;
}

async function loadTokenizer(folder: string): Promise<TextTokenizer> {
  const readJson = async (file: string, isOptional: boolean) => {
    const text = await readFile(path.join(folder, file), 'utf8').catch((error: unknown) => {
      if (isOptional) return '{}';
      throw error;
    });
    return JSON.parse(text) as Record<string, unknown>;
  };
  return new TextTokenizer({
    tokenizerJson: await readJson(MODEL_FILES.tokenizer, false),
    tokenizerConfig: await readJson(MODEL_FILES.tokenizerConfig, true),
  });
}

port.on('message', (job: EncodeJob) => {
  tokenizerOf(job)
    .then((tokenizer) => ({ id: job.id, ...tokenizer.encodeCounted(job.text) }))
    .catch((error: unknown) => ({
      id: job.id,
      error: error instanceof Error ? error.message : String(error),
    }))
    .then((reply: EncodeReply) => port.postMessage(reply));
});
