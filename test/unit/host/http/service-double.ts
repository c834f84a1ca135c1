import { METHODS } from '../../../../src-main/service/contract/methods';
import type { PushedEvent } from '../../../../src-main/service/contract/events';
import type { MethodName } from '../../../../src-main/service/contract/methods';
import type { Result } from '../../../../src-main/service/contract/result';
import type { ServiceApi } from '../../../../src-main/service/contract/service-api';

/** A valid `app.status` answer for transport tests: a persistent headless host serving model `m`. */
export const STATUS_ANSWER = {
  version: '0.1.0',
  isPersistent: true,
  historyState: 'on',
  persistenceReason: null,
  dataDir: '/tmp/data',
  modelsDir: '/tmp/data/models',
  modelFormats: [{ name: 'Hugging Face ONNX folder', detail: 'onnx/model.onnx' }],
  defaultModelId: 'm',
  executionProvider: 'cpu',
  host: 'headless',
  logPath: '/tmp/data/logs/first-frame.log',
  recentProblems: [],
};

/**
 * A test double of the service for transport tests (never used by product code): answers
 * each method from `answers` (validated against the contract like the real service), records
 * calls, and lets the test push events to every subscriber.
 */
export class ServiceDouble implements ServiceApi {
  readonly calls: { method: MethodName; input: unknown }[] = [];
  readonly listeners = new Set<(event: PushedEvent) => void>();

  constructor(private readonly answers: Partial<Record<MethodName, (input: unknown) => unknown>> = {}) {}

  async call<M extends MethodName>(method: M, rawInput: unknown): Promise<Result<never>> {
    this.calls.push({ method, input: rawInput });
    const input = METHODS[method].input.safeParse(rawInput);
    if (!input.success) return { ok: false, error: { code: 'invalid_input', message: input.error.message } };
    const answer = this.answers[method];
    if (!answer)
      return { ok: false, error: { code: 'unavailable', message: `${method} not answered by the double` } };
    return { ok: true, value: METHODS[method].output.parse(answer(input.data)) as never };
  }

  subscribe(listener: (event: PushedEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Delivers one event to every subscriber, as the core would. */
  push(event: PushedEvent): void {
    for (const listener of this.listeners) listener(event);
  }
}
