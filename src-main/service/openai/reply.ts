import type { GenerationChunk, GenerationOutcome, GenerationSink } from '../../runtime/scheduler/request';
import { fromOutcome } from './errors';
import type { ResponseIdentity } from './responses';
import { completionBody, deltaChunk, finalChunks, openAiFinishReason } from './responses';
import type { FrameSink, OpenAiFailure } from './types';

/** What a reply needs besides its frames: the Retry-After for a 429, and a finish hook. */
export interface ReplyHooks {
  retryAfterS(): number;
  onFinished(outcome: GenerationOutcome): void;
}

/**
 * One call's answer as frames, fed by the runtime's sink. Streamed: one event per flushed
 * chunk (written before `onChunk` returns, so the first one ends server TTFT), then the final
 * chunks and `end`. Not streamed: one `json` frame at the finish. An error before the first
 * event is an HTTP error; after it, an `error` event (the openai client throws on it).
 */
export class Reply implements GenerationSink {
  private numEvents = 0;

  constructor(
    private readonly who: ResponseIdentity,
    private readonly out: FrameSink,
    private readonly hooks: ReplyHooks,
  ) {}

  onChunk(chunk: GenerationChunk): void {
    if (!this.who.isStream) return;
    this.out({ kind: 'event', data: deltaChunk(this.who, chunk.text, this.numEvents === 0) });
    this.numEvents++;
  }

  onDone(outcome: GenerationOutcome): void {
    this.hooks.onFinished(outcome);
    const finish = openAiFinishReason(outcome.timeline.finishReason);
    if (finish === null)
      return this.fail(
        fromOutcome(outcome, this.who.endpoint === 'chat' ? 'messages' : 'prompt', this.hooks.retryAfterS()),
      );
    const model = outcome.timeline.modelId || this.who.model;
    const who = { ...this.who, model };
    if (!this.who.isStream) {
      return this.out({
        kind: 'json',
        status: 200,
        body: completionBody(who, outcome.text, outcome.timeline, finish),
        headers: {},
      });
    }
    for (const data of finalChunks(who, outcome.timeline, finish)) this.out({ kind: 'event', data });
    this.out({ kind: 'end' });
  }

  private fail(failure: OpenAiFailure): void {
    if (this.numEvents === 0)
      return this.out({ kind: 'json', status: failure.status, body: failure.body, headers: failure.headers });
    this.out({ kind: 'event', data: failure.body });
    this.out({ kind: 'end' });
  }
}
