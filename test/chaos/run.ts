// `npm run chaos -- --kudos 1000 --faults 0.3 [--seed N] [--runs K]`: the chaos run at any size,
// on the PostgreSQL of DATABASE_URL. Prints what held and exits 1 if anything did not.
import { runChaos, type ChaosResult } from './chaos.js';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(name);
  const value = i >= 0 ? Number(process.argv[i + 1]) : NaN;
  return Number.isFinite(value) ? value : fallback;
}

export function problemsOf(r: ChaosResult, n: number): string[] {
  const problems: string[] = [];
  if (r.kudos !== n) problems.push(`${r.kudos} kudos recorded, expected ${n}`);
  if (r.stuck.length > 0) problems.push(`${r.stuck.length} kudos stuck: ${JSON.stringify(r.stuck.slice(0, 5))}`);
  if (r.orders !== r.placed) problems.push(`${r.orders} orders for ${r.placed} placed kudos`);
  if (r.placed !== n) problems.push(`${r.failed} kudos failed (the sender was told${r.failedWithoutNotice ? `, except ${r.failedWithoutNotice}` : ''})`);
  if (r.keysSharedAcrossKudos !== 0) problems.push(`${r.keysSharedAcrossKudos} idempotency keys shared or unknown`);
  if (r.duplicateAnnouncements !== 0) problems.push(`${r.duplicateAnnouncements} announcements posted twice`);
  if (r.missingAnnouncements !== 0) problems.push(`${r.missingAnnouncements} placed kudos without an announcement (at-most-once notify hit by the SIGKILL)`);
  if (r.duplicateCompletionNotices !== 0 || r.missingCompletionNotices !== 0) problems.push(`completion notices: ${r.duplicateCompletionNotices} duplicates, ${r.missingCompletionNotices} missing`);
  if (r.balanceMovedCents !== r.expectedBalanceMoveCents) problems.push(`balance moved ${r.balanceMovedCents} cents, expected ${r.expectedBalanceMoveCents}`);
  return problems;
}

const n = arg('--kudos', 300);
const faults = arg('--faults', 0.2);
const runs = arg('--runs', 1);
const seedArg = process.argv.includes('--seed') ? arg('--seed', 1) : undefined;
let failedRuns = 0;
for (let run = 1; run <= runs; run++) {
  const result = await runChaos({ kudos: n, faults, ...(seedArg !== undefined ? { seed: seedArg + run - 1 } : {}), log: (m) => console.error(m) });
  const problems = problemsOf(result, n);
  console.log(JSON.stringify({ run, ...result, stuck: result.stuck.length, problems }, null, 2));
  if (problems.length > 0) failedRuns++;
}
console.log(failedRuns === 0 ? `chaos: ${runs} run(s), everything held` : `chaos: ${failedRuns} of ${runs} run(s) broke an invariant`);
process.exit(failedRuns === 0 ? 0 : 1);
