import path from 'node:path';

/** One generation as the peer did it, on this process's performance.now() clock. */
export interface PeerRun {
  /** Tokenizer call + generate() → the streamer's first generated token (ms). */
  ttftMs: number;
  /** Gaps between consecutive generated tokens as the streamer received them. */
  itlMs: number[];
  numTokens: number;
  wallMs: number;
  inputIds: number[];
}

/** The peer: @huggingface/transformers' generate on the same ONNX file, one request at a time. */
export interface PeerEngine {
  version: string;
  generate(text: string, maxNewTokens: number): Promise<PeerRun>;
}

/** The few parts of @huggingface/transformers the bench touches (its own types are not needed). */
interface TensorLike {
  tolist(): unknown[];
}
interface TransformersModule {
  env: { allowRemoteModels: boolean; allowLocalModels: boolean; localModelPath: string; version?: string };
  AutoTokenizer: {
    from_pretrained(
      id: string,
    ): Promise<(text: string, options: object) => { input_ids: TensorLike; attention_mask: TensorLike }>;
  };
  AutoModelForCausalLM: {
    from_pretrained(id: string, options: object): Promise<{ generate(options: object): Promise<unknown> }>;
  };
}

/** Kept in a variable so TypeScript and bundlers never resolve it: only this bench loads it. */
const PEER_PACKAGE = '@huggingface/transformers';

/**
 * Loads the peer on `modelDir` offline (`env.allowRemoteModels = false`, the folder's parent
 * as local model path), with the same intra-op thread count. Returns the exact reason when
 * the package is missing or cannot load the folder.
 */
export async function loadPeer(
  modelDir: string,
  numThreads: number,
): Promise<PeerEngine | { error: string }> {
  let hf: TransformersModule;
  try {
    hf = (await import(PEER_PACKAGE)) as TransformersModule;
  } catch (error) {
    return {
      error: `cannot import ${PEER_PACKAGE} (a devDependency; run npm install): ${(error as Error).message}`,
    };
  }
  hf.env.allowRemoteModels = false;
  hf.env.allowLocalModels = true;
  hf.env.localModelPath = path.dirname(modelDir);
  const modelId = path.basename(modelDir);
  try {
    const tokenizer = await hf.AutoTokenizer.from_pretrained(modelId);
    const model = await hf.AutoModelForCausalLM.from_pretrained(modelId, {
      dtype: 'fp32',
      device: 'cpu',
      session_options: { intraOpNumThreads: numThreads },
    });
    return {
      version: hf.env.version ?? 'unknown',
      generate: (text, maxNewTokens) => timedGenerate(tokenizer, model, text, maxNewTokens),
    };
  } catch (error) {
    return { error: `${PEER_PACKAGE} could not load ${modelDir}: ${(error as Error).message}` };
  }
}

type Tokenize = Awaited<ReturnType<TransformersModule['AutoTokenizer']['from_pretrained']>>;
type Model = Awaited<ReturnType<TransformersModule['AutoModelForCausalLM']['from_pretrained']>>;

/** Greedy generate with a streamer whose put() stamps each token (the first put is the prompt). */
async function timedGenerate(
  tokenize: Tokenize,
  model: Model,
  text: string,
  maxNewTokens: number,
): Promise<PeerRun> {
  const tokenAts: number[] = [];
  let numPuts = 0;
  const streamer = {
    put: () => (numPuts++ > 0 ? tokenAts.push(performance.now()) : 0),
    end: () => undefined,
  };
  const startAt = performance.now();
  const inputs = tokenize(text, { add_special_tokens: false });
  await model.generate({ ...inputs, max_new_tokens: maxNewTokens, do_sample: false, streamer });
  const wallMs = performance.now() - startAt;
  const inputIds = (inputs.input_ids.tolist()[0] as bigint[]).map(Number);
  return {
    ttftMs: (tokenAts[0] ?? Number.NaN) - startAt,
    itlMs: tokenAts.slice(1).map((at, i) => at - tokenAts[i]!),
    numTokens: tokenAts.length,
    wallMs,
    inputIds,
  };
}
