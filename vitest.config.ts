import { defineConfig } from 'vitest/config';

// Unit and integration tests run in plain Node; e2e tests (real Chromium) and
// benchmarks have their own entry points and never run inside this config.
export default defineConfig({
  test: {
    include: ['test/unit/**/*.test.ts', 'test/integration/**/*.test.ts'],
    environment: 'node',
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
