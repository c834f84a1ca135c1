import type { Bridge } from './bridge';
import { createHttpBridge } from './http-transport';
import { createIpcBridge } from './ipc-transport';
import type { FirstFrameApi } from '../../src-main/service/contract/window-api';

/** IPC when the preload put `firstFrame` on the window (Electron); HTTP + SSE otherwise. */
export function pickBridge(host: { firstFrame?: FirstFrameApi }): Bridge {
  return host.firstFrame ? createIpcBridge(host.firstFrame) : createHttpBridge();
}
