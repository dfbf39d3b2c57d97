import { defineConfig } from 'vitest/config';

// Real-browser tests (test/browser): Debian's chromium driven by playwright-core against the dev stack.
// Run by `npm run test:browser`, not part of `npm test`.
export default defineConfig({
  test: {
    include: ['test/browser/**/*.test.ts'],
    pool: 'forks',
    maxWorkers: 1,
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
