import { defineConfig } from 'vitest/config';

// The real desktop window (npm run test:electron): Playwright's Electron launcher on the
// working tree, and the packaged app when `npm run dist` has made one. Each file skips, saying
// why, where there is no Electron binary or no display (CI here never has either).
export default defineConfig({
  test: {
    include: ['test/electron/**/*.electron.test.ts'],
    environment: 'node',
    pool: 'forks',
    fileParallelism: false,
    testTimeout: 180_000,
    hookTimeout: 180_000,
  },
});
