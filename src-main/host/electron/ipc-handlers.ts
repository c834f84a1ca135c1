import type { z } from 'zod';
import { METHOD_NAMES, METHODS, type MethodName } from '../../service/contract/methods';
import type { Result } from '../../service/contract/result';
import { describeIssues, failure } from '../../service/contract/result';
import type { ServiceApi } from '../../service/contract/service-api';
import { callChannel } from './ipc-channels';
import { isTrustedSenderFrame, type SenderFrameInfo } from './security-rules';

// The IPC layer: one invoke handler per contract method, on its own channel, nothing else.
// Each handler refuses callers other than the app's own top frame, validates the input against
// the contract before the service sees it, and answers with a Result: errors travel as values,
// nothing is thrown across IPC.

/** The frame fields the sender check reads (Electron's WebFrameMain has them). */
export interface SenderFrameLike {
  readonly url: string;
  readonly parent: unknown;
}

/** The slice of IpcMainInvokeEvent a handler reads. */
export interface InvokeEventLike {
  readonly senderFrame: SenderFrameLike | null;
}

/** The slice of Electron's ipcMain the layer uses (a fake in tests). */
export interface IpcMainLike {
  handle(channel: string, listener: (event: InvokeEventLike, ...args: unknown[]) => unknown): void;
  removeHandler(channel: string): void;
}

/** What the handlers need: the service, the origins allowed to call, whether calls are still accepted. */
export interface IpcDeps {
  ipcMain: IpcMainLike;
  service: ServiceApi;
  appOrigins: readonly string[];
  /** False once shutdown began: calls then answer `unavailable`. */
  isAccepting(): boolean;
}

/** Reads the sender frame defensively: a frame gone mid-call reads as null (refused). */
export function senderFrameInfo(event: InvokeEventLike): SenderFrameInfo | null {
  try {
    const frame = event.senderFrame;
    return frame ? { url: frame.url, isTopFrame: frame.parent === null } : null;
  } catch {
    return null;
  }
}

/** One call from the renderer: sender check, shutdown check, input validation, then the service. */
export async function handleCall(
  method: MethodName,
  event: InvokeEventLike,
  rawInput: unknown,
  deps: IpcDeps,
): Promise<Result<unknown>> {
  if (!isTrustedSenderFrame(senderFrameInfo(event), deps.appOrigins)) {
    return failure('forbidden', `${method}: the caller is not the app's own window`);
  }
  if (!deps.isAccepting()) return failure('unavailable', `${method}: First Frame is shutting down`);
  const parsed = (METHODS[method].input as z.ZodType).safeParse(rawInput);
  if (!parsed.success) return failure('invalid_input', `${method}: ${describeIssues(parsed.error)}`);
  try {
    return await deps.service.call(method, parsed.data);
  } catch (error) {
    return failure('internal', `${method}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/**
 * Registers one handler per contract method (`ff:call:<method>`) and nothing else; an unknown
 * channel has no handler, so Electron rejects it. Returns a function removing them all.
 */
export function registerIpcHandlers(deps: IpcDeps): () => void {
  const channels = METHOD_NAMES.map((method) => {
    const channel = callChannel(method);
    deps.ipcMain.handle(channel, (event, rawInput) => handleCall(method, event, rawInput, deps));
    return channel;
  });
  return () => channels.forEach((channel) => deps.ipcMain.removeHandler(channel));
}
