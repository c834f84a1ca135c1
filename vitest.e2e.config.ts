import { defineConfig } from 'vitest/config';

// End-to-end tests: the real core on the bundled model, the headless host on a free port,
// and Debian's chromium driven by playwright-core. One file at a time: each starts its own
// core and browser, and the model's threads would otherwise compete with each other.
export default defineConfig({
  test: {
    include: ['test/e2e/**/*.e2e.test.ts'],
    environment: 'node',
    pool: 'forks',
    fileParallelism: false,
    globalSetup: ['test/e2e/global-setup.ts'],
    testTimeout: 180_000,
    hookTimeout: 180_000,
  },
});
