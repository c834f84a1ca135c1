import { isRetryableWriteError } from '../history/errors';
import { METHODS } from './contract/methods';
import { describeIssues, failure, ServiceFailure } from './contract/result';
import type { PushedEvent } from './contract/events';
import type { MethodInput, MethodName, MethodOutput } from './contract/methods';
import type { Result } from './contract/result';
import type { ServiceApi } from './contract/service-api';
import type { EventHub } from './event-hub';

/** One implementation per contract method, given validated input. */
export type Handlers = {
  [M in MethodName]: (input: MethodInput<M>) => MethodOutput<M> | Promise<MethodOutput<M>>;
};

/**
 * Wraps handlers into the ServiceApi every transport calls: unknown methods and invalid input
 * become `invalid_input`/`not_found` results, outputs are validated too (a bug shows up as
 * `internal`, never as a malformed value on the wire), and nothing throws across the edge.
 */
export function createService(handlers: Handlers, hub: EventHub): ServiceApi {
  return {
    async call<M extends MethodName>(method: M, rawInput: unknown): Promise<Result<MethodOutput<M>>> {
      const definition = Object.hasOwn(METHODS, method) ? METHODS[method] : undefined;
      if (!definition) return failure('not_found', `unknown method "${String(method)}"`);
      const input = definition.input.safeParse(rawInput ?? {});
      if (!input.success) return failure('invalid_input', describeIssues(input.error));
      try {
        const value = await (handlers[method] as (i: unknown) => unknown)(input.data);
        const output = definition.output.safeParse(value);
        if (!output.success)
          return failure('internal', `${method} produced an invalid result: ${describeIssues(output.error)}`);
        return { ok: true, value: output.data as MethodOutput<M> };
      } catch (error) {
        if (error instanceof ServiceFailure) return failure(error.code, error.message);
        if (isRetryableWriteError(error))
          return failure(
            'unavailable',
            `history is busy or full right now (${(error as Error).message}); try again in a moment`,
          );
        return failure('internal', error instanceof Error ? error.message : String(error));
      }
    },
    subscribe(listener: (event: PushedEvent) => void): () => void {
      return hub.subscribe(listener);
    },
  };
}
