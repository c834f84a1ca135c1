import type { z } from 'zod';

// Zod-free at run time (a type import only): the sandboxed preload uses `failure` too.

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
export interface ServiceError {
  code: ErrorCode;
  message: string;
}

/** The envelope every method call returns. */
export type Result<T> = { ok: true; value: T } | { ok: false; error: ServiceError };

/** A failed Result: the one way every layer (service, hosts, preload, renderer) builds one. */
export function failure(code: ErrorCode, message: string): Result<never> {
  return { ok: false, error: { code, message } };
}

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

/** Validation issues quoted in one message; the rest are counted. */
const MAX_ISSUES_SHOWN = 5;

/** A zod error as one line a caller can act on: `path: message; …` (first few issues). */
export function describeIssues(error: z.ZodError): string {
  const shown = error.issues.slice(0, MAX_ISSUES_SHOWN).map((issue) => {
    const path = issue.path.map(String).join('.');
    return `${path === '' ? 'input' : path}: ${issue.message}`;
  });
  const numHidden = error.issues.length - shown.length;
  return numHidden > 0 ? `${shown.join('; ')}; and ${numHidden} more` : shown.join('; ');
}
