import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Test files start real servers and databases; two cores, so keep the pool small.
    pool: 'forks',
    maxWorkers: 2,
    // Bounds, not measures: a test's waits each have their own bound (eventually, waitFor). On the
    // shared 2-core machine at load average 26, a file's first hook (a PGlite database migrated, the
    // emulator started) outlasted 60 s. A test that hangs still fails, later.
    testTimeout: 90_000,
    hookTimeout: 120_000,
    // Browser tests live in test/browser and are run by their own command (npm run test:browser).
    exclude: ['test/browser/**', 'node_modules/**'],
  },
});
