import { defineConfig } from 'vitest/config';

/**
 * The unit tier: no database, no app process, each file in about a second (money, dates, parsing,
 * Block Kit builders, the Rewards client and the emulator's state over local HTTP). CI runs it first.
 */
const UNIT_TESTS = [
  'test/config/**/*.test.ts',
  'test/lib/**/*.test.ts',
  'test/secrets/key-ring.test.ts',
  'test/domain/common/**/*.test.ts',
  'test/domain/status-transitions.test.ts',
  'test/domain/accounts/design-catalog.test.ts',
  'test/domain/accounts/email-templates.test.ts',
  'test/domain/accounts/rewards-accounts.test.ts',
  'test/domain/approvals/approval-policy.test.ts',
  'test/domain/automations/automation-dates.test.ts',
  'test/domain/workspaces/people-countries.test.ts',
  'test/domain/sending/send-policy.test.ts',
  'test/domain/sending/allowances.test.ts',
  'test/rewards/{auth,money,orders,path-segments,rate-limit,responses,transport,webhooks}.test.ts',
  'test/emulator/{addressbook,balance-ledger,campaigns-templates,order-actions,orders,scheduled,time}.test.ts',
  'test/simulator/{driver,limits,persistence,rate-limits,render,signing,ui,web-api}.test.ts',
  'test/slack/sending/blocks.test.ts',
  'test/slack/approvals/approval-blocks.test.ts',
  'test/slack/kit/**/*.test.ts',
  'test/slack/listening/deadline.test.ts',
  'test/slack/web-api/gateway.test.ts',
  'test/webhooks/order-poller.test.ts',
  'test/http/slack-signature.test.ts',
  'test/observability/logs.test.ts',
  'test/installations/manifests.test.ts',
];
/** The pg tier: several app instances on one PostgreSQL under faults (they skip themselves on PGlite). */
const PG_TESTS = ['test/chaos/**/*.test.ts'];
// Browser tests live in test/browser and are run by their own command (npm run test:browser).
const NOT_HERE = ['test/browser/**', 'node_modules/**'];

export default defineConfig({
  test: {
    // Test files start real servers and databases; two cores, so keep the pool small.
    pool: 'forks',
    maxWorkers: 2,
    projects: [
      { extends: true, test: { name: 'unit', include: UNIT_TESTS, exclude: NOT_HERE, testTimeout: 15_000 } },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/**/*.test.ts'],
          exclude: [...NOT_HERE, ...UNIT_TESTS, ...PG_TESTS],
          // A worker imports the app once for all its files instead of once per file (the imports were a
          // fifth of the tier's time). Nothing of the app keeps state at module level but memos, and each
          // test starts its own app, simulator and emulator; a file that fakes timers restores them.
          isolate: false,
          // Bounds, not measures: a test's waits each have their own bound (eventually, waitFor). On the
          // shared 2-core machine at load average 26, a file's first hook (a PGlite database migrated,
          // the emulator started) outlasted 60 s. A test that hangs still fails, later.
          testTimeout: 90_000,
          hookTimeout: 120_000,
        },
      },
      { extends: true, test: { name: 'pg', include: PG_TESTS, exclude: NOT_HERE, hookTimeout: 120_000 } },
    ],
  },
});
