import { z } from 'zod';

/** Error codes a client can act on; `internal` means a bug, everything else is the caller's to fix or retry. */
export const ERROR_CODES = [
  'invalid_input',
  'not_found',
  'queue_full',
  'unavailable',
  'forbidden',
  'internal',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

/** Errors travel as values, never as thrown exceptions across a transport. */
export const ServiceErrorSchema = z.object({ code: z.enum(ERROR_CODES), message: z.string() });
export type ServiceError = z.infer<typeof ServiceErrorSchema>;

/** The envelope every method call returns. */
export type Result<T> = { ok: true; value: T } | { ok: false; error: ServiceError };

/** A thrown error with a code, raised inside the service and turned into a Result at its edge. */
export class ServiceFailure extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'ServiceFailure';
  }
}
