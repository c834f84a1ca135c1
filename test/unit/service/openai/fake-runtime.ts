import type { QueueSummary } from '../../../../src-main/runtime/runtime-summary';
import type {
  GenerationOutcome,
  GenerationRequest,
  GenerationSink,
} from '../../../../src-main/runtime/scheduler/request';
import type { OpenAiDeps } from '../../../../src-main/service/openai/types';
import { ManualClock } from '../../../../src-main/telemetry/clock';
import type { FinishReason } from '../../../../src-main/telemetry/timeline/schema';
import { TimelineRecorder } from '../../../../src-main/telemetry/timeline/recorder';

/** How the fake runtime answers the next request: tokens to stream, then a finish. */
export interface Script {
  texts: string[];
  finish: FinishReason;
  errorCode?: GenerationOutcome['errorCode'];
  errorMessage?: string;
}

/** A runtime stand-in that answers synchronously from a script, with real (manual-clock) timelines. */
export function fakeRuntime(queue: Partial<QueueSummary> = {}) {
  const clock = new ManualClock();
  const requests: GenerationRequest[] = [];
  const cancelled: string[] = [];
  let script: Script = { texts: ['Hello', ' there'], finish: 'length' };
  const runtime: OpenAiDeps['runtime'] = {
    submit(request: GenerationRequest, sink: GenerationSink) {
      requests.push(request);
      play(clock, request, sink, script);
    },
    cancel: (requestId: string) => (cancelled.push(requestId), true),
    defaultModelId: () => 'tiny:fp32',
    models: () => [
      {
        modelId: 'tiny:fp32',
        name: 'tiny',
        variant: 'fp32',
        isDefaultVariant: true,
        path: '/m/tiny',
        isBundled: true,
        source: 'bundled',
        facts: null,
        status: 'ok',
        model: {} as never,
      },
      {
        modelId: 'broken',
        name: 'broken',
        variant: null,
        isDefaultVariant: true,
        path: '/m/broken',
        isBundled: false,
        source: 'models-folder',
        facts: null,
        status: 'broken',
        error: 'onnx/: no ONNX model file',
      },
      {
        modelId: 'gemma',
        name: 'gemma',
        variant: null,
        isDefaultVariant: true,
        path: '/m/gemma.gguf',
        isBundled: false,
        source: 'models-folder',
        facts: null,
        status: 'unsupported',
        error: 'architecture gemma3 (supported: llama)',
      },
    ],
    queueSummary: () => ({ numRunning: 4, numWaiting: 8, numSeats: 4, maxQueue: 8, ...queue }),
  };
  return { runtime, clock, requests, cancelled, setScript: (next: Script) => (script = next) };
}

function play(clock: ManualClock, request: GenerationRequest, sink: GenerationSink, script: Script): void {
  const recorder = new TimelineRecorder(clock, {
    requestId: request.requestId,
    modelId: request.modelId ?? '',
    numPromptTokens: 12,
    numCachedTokens: 8,
  });
  if (script.finish !== 'rejected') {
    for (const [state, ms] of [
      ['route', 1],
      ['queue', 2],
      ['activation', 0.5],
      ['contextLookup', 0.25],
      ['prefill', 10],
      ['emit', 0.5],
    ] as const) {
      clock.advance(ms);
      recorder.enter(state);
    }
    for (const text of script.texts) {
      clock.advance(3);
      sink.onChunk({ requestId: request.requestId, text, tokenIds: [1] });
      recorder.tokensFlushed(1);
    }
  }
  const timeline = recorder.finish(script.finish, clock.now(), script.errorMessage ?? null);
  sink.onDone({
    requestId: request.requestId,
    text: script.texts.join(''),
    timeline,
    errorMessage: script.errorMessage ?? null,
    errorCode: script.errorCode ?? null,
  });
}
