export type { Bridge, ConnectionState, EventBatchListener } from './bridge';
export { createHttpBridge } from './http-transport';
export type { HttpBridgeOptions } from './http-transport';
export { createIpcBridge } from './ipc-transport';
export { pickBridge } from './pick-bridge';
export { validateEvents, validateResult } from './validate';
export { SseParser } from './sse-parser';
