// Chaos (PostgreSQL only: two instances must share one real database): 200 kudos over two app
// instances behind a load balancer, 20% of Rewards API requests faulted (lost answers after the
// order was created among them), one instance SIGKILLed mid-run and restarted, one stalled past its
// worker lease; then the money faults (money-faults.ts): sends racing one budget, sends
// scheduled three weeks ahead with the emulator clock advanced, reward links refused part-way. Everything that must hold for money is checked afterwards, and every
// notice exactly once (the notice outbox). `npm run chaos -- --kudos 1000 --faults 0.3` runs it
// larger, with the approvals race and the database cut (test/chaos/run.ts).
import { describe, expect, it } from 'vitest';

import { AMOUNT_CENTS, runChaos } from './chaos.js';

/** Enough for the kill and the stall to land mid-run; `npm run chaos` runs more. */
const KUDOS = 200;

describe('chaos', () => {
  it.skipIf(!process.env.DATABASE_URL)(
    '200 kudos, 20% faults, one instance killed: one order each, notices exactly once, exact balance, nothing stuck',
    async () => {
      const startedAt = Date.now();
      const result = await runChaos({
        kudos: KUDOS,
        faults: 0.2,
        approvalsShare: 0,
        dbCut: false,
        log: (m) => process.stderr.write(`[${Math.round((Date.now() - startedAt) / 1000)} s] ${m}\n`),
      });
      process.stderr.write(`chaos result: ${JSON.stringify(result)}\n`);
      expect(result.crashes).toEqual([]);
      expect(result.stuck).toEqual([]);
      expect(result.kudos).toBe(KUDOS);
      // Every kudos placed: transient faults are retried with the same key until they pass.
      expect(result.placed).toBe(KUDOS);
      expect(result.failed).toBe(0);
      expect(result.orders).toBe(KUDOS);
      expect(result.distinctOrderKeys).toBe(KUDOS);
      expect(result.keysSharedAcrossKudos).toBe(0);
      // Everyone told exactly once, whatever was killed.
      expect(result.duplicateAnnouncements).toBe(0);
      expect(result.missingAnnouncements).toBe(0);
      expect(result.duplicateCompletionNotices).toBe(0);
      expect(result.missingCompletionNotices).toBe(0);
      expect(result.duplicateConfirmations).toBe(0);
      expect(result.missingConfirmations).toBe(0);
      expect(result.balanceMovedCents).toBe(result.expectedBalanceMoveCents);
      expect(result.chargedCents).toBe(result.recordedCents);
      expect(result.chargedButNotRecorded).toEqual([]);
      expect(result.recordedButNotCharged).toEqual([]);
      // The money faults: a stalled worker past its lease changed nothing; sends racing one budget
      // stayed within it; sends scheduled three weeks ahead were told once when the emulator's clock
      // got there; a reward-link request refused part-way charged exactly what it recorded; a send in
      // parts and a reward-link request whose first answers were lost went out whole, once; birthdays
      // skipped or corrected during dispatch were sent at most once, as acknowledged.
      expect(result.stall?.stalledMs).toBeGreaterThan(result.stall?.leaseMs ?? Infinity);
      expect(result.moneyFaults?.problems).toEqual([]);
      expect(result.moneyFaults?.budget.overspent).toBe(false);
      expect(result.moneyFaults?.scheduled.completed).toBe(5);
      expect(result.moneyFaults?.links.status).toBe('partial');
      expect(result.moneyFaults?.links.chargedCents).toBe(result.moneyFaults?.links.recordedCents);
      expect(result.moneyFaults?.firstParts.send.status).toBe('placed');
      expect(result.moneyFaults?.firstParts.links.status).toBe('placed');
      expect(result.moneyFaults?.automations.sent).toBeGreaterThanOrEqual(8);
      expect(result.balanceMovedCents).toBeGreaterThanOrEqual(KUDOS * AMOUNT_CENTS);
      expect(result.failedWithoutNotice).toBe(0);
      expect(Object.keys(result.faultsInjected).sort()).toEqual([
        'delay:3000',
        'drop',
        'status:429',
        'status:500',
        'status:503',
      ]);
    },
    900_000,
  );
});
