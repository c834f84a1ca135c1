import * as ort from 'onnxruntime-node';
import { markStep } from './step-trace';

/**
 * Stamps every `session.run` of this thread (a tracing slot worker's) at its call and when its
 * outputs arrive: onnxruntime-node's own hop and output wrapping count as the run's, as the
 * floor's bare run pays them too. Benches only (STEP_TRACE_ENV).
 */
export function traceSessionRuns(): void {
  // The factory is the session class at runtime; its type hides the prototype.
  const prototype = (
    ort.InferenceSession as unknown as { prototype: { run: (...args: never[]) => Promise<unknown> } }
  ).prototype;
  const run = prototype.run;
  prototype.run = async function (this: unknown, ...args: never[]) {
    markStep('runStarted');
    const outputs = await run.apply(this, args);
    markStep('runEnded');
    return outputs;
  };
}
