import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { fileURLToPath } from 'node:url';

/** Where `npm run peers:install` puts node-llama-cpp (never a project dependency). */
export const PEERS_DIR = fileURLToPath(new URL('../../.cache/peers', import.meta.url));

/** node-llama-cpp's TokenBias: `never` keeps an id from being picked. */
interface TokenBias {
  set(ids: number[], bias: 'never'): TokenBias;
}
/** One greedy next-token request of node-llama-cpp's controlledEvaluate. */
type EvalItem =
  number | [number, { generateNext: { token: true; options: { temperature: 0; tokenBias?: TokenBias } } }];

/** The few parts of node-llama-cpp 3.21 the bench touches (its own types are not needed). */
interface LlamaSequence {
  clearHistory(): Promise<void>;
  controlledEvaluate(input: EvalItem[]): Promise<Array<{ next?: { token?: number | null } } | undefined>>;
}
interface LlamaContext {
  getSequence(): LlamaSequence;
  dispose(): Promise<void>;
}
interface LlamaModel {
  tokenizer: unknown;
  tokenize(text: string, specialTokens?: boolean): number[];
  tokens: {
    shouldPrependBosToken: boolean;
    shouldAppendEosToken: boolean;
    bos: number | null;
    eos: number | null;
  };
  createContext(options: { contextSize: number; threads: number; batchSize: number }): Promise<LlamaContext>;
  dispose(): Promise<void>;
}
interface Llama {
  llamaCppRelease: { repo: string; release: string };
  loadModel(options: { modelPath: string; vocabOnly?: boolean }): Promise<LlamaModel>;
  dispose(): Promise<void>;
}
interface NodeLlamaCpp {
  getLlama(options: { gpu: false; build: 'never'; logLevel: unknown }): Promise<Llama>;
  LlamaLogLevel: { error: unknown };
  TokenBias: new (tokenizer: unknown) => TokenBias;
}

/** llama.cpp through node-llama-cpp, CPU build, in this process. */
export interface LlamaCppEngine {
  /** node-llama-cpp's version and the llama.cpp release it was built from. */
  version: string;
  /** `vocabLimit`: ids from here on (a padded vocabulary's tail) are excluded when a call asks. */
  /** `batchSize`: tokens per evaluation (its buffers scale with it); default the context size, so a prompt is one batch. */
  open(
    ggufPath: string,
    numThreads: number,
    contextSize: number,
    vocab: VocabLimit,
    batchSize?: number,
  ): Promise<LlamaCppModel>;
  /** The file's vocabulary alone (no weights are read): llama.cpp's tokenizer as the oracle. */
  openVocab(ggufPath: string): Promise<LlamaCppVocab>;
  close(): Promise<void>;
}

/** llama.cpp's tokenizer for one GGUF (llama_tokenize with add_special = false). */
export interface LlamaCppVocab {
  /** Ids of `text`; `isParsingSpecial`: special-token text becomes those tokens (parse_special). */
  tokenize(text: string, isParsingSpecial: boolean): number[];
  /** The ids llama.cpp adds around a prompt (llama_vocab_get_add_bos/eos), null when it adds none. */
  addedBosId: number | null;
  addedEosId: number | null;
  close(): Promise<void>;
}

/** The ids First Frame may pick (its tokenizer's) out of the model's logits. */
export interface VocabLimit {
  numUsable: number;
  numLogits: number;
}

/**
 * Greedy decoding on token ids: the prompt as one batch, then one token per call. With
 * `isLimited`, the greedy pick skips ids First Frame never picks (a padded vocabulary's tail),
 * as its sampler does; that costs llama.cpp time per call, so timed calls leave it off.
 */
export interface LlamaCppModel {
  /** Clears the sequence, evaluates `ids` and returns the greedy next id and the time taken. */
  prefill(ids: readonly number[], isLimited: boolean): Promise<{ ms: number; nextId: number }>;
  /** Feeds one id after the current state; returns its greedy successor and the time taken. */
  step(id: number, isLimited: boolean): Promise<{ ms: number; nextId: number }>;
  /**
   * Teacher-forced greedy ids: clears the sequence, evaluates `ids` as one batch and returns, for
   * every position, the greedy next id after the prefix ending there (the oracle of agreement).
   */
  teacherForced(ids: readonly number[]): Promise<number[]>;
  /** llama.cpp's token ids for `text`, special-token text recognised, no BOS added. */
  tokenize(text: string): number[];
  close(): Promise<void>;
}

/**
 * Loads node-llama-cpp from .cache/peers with `gpu: false, build: 'never'` (the prebuilt CPU
 * binary, never a download or a compile). Returns why when it is not installed or will not load.
 */
export async function loadLlamaCpp(): Promise<LlamaCppEngine | { error: string }> {
  let entry: string;
  let version: string;
  try {
    const require = createRequire(path.join(PEERS_DIR, 'package.json'));
    entry = require.resolve('node-llama-cpp');
    // Its exports map hides package.json: read it beside the resolved entry (dist/index.js).
    const manifest = path.join(path.dirname(entry), '..', 'package.json');
    version = (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
  } catch {
    // Not installed is the expected case on a lean checkout; the message says how to fix it.
    return { error: `node-llama-cpp is not installed in ${PEERS_DIR}: run npm run peers:install` };
  }
  try {
    const lib = (await import(pathToFileURL(entry).href)) as NodeLlamaCpp;
    const llama = await lib.getLlama({ gpu: false, build: 'never', logLevel: lib.LlamaLogLevel.error });
    const release = llama.llamaCppRelease;
    return {
      version: `node-llama-cpp ${version} (llama.cpp ${release.release})`,
      open: (ggufPath, numThreads, contextSize, vocab, batchSize = contextSize) =>
        openModel(lib, llama, { modelPath: ggufPath, numThreads, contextSize, vocab, batchSize }),
      openVocab: async (ggufPath) => {
        const model = await llama.loadModel({ modelPath: ggufPath, vocabOnly: true });
        const { tokens } = model;
        return {
          tokenize: (text, isParsingSpecial) => [...model.tokenize(text, isParsingSpecial)],
          addedBosId: tokens.shouldPrependBosToken ? tokens.bos : null,
          addedEosId: tokens.shouldAppendEosToken ? tokens.eos : null,
          close: () => model.dispose(),
        };
      },
      close: () => llama.dispose(),
    };
  } catch (error) {
    return { error: `node-llama-cpp ${version} did not load: ${(error as Error).message}` };
  }
}

async function openModel(
  lib: NodeLlamaCpp,
  llama: Llama,
  spec: { modelPath: string; numThreads: number; contextSize: number; vocab: VocabLimit; batchSize: number },
): Promise<LlamaCppModel> {
  const model = await llama.loadModel({ modelPath: spec.modelPath });
  const context = await model.createContext({
    contextSize: spec.contextSize,
    threads: spec.numThreads,
    batchSize: spec.batchSize,
  });
  const sequence = context.getSequence();
  const { numUsable, numLogits } = spec.vocab;
  const bias =
    numUsable < numLogits
      ? new lib.TokenBias(model.tokenizer).set(
          Array.from({ length: numLogits - numUsable }, (_, i) => numUsable + i),
          'never',
        )
      : null;
  const greedy = (id: number, isLimited: boolean): EvalItem => [
    id,
    {
      generateNext: {
        token: true,
        options: { temperature: 0, ...(isLimited && bias ? { tokenBias: bias } : {}) },
      },
    },
  ];
  const timed = async (items: EvalItem[]) => {
    const startMs = performance.now();
    const outputs = await sequence.controlledEvaluate(items);
    const ms = performance.now() - startMs;
    const nextId = outputs.at(-1)?.next?.token;
    if (typeof nextId !== 'number') throw new Error('llama.cpp returned no next token');
    return { ms, nextId };
  };
  return {
    prefill: async (ids, isLimited) => {
      await sequence.clearHistory();
      return timed(ids.map((id, i) => (i === ids.length - 1 ? greedy(id, isLimited) : id)));
    },
    step: (id, isLimited) => timed([greedy(id, isLimited)]),
    teacherForced: async (ids) => {
      await sequence.clearHistory();
      const outputs = await sequence.controlledEvaluate(ids.map((id) => greedy(id, false)));
      return outputs.map((output, i) => {
        const next = output?.next?.token;
        if (typeof next !== 'number') throw new Error(`llama.cpp returned no next token at position ${i}`);
        return next;
      });
    },
    tokenize: (text) => [...model.tokenize(text, true)],
    close: async () => {
      await context.dispose();
      await model.dispose();
    },
  };
}
