export { EngineLoop } from './engine-loop';
export type { EngineDeps } from './engine-deps';
