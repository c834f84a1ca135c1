import { contextBridge, ipcRenderer } from 'electron';
import { createFirstFrameApi } from './api';

// Preload bundle: runs sandboxed, with context isolation, before the page. It exposes exactly
// `window.firstFrame` (named method functions, event batches, platform) and nothing else.
// Built as one CommonJS file whose only require is 'electron' (see test/unit/build).

contextBridge.exposeInMainWorld('firstFrame', createFirstFrameApi(ipcRenderer, process.platform));
