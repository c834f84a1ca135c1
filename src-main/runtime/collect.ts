import type { Runtime } from './runtime';
import type { GenerationChunk, GenerationOutcome, GenerationRequest } from './scheduler/request';

/** A finished generation with every chunk as it arrived (for CLIs and tests). */
export interface CollectedGeneration extends GenerationOutcome {
  chunks: GenerationChunk[];
  tokenIds: number[];
}

/** Submits a request and resolves with its outcome once it finishes (never rejects). */
export function collectGeneration(
  runtime: Pick<Runtime, 'submit'>,
  request: GenerationRequest,
  onChunk?: (chunk: GenerationChunk) => void,
): Promise<CollectedGeneration> {
  const chunks: GenerationChunk[] = [];
  return new Promise((resolve) => {
    runtime.submit(request, {
      onChunk: (chunk) => {
        chunks.push(chunk);
        onChunk?.(chunk);
      },
      onDone: (outcome) => resolve({ ...outcome, chunks, tokenIds: chunks.flatMap((c) => c.tokenIds) }),
    });
  });
}
