import type { Runtime } from '../../src-main/runtime/runtime';
import type { GenerationOutcome, GenerationRequest } from '../../src-main/runtime/scheduler/request';

/** What one request heard: its chunks and every outcome (a correct runtime delivers exactly one). */
export interface Heard {
  requestId: string;
  numChunks: number;
  outcomes: GenerationOutcome[];
  /** Resolves with the first outcome. */
  done: Promise<GenerationOutcome>;
}

/** Submits `request` and records everything its sink hears, counting outcomes instead of stopping at one. */
export function submitAndTally(runtime: Pick<Runtime, 'submit'>, request: GenerationRequest): Heard {
  let resolve: (outcome: GenerationOutcome) => void = () => undefined;
  const heard: Heard = {
    requestId: request.requestId,
    numChunks: 0,
    outcomes: [],
    done: new Promise((r) => (resolve = r)),
  };
  runtime.submit(request, {
    onChunk: () => void (heard.numChunks += 1),
    onDone: (outcome) => {
      heard.outcomes.push(outcome);
      resolve(outcome);
    },
  });
  return heard;
}
