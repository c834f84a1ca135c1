export { createCore } from './create-core';
export type { Core, CoreOptions } from './core-options';
export { createService, describeZod } from './service';
export type { Handlers } from './service';
export { EventHub } from './event-hub';
export * from './contract';
