export { JobWorker } from './job-worker';
export type { NumberedJob } from './job-worker';
export { spawnWorker } from './spawn-worker';
export { bundledEntry, forkChild } from './fork-child';
export type { ChildStarter, QuietChild } from './fork-child';
