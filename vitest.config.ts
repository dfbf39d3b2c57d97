import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Test files start real servers and databases; two cores, so keep the pool small.
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Browser tests live in test/browser and are run by their own command (npm run test:browser).
    exclude: ['test/browser/**', 'node_modules/**'],
  },
});
