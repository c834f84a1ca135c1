export { spawnWorker } from './spawn-worker';
