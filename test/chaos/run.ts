// `npm run chaos -- --kudos 1000 --faults 0.3 [--seed N] [--runs K] [--approvals-share 0.2]
// [--reject-share 0.5] [--no-approvals] [--no-db-cut] [--no-stall] [--no-money-faults] [--app-node-args '--cpu-prof']`: the chaos run at any size, on the PostgreSQL of
// DATABASE_URL, with approvals in the mix, the database connection cut once, a worker stalled past
// its lease and the money faults (money-faults.ts) (all on by default).
// Prints what held and exits 1 if anything did not.
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { type ChaosResult, runChaos } from './chaos.js';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(name);
  const value = i >= 0 ? Number(process.argv[i + 1]) : NaN;
  return Number.isFinite(value) ? value : fallback;
}

export function problemsOf(r: ChaosResult, n: number): string[] {
  const problems: string[] = [];
  const a = r.approvals;
  // Every kudos ends placed, or rejected by an approver; nothing fails with faults that are all transient.
  const expectedPlaced = n - (a?.rejected ?? 0);
  if (r.kudos !== n) problems.push(`${r.kudos} kudos recorded, expected ${n}`);
  if (r.stuck.length > 0) problems.push(`${r.stuck.length} kudos stuck: ${JSON.stringify(r.stuck.slice(0, 5))}`);
  if (r.orders !== r.placed) problems.push(`${r.orders} orders for ${r.placed} placed kudos`);
  if (r.placed !== expectedPlaced)
    problems.push(
      `${r.placed} kudos placed, expected ${expectedPlaced}; ${r.failed} failed (the sender was told${r.failedWithoutNotice ? `, except ${r.failedWithoutNotice}` : ''})`,
    );
  if (r.keysSharedAcrossKudos !== 0) problems.push(`${r.keysSharedAcrossKudos} idempotency keys shared or unknown`);
  if (r.duplicateAnnouncements !== 0 || r.missingAnnouncements !== 0)
    problems.push(`announcements: ${r.duplicateAnnouncements} duplicates, ${r.missingAnnouncements} missing`);
  if (r.duplicateCompletionNotices !== 0 || r.missingCompletionNotices !== 0)
    problems.push(
      `completion notices: ${r.duplicateCompletionNotices} duplicates, ${r.missingCompletionNotices} missing`,
    );
  if (r.duplicateConfirmations !== 0 || r.missingConfirmations !== 0)
    problems.push(
      `confirmations to senders: ${r.duplicateConfirmations} duplicates, ${r.missingConfirmations} missing`,
    );
  if (r.chargedCents !== r.recordedCents)
    problems.push(`orders charged ${r.chargedCents} cents, kudos recorded as placed ${r.recordedCents} cents`);
  if (r.chargedButNotRecorded.length > 0)
    problems.push(
      `${r.chargedButNotRecorded.length} kudos charged but not recorded as placed: ${JSON.stringify(r.chargedButNotRecorded.slice(0, 5))}`,
    );
  if (r.recordedButNotCharged.length > 0)
    problems.push(
      `${r.recordedButNotCharged.length} kudos recorded as placed without an order: ${JSON.stringify(r.recordedButNotCharged.slice(0, 5))}`,
    );
  if (r.balanceMovedCents !== r.expectedBalanceMoveCents)
    problems.push(`balance moved ${r.balanceMovedCents} cents, expected ${r.expectedBalanceMoveCents}`);
  if (r.crashes.length > 0)
    problems.push(
      `${r.crashes.length} instance(s) exited on their own: ${JSON.stringify(r.crashes.map((c) => ({ code: c.code, signal: c.signal, last: c.lastLines.slice(-3) })))}`,
    );
  if (r.moneyFaults) problems.push(...r.moneyFaults.problems);
  if (a) {
    if (a.requests !== a.gated)
      problems.push(`${a.requests} approval requests for ${a.gated} kudos above the threshold`);
    if (a.undecided !== 0) problems.push(`${a.undecided} approval requests never decided`);
    if (a.decisionsNotOne !== 0)
      problems.push(`${a.decisionsNotOne} approval requests without exactly one decision in the audit trail`);
    if (a.statusMismatch !== 0) problems.push(`${a.statusMismatch} approval requests disagree with their kudos`);
    if (a.approvedPlacedWithoutOneOrder !== 0)
      problems.push(`${a.approvedPlacedWithoutOneOrder} approved kudos without exactly one order`);
    if (a.rejectedWithOrder !== 0) problems.push(`${a.rejectedWithOrder} rejected kudos with an order`);
    if (a.duplicateDecisionNotices !== 0 || a.missingDecisionNotices !== 0)
      problems.push(
        `decision notices to senders: ${a.duplicateDecisionNotices} duplicates, ${a.missingDecisionNotices} missing`,
      );
    if (a.buttonsWithoutConfirm !== 0)
      problems.push(`${a.buttonsWithoutConfirm} approval buttons without a confirmation dialog`);
    if (a.raceErrors.length > 0)
      problems.push(`approval races that went wrong: ${a.raceErrors.slice(0, 5).join('; ')}`);
  }
  return problems;
}

/** Worth knowing, not a broken invariant: what users saw. */
export function notesOf(r: ChaosResult): string[] {
  const notes: string[] = [];
  const a = r.approvals;
  if (a) {
    if (a.duplicateWaitingNotices || a.missingWaitingNotices)
      notes.push(
        `"waiting for approval" notices: ${a.duplicateWaitingNotices} duplicates, ${a.missingWaitingNotices} missing`,
      );
    if (a.staleRequestMessages)
      notes.push(`${a.staleRequestMessages} decided requests whose channel message still shows the buttons`);
    if (a.repostedRequests) notes.push(`${a.repostedRequests} requests posted to the channel twice`);
    if (a.losersTold !== a.races)
      notes.push(
        `the losing approver was told who decided first within 3 s in ${a.losersTold} of ${a.races} races${a.losersToldLate ? `, within 10 s in ${a.losersTold + a.losersToldLate}` : ''}`,
      );
  }
  return notes;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const n = arg('--kudos', 300);
  const faults = arg('--faults', 0.2);
  const runs = arg('--runs', 1);
  const approvalsShare = process.argv.includes('--no-approvals') ? 0 : arg('--approvals-share', 0.2);
  const rejectShare = arg('--reject-share', 0.5);
  const dbCut = !process.argv.includes('--no-db-cut');
  const seedArg = process.argv.includes('--seed') ? arg('--seed', 1) : undefined;
  const nodeArgsAt = process.argv.indexOf('--app-node-args');
  const appNodeArgs = nodeArgsAt >= 0 ? (process.argv[nodeArgsAt + 1] ?? '').split(/\s+/).filter(Boolean) : [];
  let failedRuns = 0;
  for (let run = 1; run <= runs; run++) {
    const result = await runChaos({
      kudos: n,
      faults,
      approvalsShare,
      rejectShare,
      dbCut,
      stallWorker: !process.argv.includes('--no-stall'),
      moneyFaults: !process.argv.includes('--no-money-faults'),
      appNodeArgs,
      // Big runs need longer to drain; the default suits 300.
      settleTimeoutMs: Math.max(240_000, n * 600),
      ...(seedArg !== undefined ? { seed: seedArg + run - 1 } : {}),
      log: (m) => console.error(m),
    });
    const problems = problemsOf(result, n);
    console.log(
      JSON.stringify(
        {
          run,
          ...result,
          stuck: result.stuck.length,
          moneyFaults: result.moneyFaults && { ...result.moneyFaults, kudosIds: result.moneyFaults.kudosIds.length },
          chargedButNotRecorded: result.chargedButNotRecorded.length,
          recordedButNotCharged: result.recordedButNotCharged.length,
          problems,
          notes: notesOf(result),
        },
        null,
        2,
      ),
    );
    if (problems.length > 0) failedRuns++;
  }
  console.log(
    failedRuns === 0
      ? `chaos: ${runs} run(s), everything held`
      : `chaos: ${failedRuns} of ${runs} run(s) broke an invariant`,
  );
  process.exit(failedRuns === 0 ? 0 : 1);
}
