import { defineConfig } from 'vitest/config';

// Unit and integration tests run in plain Node; e2e tests (real Chromium) and
// benchmarks have their own entry points and never run inside this config.
export default defineConfig({
  test: {
    include: ['test/unit/**/*.test.ts', 'test/integration/**/*.test.ts'],
    environment: 'node',
    pool: 'forks',
    // Two files at a time even on two cores (the default is one there): most files wait on
    // worker threads, sockets or the disk, and `npm test` stays under ten minutes (475 s → 322 s
    // for this suite on the 2-core machine, all green).
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
