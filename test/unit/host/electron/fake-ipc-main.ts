import type { InvokeEventLike, IpcMainLike } from '../../../../src-main/host/electron/ipc-handlers';
import { APP_ENTRY_URL } from '../../../../src-main/host/electron/security-rules';

/**
 * A fake of Electron's ipcMain for tests: keeps handlers by channel and, like Electron, rejects
 * an invoke on a channel nobody handles.
 */
export class FakeIpcMain implements IpcMainLike {
  readonly handlers = new Map<string, (event: InvokeEventLike, ...args: unknown[]) => unknown>();

  handle(channel: string, listener: (event: InvokeEventLike, ...args: unknown[]) => unknown): void {
    if (this.handlers.has(channel))
      throw new Error(`Attempted to register a second handler for '${channel}'`);
    this.handlers.set(channel, listener);
  }

  removeHandler(channel: string): void {
    this.handlers.delete(channel);
  }

  /** What ipcRenderer.invoke would get back from main. */
  async invoke(channel: string, event: InvokeEventLike, ...args: unknown[]): Promise<unknown> {
    const handler = this.handlers.get(channel);
    if (!handler) throw new Error(`No handler registered for '${channel}'`);
    return handler(event, ...args);
  }
}

/** An invoke event from a frame at `url`; `isTop` false makes it a subframe. */
export function frameEvent(url = APP_ENTRY_URL, isTop = true): InvokeEventLike {
  return { senderFrame: { url, parent: isTop ? null : { url } } };
}
