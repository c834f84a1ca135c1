export * from './schemas';
export * from './methods';
export * from './events';
export * from './result';
export * from './report-schemas';
export * from './service-api';
export * from './chat-schemas';
export * from './quality-schemas';
export type * from './window-api';
