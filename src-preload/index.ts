import { contextBridge, ipcRenderer } from 'electron';
import { methodsFromArgv } from '../src-main/host/electron/ipc-channels';
import { createFirstFrameApi } from './api';

// Preload bundle: runs sandboxed, with context isolation, before the page. It exposes exactly
// `window.firstFrame` (named method functions, event batches, platform) and nothing else. The
// method names come from main as a renderer argument (see ipc-channels.ts).
// Built as one CommonJS file whose only require is 'electron' (see test/unit/build).

contextBridge.exposeInMainWorld(
  'firstFrame',
  createFirstFrameApi(ipcRenderer, process.platform, methodsFromArgv(process.argv)),
);
