// How long listing a GGUF and routing the first chat to it hold the main thread: lists a models
// folder holding only FILE.gguf with the real catalogue (listing thread included), then routes
// two chat requests through the real prompt threads, printing for each phase its time, the
// longest gap between 5 ms ticks on the main thread, and the synchronous part of routeRequest.
// Usage: npx tsx tools/first-route-block.ts FILE.gguf  (nothing is loaded as a model)

import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { ModelCatalogue } from '../src-main/runtime/model/catalogue';
import { RevisionCache } from '../src-main/runtime/model/revisions';
import { routeRequest } from '../src-main/runtime/scheduler/route';
import type { RequestLimits } from '../src-main/runtime/scheduler/route';
import { PromptThreads } from '../src-main/runtime/tokenize/prompt-threads';

const LIMITS: RequestLimits = {
  maxPromptTokens: 8192,
  maxOutputTokens: 512,
  defaultMaxTokens: 16,
  maxQueue: 8,
  defaultDeadlineMs: 60_000,
  defaultModel: null,
};

/** Runs `work`, printing its time and the main thread's longest gap between 5 ms ticks (ms). */
async function withLongestBlock<T>(label: string, work: () => Promise<T>): Promise<T> {
  let tickAt = performance.now();
  let longestMs = 0;
  const timer = setInterval(() => {
    longestMs = Math.max(longestMs, performance.now() - tickAt);
    tickAt = performance.now();
  }, 5);
  const startedAt = performance.now();
  const result = await work();
  await new Promise((resolve) => setTimeout(resolve, 20));
  clearInterval(timer);
  longestMs = Math.max(longestMs, performance.now() - tickAt);
  const tookMs = performance.now() - startedAt;
  console.log(`${label}: ${tookMs.toFixed(0)} ms, longest main-thread block ${longestMs.toFixed(0)} ms`);
  return result;
}

async function main(file: string): Promise<void> {
  const root = mkdtempSync(path.join(tmpdir(), 'ff-first-route-'));
  const models = path.join(root, 'models');
  const threads = new PromptThreads();
  try {
    for (const dir of ['models', 'bundled', 'converted']) mkdirSync(path.join(root, dir));
    symlinkSync(path.resolve(file), path.join(models, path.basename(file)));
    const catalogue = new ModelCatalogue(
      path.join(root, 'bundled'),
      models,
      new RevisionCache(null),
      null,
      path.join(root, 'converted'),
    );
    const [entry] = await withLongestBlock('list', () => catalogue.refresh());
    if (entry?.status !== 'ok')
      throw new Error(`not listed: ${entry && 'error' in entry ? entry.error : '?'}`);
    const prompt = {
      kind: 'chat' as const,
      messages: [{ role: 'user' as const, content: 'Hello, how are you?' }],
    };
    for (const round of [1, 2])
      await withLongestBlock(`route #${round}`, async () => {
        const calledAt = performance.now();
        const routed = routeRequest(
          { requestId: `r${round}`, modelId: entry.modelId, prompt },
          catalogue,
          LIMITS,
          threads,
        );
        console.log(
          `  routeRequest held the main thread ${(performance.now() - calledAt).toFixed(1)} ms synchronously`,
        );
        const { promptIds } = await routed;
        console.log(
          `  ${promptIds.length} prompt ids; decoded: ${JSON.stringify(entry.model.folder.tokenizer.decode(promptIds))}`,
        );
      });
  } finally {
    await threads.close();
    rmSync(root, { recursive: true, force: true });
  }
}

await main(process.argv[2] ?? '.cache/realsize/llama-3.2-1b-q4_k_m.gguf');
