// The chaos run shared by test/chaos/chaos.test.ts (300 kudos, 20% faults) and `npm run chaos`
// (any size): N kudos through signed Slack requests, spread by a load balancer over two app
// instances (the built app, `node dist/main.js`, as child processes) on one PostgreSQL database,
// while the Rewards emulator faults a share of the requests (429 with headers, 500, 503, dropped
// connections, 3 s delays) and
// - one instance is SIGKILLed a third of the way in and started again;
// - a share of the kudos (default 1 in 5) is above the approval threshold: two approvers decide each
//   request within 50 ms of each other (both Approve, or one Approve and one Reject), through the
//   load balancer (approvers.ts);
// - half-way, every server connection of the app instances to the database is terminated (db-cut.ts).
// Then it checks what must hold whatever happened: one order per placed kudos and none for a
// rejected one, keys never shared, one decision per approval request, each announcement,
// completion notice, confirmation and decision notice posted once, the balance moved by exactly the
// total placed, nothing stuck. It also reports what the app did around the cut and the kill.
import { eq, inArray, sql } from 'drizzle-orm';

import { benchUserId, benchWorkspace } from '../../bench/app-stack.js';
import { approvalRequests, auditEvents, kudos, notifications, orderChecks } from '../../src/db/schema/index.js';
import { sendKeyOf } from '../../src/domain/sending/kudos-parts.js';
import { startEmulator } from '../../src/emulator/server.js';
// The emulator's seeded PRNG (mulberry32): the run's choices (who races whom, in which order) repeat with the same seed.
import { seededRandom } from '../../src/emulator/state/random-faults.js';
import { startSlackSimulator, type View } from '../../src/simulator/slack.js';
import { sendModalValues } from '../support/app.js';
import { createTestDatabase } from '../support/db.js';
import { dmStories } from '../support/sender-dm.js';
import { appEnv, type AppProcess, type LogLine, startAppProcess } from './app-process.js';
import { type ApproverCrowd, type RaceRecord, startApproverCrowd, stillOpen } from './approvers.js';
import { appConnectionCount, cutAppConnections, type DatabaseCut, withApplicationName } from './db-cut.js';
import { firstPartsGroup } from './first-parts.js';
import { startLoadBalancer } from './load-balancer.js';
import { type MoneyFaultsResult, moneyFaultUsers, runMoneyFaults } from './money-faults.js';
import { LINKS_ADMIN } from './money-steps.js';

export interface ChaosOptions {
  kudos: number;
  /** Share of Rewards API requests faulted, 0..1. */
  faults: number;
  seed?: number;
  /** Submissions in flight at once. */
  concurrency?: number;
  /** Give up waiting for everything to settle after this long. */
  settleTimeoutMs?: number;
  /** Share of kudos above the approval threshold, decided by two racing approvers; 0: no approvals. Default 0.2. */
  approvalsShare?: number;
  /** Of the approval races, the share with one Approve and one Reject (the rest: two Approves). Default 0.5. */
  rejectShare?: number;
  /** Terminate the app instances' database connections once, half-way through the submissions. Default true. */
  dbCut?: boolean;
  /**
   * The money faults after the main run (money-faults.ts): concurrent sends against one
   * budget, sends scheduled weeks ahead with the emulator clock advanced, a reward-link request
   * refused part-way. Default true.
   */
  moneyFaults?: boolean;
  /** Stop one instance (SIGSTOP) past its worker lease mid-run, then let it go on. Default true. */
  stallWorker?: boolean;
  /** Extra node flags for the app instances (profiling, a loader). */
  appNodeArgs?: string[];
  log?: (message: string) => void;
}

export interface ApprovalsResult {
  share: number;
  /** Kudos sent above the threshold, and those the app recorded with an approval request. */
  gated: number;
  requests: number;
  /** Requests posted to the channel more than once (a re-post after an interrupted posting). */
  repostedRequests: number;
  races: number;
  approveApprove: number;
  approveReject: number;
  /** Races whose two decisive requests reached different instances (through the load balancer). */
  racesAcrossInstances: number;
  /**
   * Time between the load balancer forwarding the two decisive requests of a race to the instances
   * (planned 0..45 ms; the harness's busy event loop adds to it).
   */
  gapMsP50: number;
  maxGapMs: number;
  racesWithin50ms: number;
  approved: number;
  rejected: number;
  /** Approved, then placing failed for good (the sender told): no order. */
  approvedButFailed: number;
  undecided: number;
  /** Approval requests whose audit trail does not show exactly one decision. */
  decisionsNotOne: number;
  /** Request and kudos disagree (approved but not placed/failed, rejected but not rejected). */
  statusMismatch: number;
  approvedPlacedWithoutOneOrder: number;
  rejectedWithOrder: number;
  duplicateDecisionNotices: number;
  missingDecisionNotices: number;
  duplicateWaitingNotices: number;
  missingWaitingNotices: number;
  /** Decided requests whose message in the channel still shows the buttons. */
  staleRequestMessages: number;
  /** The losing approver was told privately who decided first. */
  losersTold: number;
  losersNotTold: Array<
    Pick<
      RaceRecord,
      'kudosId' | 'plan' | 'first' | 'second' | 'winner' | 'statuses' | 'retries' | 'loserToldLateMs' | 'buttonGoneFor'
    >
  >;
  /** Races where an approver went to click and the message already showed the decision (they read it there). */
  buttonsGoneBeforeClick: number;
  /** Of those not told within 3 s, told within 10 s. */
  losersToldLate: number;
  clickRetries: number;
  non200Answers: number;
  buttonsWithoutConfirm: number;
  raceErrors: string[];
  decidedAfterMsP50: number;
  decidedAfterMsMax: number;
}

export interface EventWindow {
  /** Requests Slack users made that were answered with something else than 200 (0: no answer), by status. */
  non200: Record<string, number>;
  /** Submissions and dialogs the user had to send again (an error shown). */
  userRetries: number;
  /** warn/error log lines of the instances, by message (and error code). */
  logged: Record<string, number>;
}

export interface DbCutResult extends DatabaseCut {
  afterSubmissions: number;
  atSeconds: number;
  /** In the 20 s from the cut (the kill's window ends where the cut's begins). */
  window: EventWindow;
  /** From the cut to the next submission that succeeded, and to the next order recorded as placed. */
  firstSubmissionOkAfterMs: number | null;
  firstOrderPlacedAfterMs: number | null;
  /** Server connections of the instances just before the cut and at the end (reconnected). */
  appConnectionsBefore: number;
  appConnectionsAfter: number;
}

export interface StallResult {
  pid: number;
  afterSubmissions: number;
  stalledMs: number;
  leaseMs: number;
  /** Log lines of the stalled instance after it went on: calls aborted for a lost lease, writes fenced out. */
  leaseLostLines: number;
  claimLostLines: number;
}

export interface ChaosResult {
  kudos: number;
  placed: number;
  failed: number;
  orders: number;
  distinctOrderKeys: number;
  keysSharedAcrossKudos: number;
  /** Announcements posted (one per sender in this run: each sender sends one kudos). */
  announcements: number;
  duplicateAnnouncements: number;
  /** Placed kudos without an announcement. */
  missingAnnouncements: number;
  completionNotices: number;
  duplicateCompletionNotices: number;
  missingCompletionNotices: number;
  /** The sender's "on its way" DM of a placed kudos. */
  duplicateConfirmations: number;
  missingConfirmations: number;
  balanceMovedCents: number;
  expectedBalanceMoveCents: number;
  /** Rows not settled at the end, with what says why: claims, failed calls and when the next try was due. */
  stuck: Array<{
    id: string;
    status: string;
    attempts: number;
    failedCalls: number;
    nextAttemptAt: string;
    errorCode: string | null;
  }>;
  /** Cent for cent: the API's orders against the kudos recorded as placed. */
  chargedCents: number;
  recordedCents: number;
  /** Kudos with an order in the API but recorded as not placed (failed, unknown...), and the reverse. */
  chargedButNotRecorded: Array<{ id: string; status: string }>;
  recordedButNotCharged: Array<{ id: string; status: string }>;
  outcomeUnknown: number;
  failedWithoutNotice: number;
  faultsInjected: Record<string, number>;
  rewardsRequestsSeen: number;
  userRetries: number;
  approvals: ApprovalsResult | undefined;
  dbCut: DbCutResult | undefined;
  kill: { afterSubmissions: number; window: EventWindow };
  /** Instances that exited without being told to (restarted, as a supervisor would). */
  crashes: Array<{ pid: number; code: number | null; signal: string | null; atSeconds: number; lastLines: string[] }>;
  /** Placed kudos without a completion notice: their completion check and outbox row, as left. */
  missingCompletionDetails: Array<Record<string, unknown>>;
  /** warn/error log lines of all instances over the whole run, by message. */
  logged: Record<string, number>;
  /** The stalled worker (a stopped instance outliving its lease). */
  stall: StallResult | undefined;
  moneyFaults: MoneyFaultsResult | undefined;
  seconds: number;
}

/** Slack's rate limits times this, in the simulator and the app alike. */
const CHAOS_SLACK_RATE_SCALE = 10;
const SIGNING_SECRET = 'chaos-signing-secret';
const CHANNEL = 'C_KUDOS';
const APPROVAL_CHANNEL = 'C_APPROVALS';
export const AMOUNT_CENTS = 500;
/** Above the threshold ($10): needs approval. */
export const GATED_AMOUNT_CENTS = 2000;
const THRESHOLD_USD = '10';
const APPROVERS = Array.from({ length: 6 }, (_, i) => `U_CHAOS_APPROVER${i + 1}`);
const WINDOW_MS = 20_000;
/** The instances' worker lease in the run: short, so that a stalled worker outlives it in seconds. */
const WORKER_LEASE_MS = 10_000;

async function control(url: string, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${url}/_emulator${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`emulator ${method} ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

async function apiGet(url: string, path: string, token: string): Promise<any> {
  const res = await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${token}` } });
  if (!res.ok) throw new Error(`GET ${path}: ${res.status}`);
  return res.json();
}

async function token(url: string): Promise<string> {
  const res = await fetch(`${url}/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: 'production-client',
      client_secret: 'production-secret',
    }),
  });
  const answer = (await res.json()) as { access_token?: string };
  if (!answer.access_token) throw new Error(`token: ${res.status}`);
  return answer.access_token;
}

function countBy(keys: Array<string | undefined>): Map<string, number> {
  const counts = new Map<string, number>();
  for (const key of keys) if (key) counts.set(key, (counts.get(key) ?? 0) + 1);
  return counts;
}
const sum = (counts: Map<string, number>) => [...counts.values()].reduce((a, b) => a + b, 0);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Kudos i is above the threshold: `share` of them, spread evenly (1 in 5 for 0.2). */
export function isGated(i: number, share: number): boolean {
  return share > 0 && Math.floor((i + 1) * share) > Math.floor(i * share);
}

function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** The key a log line is counted under: its message and, when there is one, its error's code. */
function logKey(line: LogLine): string {
  const error = line.error as { code?: unknown; message?: unknown } | undefined;
  const code =
    error && typeof error === 'object'
      ? (error.code ?? (typeof error.message === 'string' ? error.message.slice(0, 60) : undefined))
      : undefined;
  return `${line.level}: ${line.msg ?? ''}${code ? ` (${String(code)})` : ''}`;
}

export async function runChaos(opts: ChaosOptions): Promise<ChaosResult> {
  const adminUrl = process.env.DATABASE_URL;
  if (!adminUrl) throw new Error('the chaos run needs DATABASE_URL (two instances on one PostgreSQL)');
  const log = opts.log ?? (() => {});
  const n = opts.kudos;
  const share = opts.approvalsShare ?? 0.2;
  const rng = seededRandom(opts.seed ?? Math.floor(Math.random() * 2 ** 31));
  const started = performance.now();
  const startedAt = Date.now();
  const db = await createTestDatabase();
  const dbName = new URL(db.url!).pathname.slice(1);
  const emulator = await startEmulator({ port: 0, host: '127.0.0.1' });
  const apps: AppProcess[] = [];
  let sim: Awaited<ReturnType<typeof startSlackSimulator>> | undefined;
  let lb: Awaited<ReturnType<typeof startLoadBalancer>> | undefined;
  let crowd: ApproverCrowd | undefined;
  let closing = false;
  // What users saw, and what the instances logged, over time (Date.now()).
  const answers: Array<{ at: number; what: string; status: number }> = [];
  const retries: number[] = [];
  const logged: Array<{ at: number; key: string }> = [];
  const crashes: ChaosResult['crashes'] = [];
  const killedOnPurpose = new Set<number>();
  try {
    await control(emulator.url, 'POST', '/limits', {
      dailyLimitUsd: 10_000_000,
      monthlyLimitUsd: 100_000_000,
      environment: 'production',
    });
    await control(emulator.url, 'POST', '/balance', { amount: 1_000_000, environment: 'production' });
    let apiToken = await token(emulator.url);
    // The token expires on the emulator's clock, which the money faults advance by weeks.
    // The harness's own reads go through the random faults too while they are on: tried again.
    const api = async (path: string) => {
      for (let attempt = 1; ; attempt++) {
        try {
          return await apiGet(emulator.url, path, apiToken);
        } catch (error) {
          if (attempt >= 30) throw error;
          if (String(error).includes(': 401')) apiToken = await token(emulator.url).catch(() => apiToken);
          await sleep(200);
        }
      }
    };
    const balanceBefore = await api('/api/v1/balance');

    const workspace = benchWorkspace(n);
    for (const [i, id] of APPROVERS.entries()) {
      workspace.users.push({
        id,
        name: `approver${i + 1}`,
        realName: `Chaos Approver${i + 1}`,
        displayName: `Approver${i + 1}`,
        email: `approver-${i + 1}@example.com`,
        tz: 'Europe/London',
        isAdmin: false,
        isOwner: false,
        isBot: false,
        deleted: false,
        role: 'approver',
      });
    }
    workspace.channels.find((c) => c.id === APPROVAL_CHANNEL)!.members.push(...APPROVERS);
    const moneyFaults = opts.moneyFaults !== false;
    if (moneyFaults) {
      workspace.users.push(...moneyFaultUsers());
      workspace.usergroups.push(firstPartsGroup());
    }
    // 300 kudos in about two minutes are 600 posts in one channel, past Slack's post a second there: the
    // simulator's limits and the app's pacing are raised alike (this run is about money, not Slack's limits).
    sim = await startSlackSimulator({
      signingSecret: SIGNING_SECRET,
      workspace,
      rateLimits: { scale: CHAOS_SLACK_RATE_SCALE },
    });
    const env = appEnv({
      emulatorUrl: emulator.url,
      slackApiUrl: sim.apiUrl,
      botToken: sim.botToken,
      signingSecret: SIGNING_SECRET,
      databaseUrl: withApplicationName(db.url!),
      extra: {
        KUDOS_NOTIFY_CHANNEL: CHANNEL,
        KUDOS_SLACK_RATE_SCALE: String(CHAOS_SLACK_RATE_SCALE),
        KUDOS_WORKER_LEASE_MS: String(WORKER_LEASE_MS),
        ...(moneyFaults ? { KUDOS_ADMINS: LINKS_ADMIN } : {}),
        ...(share > 0
          ? {
              KUDOS_APPROVAL_THRESHOLD: THRESHOLD_USD,
              KUDOS_APPROVERS: APPROVERS.join(','),
              KUDOS_APPROVAL_CHANNEL: APPROVAL_CHANNEL,
            }
          : {}),
      },
    });
    const start = () =>
      startAppProcess(env, {
        quietAfterStart: true,
        ...(opts.appNodeArgs?.length ? { nodeArgs: opts.appNodeArgs } : {}),
        onLine: (line) => {
          if (line.level === 'warn' || line.level === 'error' || line.level === 'stderr')
            logged.push({ at: Date.now(), key: logKey(line) });
        },
      });
    // An instance that exits on its own is a crash: reported, and started again as a supervisor would.
    const supervise = (slot: number, app: AppProcess) => {
      void app.exited.then(async ({ code, signal }) => {
        if (closing || killedOnPurpose.has(app.pid)) return;
        crashes.push({
          pid: app.pid,
          code,
          signal,
          atSeconds: Math.round((Date.now() - startedAt) / 100) / 10,
          lastLines: app.logs.slice(-40).map((l) => JSON.stringify(l)),
        });
        log(`chaos: instance ${app.pid} CRASHED (${code ?? signal}); restarting it`);
        const again = await start();
        apps[slot] = again;
        lb!.backends = apps.map((a) => a.url);
        supervise(slot, again);
      });
    };
    // The first instance migrates; the second starts on the migrated database.
    apps.push(await start());
    apps.push(await start());
    apps.forEach((app, slot) => supervise(slot, app));
    lb = await startLoadBalancer(apps.map((a) => a.url));
    sim.setAppUrl(lb.url);
    // Webhooks go through the load balancer too, as in production.
    await control(emulator.url, 'PUT', '/webhook', { url: `${lb.url}/webhooks/rewards` });

    // Which instance took each approval decision (to tell whether a race's two requests were split).
    const decisiveBackend = new Map<string, { backend: string; at: number }>();
    lb.onForward = ({ backend, body, forwardedAt }) => {
      if (!backend || !body.includes('approval_')) return;
      try {
        const payload = JSON.parse(new URLSearchParams(body.toString('utf8')).get('payload') ?? '{}');
        const user = payload.user?.id;
        let key: string | undefined;
        if (payload.type === 'block_actions' && payload.actions?.[0]?.action_id === 'approval_approve')
          key = `approve:${payload.actions[0].value}:${user}`;
        if (payload.type === 'view_submission' && payload.view?.callback_id === 'approval_reject_modal')
          key = `reject:${JSON.parse(payload.view.private_metadata).kudosId}:${user}`;
        if (key && !decisiveBackend.has(key)) decisiveBackend.set(key, { backend, at: forwardedAt });
      } catch {
        // not a payload of ours
      }
    };

    await control(emulator.url, 'PUT', '/faults/random', {
      probability: opts.faults,
      ...(opts.seed !== undefined ? { seed: opts.seed } : {}),
    });
    const gatedCount = Array.from({ length: n }, (_, i) => isGated(i, share)).filter(Boolean).length;
    log(
      `chaos: ${n} kudos (${gatedCount} above the approval threshold), ${Math.round(opts.faults * 100)}% of Rewards API requests faulted, ` +
        `instances ${apps.map((a) => a.pid).join(', ')}${opts.dbCut === false ? '' : ', database cut half-way'}`,
    );

    const theSim = sim;
    if (share > 0) {
      crowd = startApproverCrowd({
        sim,
        channel: APPROVAL_CHANNEL,
        approvers: APPROVERS,
        rng,
        rejectShare: opts.rejectShare ?? 0.5,
        decisionOf: async (kudosId) => {
          const [r] = await db.db
            .select({ status: approvalRequests.status, decidedBy: approvalRequests.decidedBy })
            .from(approvalRequests)
            .where(eq(approvalRequests.kudosId, kudosId));
          return r;
        },
        onAnswer: (what, status) => answers.push({ at: Date.now(), what, status }),
        log,
      });
    }

    let userRetries = 0;
    const retry = () => {
      userRetries++;
      retries.push(Date.now());
    };
    const openModal = async (sender: string): Promise<View> => {
      for (let attempt = 0; ; attempt++) {
        const previous = theSim.openViews(sender).at(-1)?.id;
        const answer = await theSim.slashCommand(sender, '', 'C_GENERAL').catch(() => ({ status: 0 }));
        answers.push({ at: Date.now(), what: '/kudos', status: answer.status });
        if (answer.status === 200) {
          const view = await theSim
            .waitFor(() => {
              const top = theSim.openViews(sender).at(-1);
              return top && top.id !== previous ? top : undefined;
            }, 6000)
            .catch(() => undefined);
          if (view) return view;
        }
        if (attempt >= 20) throw new Error(`could not open the modal for ${sender}`);
        retry();
        await sleep(300);
      }
    };
    const firstSubmissionOkAt: number[] = [];
    // What the send window says after Send was answered, read as the sender would read it.
    const outcomeShown = (viewId: string, sender: string): 'closed' | 'form' | 'checking' | 'recorded' | 'not sent' => {
      const view = theSim.openViews(sender).find((v) => v.id === viewId);
      if (!view) return 'closed';
      const text = JSON.stringify(view.blocks);
      if (text.includes('Nothing was sent')) return 'not sent';
      if (text.includes('Your kudos is recorded')) return 'recorded';
      if (text.includes('takes a few seconds more')) return 'checking';
      return 'form';
    };
    const submit = async (i: number): Promise<void> => {
      const sender = benchUserId(i);
      const amount = isGated(i, share) ? GATED_AMOUNT_CENTS : AMOUNT_CENTS;
      const values = sendModalValues({
        users: [benchUserId((i + 1) % n)],
        design: 'CC-THANK-YOU',
        amount: String(amount / 100),
      });
      for (let start = 0; ; start++) {
        const view = await openModal(sender);
        for (let attempt = 0; ; attempt++) {
          // The user presses Send again until Slack closes the modal or it says how the send went
          // (a lost answer shows an error, though the app may have taken it).
          if (outcomeShown(view.id, sender) !== 'form') break;
          const answer = await theSim.submitView(view.id, values, sender).catch(() => ({ status: 0 }));
          answers.push({ at: Date.now(), what: 'send form', status: answer.status });
          if (answer.status === 200 && outcomeShown(view.id, sender) !== 'form') break;
          if (attempt >= 20) throw new Error(`submission of ${sender} kept failing (${answer.status})`);
          retry();
          await sleep(300);
        }
        // The checks went on after the answer: the window changes again when they end.
        const outcome = await theSim
          .waitFor(() => {
            const shown = outcomeShown(view.id, sender);
            return shown === 'checking' ? undefined : shown;
          }, 60_000)
          .catch(() => 'checking' as const);
        if (outcome === 'closed' || outcome === 'recorded') {
          firstSubmissionOkAt.push(Date.now());
          return;
        }
        // "Nothing was sent", or still "checking" after a minute (the instance doing the checks was
        // killed): the sender closes the window and uses /kudos again.
        if (outcome === 'checking') log(`chaos: the send window of ${sender} still said "checking" after a minute`);
        if (start >= 5) throw new Error(`the send of ${sender} was not accepted after ${start + 1} tries`);
        retry();
        await theSim.closeView(view.id, sender, true).catch(() => undefined);
      }
    };

    // Kill one instance a third of the way in and start it again shortly after; once it is back,
    // half-way through, cut every database connection of the instances.
    let submitted = 0;
    const killAt = Math.floor(n / 3);
    const cutAt = Math.floor(n / 2);
    let killed: Promise<void> | undefined;
    let killedAt = 0;
    let cut: Promise<void> | undefined;
    let cutResult: (DatabaseCut & { at: number; appConnectionsBefore: number; afterSubmissions: number }) | undefined;
    // A stalled worker: one instance stopped (SIGSTOP) longer than its lease while it places orders,
    // then let go on. Its rows are taken over by the other instance with the same keys; whatever it
    // does when it wakes must change nothing (fenced writes, aborted calls).
    const stallAt = Math.floor(n * 0.7);
    let stalled: Promise<void> | undefined;
    let stall: StallResult | undefined;
    const concurrency = opts.concurrency ?? 8;
    let next = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < n) {
          const i = next++;
          await submit(i);
          submitted++;
          if (submitted === killAt && !killed) {
            killed = (async () => {
              const victim = apps[0]!;
              log(`chaos: SIGKILL instance ${victim.pid} after ${submitted} submissions`);
              killedOnPurpose.add(victim.pid);
              killedAt = Date.now();
              victim.kill('SIGKILL');
              await victim.exited;
              await sleep(1000);
              const restarted = await start();
              apps[0] = restarted;
              lb!.backends = apps.map((a) => a.url);
              supervise(0, restarted);
              log(`chaos: instance restarted as ${restarted.pid}`);
            })();
          }
          if (submitted === stallAt && opts.stallWorker !== false && !stalled) {
            const afterSubmissions = submitted;
            stalled = (async () => {
              await killed;
              await cut;
              const victim = apps[1]!;
              const others = apps.filter((a) => a !== victim).map((a) => a.url);
              lb!.backends = others; // Slack's requests go elsewhere: the worker is what stalls
              const stalledMs = WORKER_LEASE_MS + 5000;
              log(
                `chaos: SIGSTOP instance ${victim.pid} for ${stalledMs} ms (worker lease ${WORKER_LEASE_MS} ms) after ${afterSubmissions} submissions`,
              );
              const before = victim.logs.length;
              victim.kill('SIGSTOP');
              await sleep(stalledMs);
              victim.kill('SIGCONT');
              lb!.backends = apps.map((a) => a.url);
              await sleep(5000);
              const after = victim.logs.slice(before);
              stall = {
                pid: victim.pid,
                afterSubmissions,
                stalledMs,
                leaseMs: WORKER_LEASE_MS,
                leaseLostLines: after.filter((l) => String(l.msg ?? '').startsWith('lease lost')).length,
                claimLostLines: after.filter((l) => String(l.msg ?? '').includes('claim was lost')).length,
              };
              log(
                `chaos: instance ${victim.pid} went on: ${stall.leaseLostLines} calls aborted for a lost lease, ${stall.claimLostLines} writes fenced out`,
              );
            })();
          }
          if (submitted === cutAt && opts.dbCut !== false && !cut) {
            const afterSubmissions = submitted;
            cut = (async () => {
              await killed;
              const appConnectionsBefore = await appConnectionCount(adminUrl, dbName);
              const at = Date.now();
              const result = await cutAppConnections(adminUrl, dbName);
              cutResult = { ...result, at, appConnectionsBefore, afterSubmissions };
              log(
                `chaos: database cut after ${afterSubmissions}+ submissions: ${result.terminated} server connections of the instances terminated (${JSON.stringify(result.states)})`,
              );
            })();
          }
        }
      }),
    );
    await killed;
    await cut;
    await stalled;
    log(
      `chaos: all ${n} submissions accepted (${userRetries} user retries); waiting for decisions, orders and notices`,
    );

    // Settle: every kudos placed or failed and told (or rejected), every placed order's completion
    // notice posted. Faults stay on: the app has to get there through them.
    const deadline = Date.now() + (opts.settleTimeoutMs ?? 240_000);
    for (;;) {
      const rows = await db.db.select({ status: kudos.status, notifiedAt: kudos.notifiedAt }).from(kudos);
      const settled = rows.filter(
        (r) => ((r.status === 'placed' || r.status === 'failed') && r.notifiedAt) || r.status === 'rejected',
      ).length;
      const completions = (
        await db.db
          .select({ id: notifications.id })
          .from(notifications)
          .where(eq(notifications.kind, 'order.completed'))
      ).length;
      const placed = rows.filter((r) => r.status === 'placed').length;
      if (rows.length === n && settled === n && completions >= placed) break;
      if (Date.now() > deadline) {
        log(
          `chaos: not settled after the timeout: ${settled}/${n} settled, ${completions}/${placed} completion notices`,
        );
        break;
      }
      await sleep(500);
    }
    let money: MoneyFaultsResult | undefined;
    if (moneyFaults) {
      money = await runMoneyFaults({
        sim,
        db,
        teamId: workspace.team.id,
        recipient: benchUserId(0),
        control: (method, path, body) => control(emulator.url, method, path, body),
        apiGet: api,
        log,
        settleTimeoutMs: Math.min(opts.settleTimeoutMs ?? 240_000, 180_000),
        appUrl: lb.url,
        signingSecret: SIGNING_SECRET,
        channel: CHANNEL,
      });
    }
    await crowd?.stop();
    const faultState = await control(emulator.url, 'DELETE', '/faults/random');

    // What must hold. The main run's kudos and orders are counted apart from the money faults' (which
    // check themselves, money-faults.ts); the balance counts everything.
    const allRows = await db.db.select().from(kudos);
    const extra = new Set(money?.kudosIds ?? []);
    const rows = allRows.filter((r) => !extra.has(r.id));
    const allOrders: Array<{
      orderId: string;
      orderType?: string;
      clientOrderId?: string;
      idempotencyKey?: string;
      totalCost?: { amount: number | string };
    }> = [];
    for (let page = 1; ; page++) {
      const answer = await api(`/api/v1/orders?page=${page}&pageSize=100`);
      allOrders.push(...answer.data);
      if (answer.data.length < 100) break;
    }
    const keyOf = (o: { clientOrderId?: string; idempotencyKey?: string }) => o.clientOrderId ?? o.idempotencyKey ?? '';
    const extraKeys = new Set(allRows.filter((r) => extra.has(r.id)).map((r) => r.idempotencyKey));
    const isLinkOrder = (o: { orderId: string; orderType?: string }) =>
      o.orderType === 'LINK' || o.orderId.startsWith('LO');
    // A money fault's send in parts: its orders' keys are its own with `-n` (kudos-parts.ts).
    const orders = allOrders.filter((o) => !isLinkOrder(o) && !extraKeys.has(sendKeyOf(keyOf(o))));
    const kudosByKey = new Map(rows.map((r) => [r.idempotencyKey, r]));
    const orderKeys = orders.map(keyOf);
    const ordersByKey = countBy(orderKeys);
    const keysSharedAcrossKudos =
      orderKeys.length - new Set(orderKeys).size + orderKeys.filter((k) => !kudosByKey.has(k)).length;
    // Who an announcement is from (`<@U…> sent kudos`), whose kudos a completion notice is about
    // (`Kudos from <@U…>: … delivered`; plain words, no order id). Each sender sends one kudos.
    const posts = sim.calls
      .filter((c) => c.method === 'chat.postMessage' && c.ok && c.args.channel === CHANNEL)
      .map((c) => JSON.stringify(c.args));
    const mainSenders = new Set(rows.map((r) => r.senderUserId));
    const announcementsBySender = countBy(
      posts
        .map((p) => /<@(U_[A-Z0-9_]+)> sent kudos/.exec(p)?.[1])
        .filter((sender) => sender !== undefined && mainSenders.has(sender)),
    );
    const noticesBySender = countBy(
      posts
        .map((p) => /Kudos from <@(U_[A-Z0-9_]+)>: [^"]*delivered/.exec(p)?.[1])
        .filter((sender) => sender !== undefined && mainSenders.has(sender)),
    );
    // What each sender was told in their DM: each message as it is now, and each message's story (what
    // it said when posted and after each edit: the sender has one message per kudos, changed in place).
    const dmsOf = (sender: string) => theSim.messages(sender).filter((m) => !m.ephemeral && m.bot_id);
    const told = new Map(rows.map((r) => [r.id, dmsOf(r.senderUserId).map((m) => m.text)]));
    const countTold = (id: string, pattern: RegExp) => (told.get(id) ?? []).filter((t) => pattern.test(t)).length;
    const stories = new Map(rows.map((r) => [r.id, dmStories(theSim, r.senderUserId)]));
    /** The sender's messages that ever said `pattern` (when posted, or after an edit). */
    const countEverTold = (id: string, pattern: RegExp) =>
      (stories.get(id) ?? []).filter((story) => story.some((t) => pattern.test(t))).length;
    const balanceAfter = await api('/api/v1/balance');
    const cents = (b: any) => Math.round(Number((b.availableBalance ?? b.data?.availableBalance)?.amount) * 100);
    const failedRows = rows.filter((r) => r.status === 'failed');
    // Cent for cent: what the API charged (orders by key) against what the app recorded as placed.
    const spent = (r: (typeof rows)[number]) => r.status === 'placed' || r.status === 'scheduled';
    const chargedButNotRecorded = rows
      .filter((r) => !spent(r) && (ordersByKey.get(r.idempotencyKey) ?? 0) > 0)
      .map((r) => ({ id: r.id, status: r.status }));
    const recordedButNotCharged = rows
      .filter((r) => spent(r) && (ordersByKey.get(r.idempotencyKey) ?? 0) === 0)
      .map((r) => ({ id: r.id, status: r.status }));
    const chargedCents = orders.reduce((total, o) => total + Math.round(Number(o.totalCost?.amount ?? 0) * 100), 0);
    const recordedCents = rows.filter(spent).reduce((total, r) => total + (r.costCents ?? r.totalCents), 0);
    const placedRows = rows.filter((r) => r.status === 'placed');
    const confirmations = placedRows.map((r) => countTold(r.id, /^Your kudos (is on its way|was delivered)/));

    // Approvals.
    let approvals: ApprovalsResult | undefined;
    if (crowd) {
      const requests = (await db.db.select().from(approvalRequests)).filter((r) => !extra.has(r.kudosId));
      const decisionRows = await db.db
        .select({ subjectId: auditEvents.subjectId })
        .from(auditEvents)
        .where(inArray(auditEvents.action, ['approval.approved', 'approval.rejected']));
      const decisionsBy = countBy(decisionRows.map((d) => d.subjectId));
      const rowById = new Map(rows.map((r) => [r.id, r]));
      const races: RaceRecord[] = crowd.races;
      const approved = requests.filter((r) => r.status === 'approved');
      const rejected = requests.filter((r) => r.status === 'rejected');
      const decided = [...approved, ...rejected];
      const backendOf = (kind: 'approve' | 'reject', kudosId: string, user: string) =>
        decisiveBackend.get(`${kind}:${kudosId}:${user}`);
      // The gap as the instances saw it: between the load balancer forwarding the two decisive requests.
      const gaps = races.flatMap((r) => {
        const a = backendOf(r.first.kind, r.kudosId, r.first.user);
        const b = backendOf(r.second.kind, r.kudosId, r.second.user);
        return a && b ? [Math.round(Math.abs(b.at - a.at) * 10) / 10] : [];
      });
      const decidedAfter = races.flatMap((r) => (r.decidedAfterMs !== undefined ? [r.decidedAfterMs] : []));
      approvals = {
        share,
        gated: gatedCount,
        requests: requests.length,
        repostedRequests: [...crowd.requestMessages.values()].filter((tss) => tss.size > 1).length,
        races: races.length,
        approveApprove: races.filter((r) => r.plan === 'approve+approve').length,
        approveReject: races.filter((r) => r.plan === 'approve+reject').length,
        racesAcrossInstances: races.filter((r) => {
          const a = backendOf(r.first.kind, r.kudosId, r.first.user);
          const b = backendOf(r.second.kind, r.kudosId, r.second.user);
          return a !== undefined && b !== undefined && a.backend !== b.backend;
        }).length,
        gapMsP50: percentile(gaps, 50),
        maxGapMs: Math.max(0, ...gaps),
        racesWithin50ms: gaps.filter((g) => g <= 50).length,
        losersNotTold: races
          .filter((r) => r.outcome && !r.loserTold)
          .map((r) => ({
            kudosId: r.kudosId,
            plan: r.plan,
            first: r.first,
            second: r.second,
            winner: r.winner,
            statuses: r.statuses,
            retries: r.retries,
            loserToldLateMs: r.loserToldLateMs,
            buttonGoneFor: r.buttonGoneFor,
          })),
        buttonsGoneBeforeClick: races.filter((r) => r.buttonGoneFor.length > 0).length,
        losersToldLate: races.filter((r) => r.loserToldLateMs !== undefined).length,
        approved: approved.length,
        rejected: rejected.length,
        approvedButFailed: approved.filter((r) => rowById.get(r.kudosId)?.status === 'failed').length,
        undecided: requests.length - decided.length,
        decisionsNotOne: requests.filter((r) => (decisionsBy.get(r.kudosId) ?? 0) !== 1).length,
        statusMismatch:
          approved.filter((r) => !['placed', 'failed'].includes(rowById.get(r.kudosId)?.status ?? '')).length +
          rejected.filter((r) => rowById.get(r.kudosId)?.status !== 'rejected').length,
        approvedPlacedWithoutOneOrder: approved.filter((r) => {
          const k = rowById.get(r.kudosId);
          return k?.status === 'placed' && ordersByKey.get(k.idempotencyKey) !== 1;
        }).length,
        rejectedWithOrder: rejected.filter(
          (r) => (ordersByKey.get(rowById.get(r.kudosId)?.idempotencyKey ?? '') ?? 0) > 0,
        ).length,
        duplicateDecisionNotices: decided.filter(
          (r) => countEverTold(r.kudosId, /^Your kudos was (approved|rejected)/) > 1,
        ).length,
        // An approved send confirmed before anything about its request could be recorded tells the
        // decision by its confirmation (the one DM, never "approved" after it).
        missingDecisionNotices: decided.filter(
          (r) =>
            countEverTold(r.kudosId, /^Your kudos was (approved|rejected)/) === 0 &&
            !(r.status === 'approved' && countEverTold(r.kudosId, /^Your kudos (is on its way|was delivered)/) > 0),
        ).length,
        duplicateWaitingNotices: requests.filter(
          (r) => countEverTold(r.kudosId, /^Your kudos is waiting for approval/) > 1,
        ).length,
        missingWaitingNotices: requests.filter(
          (r) =>
            countEverTold(r.kudosId, /^Your kudos is waiting for approval/) === 0 &&
            countEverTold(r.kudosId, /^Your kudos (is on its way|was delivered)/) === 0,
        ).length,
        staleRequestMessages: decided.filter(
          (r) => stillOpen(theSim, APPROVAL_CHANNEL, crowd!.requestMessages.get(r.kudosId) ?? []).length > 0,
        ).length,
        losersTold: races.filter((r) => r.loserTold).length,
        clickRetries: races.reduce((s, r) => s + r.retries, 0),
        non200Answers: races.reduce((s, r) => s + r.non200, 0),
        buttonsWithoutConfirm: crowd.buttonsWithoutConfirm,
        raceErrors: races.flatMap((r) => (r.error ? [`${r.kudosId}: ${r.error}`] : [])),
        decidedAfterMsP50: percentile(decidedAfter, 50),
        decidedAfterMsMax: Math.max(0, ...decidedAfter),
      };
    }

    const windowFrom = (from: number, until = from + WINDOW_MS): EventWindow => {
      const inside = (at: number) => at >= from && at < until;
      const non200 = countBy(answers.filter((a) => inside(a.at) && a.status !== 200).map((a) => String(a.status)));
      return {
        non200: Object.fromEntries(non200),
        userRetries: retries.filter(inside).length,
        logged: Object.fromEntries(countBy(logged.filter((l) => inside(l.at)).map((l) => l.key))),
      };
    };
    let dbCut: DbCutResult | undefined;
    if (cutResult) {
      const { at, ...rest } = cutResult;
      const [firstPlaced] = await db.db
        .select({ at: sql<string>`min(${kudos.placedAt})` })
        .from(kudos)
        .where(sql`${kudos.placedAt} > ${new Date(at).toISOString()}::timestamptz`);
      const firstOk = firstSubmissionOkAt.filter((t) => t > at).sort((a, b) => a - b)[0];
      dbCut = {
        ...rest,
        atSeconds: Math.round((at - startedAt) / 100) / 10,
        window: windowFrom(at),
        firstSubmissionOkAfterMs: firstOk !== undefined ? firstOk - at : null,
        firstOrderPlacedAfterMs: firstPlaced?.at ? new Date(firstPlaced.at).getTime() - at : null,
        appConnectionsAfter: await appConnectionCount(adminUrl, dbName),
      };
    }

    const missingCompletion = placedRows.filter((r) => !noticesBySender.has(r.senderUserId));
    const missingCompletionDetails: Array<Record<string, unknown>> = [];
    for (const r of missingCompletion.slice(0, 10)) {
      const [check] = await db.db
        .select()
        .from(orderChecks)
        .where(eq(orderChecks.orderId, r.orderId ?? ''));
      const notices = await db.db
        .select()
        .from(notifications)
        .where(eq(notifications.subject, r.orderId ?? ''));
      missingCompletionDetails.push({ kudosId: r.id, orderId: r.orderId, placedAt: r.placedAt, check, notices });
    }

    return {
      missingCompletionDetails,
      kudos: rows.length,
      placed: placedRows.length,
      failed: failedRows.length,
      orders: orders.length,
      distinctOrderKeys: new Set(orderKeys).size,
      keysSharedAcrossKudos,
      announcements: sum(announcementsBySender),
      duplicateAnnouncements: sum(announcementsBySender) - announcementsBySender.size,
      missingAnnouncements: placedRows.filter((r) => !announcementsBySender.has(r.senderUserId)).length,
      completionNotices: sum(noticesBySender),
      duplicateCompletionNotices: sum(noticesBySender) - noticesBySender.size,
      missingCompletionNotices: placedRows.filter((r) => !noticesBySender.has(r.senderUserId)).length,
      duplicateConfirmations: confirmations.filter((c) => c > 1).length,
      missingConfirmations: confirmations.filter((c) => c === 0).length,
      chargedCents,
      recordedCents,
      chargedButNotRecorded,
      recordedButNotCharged,
      outcomeUnknown: rows.filter((r) => r.status === 'unknown').length,
      balanceMovedCents: cents(balanceBefore) - cents(balanceAfter),
      // Everything charged: the main run's sends, the money faults' sends (placed or booked) and the reward links created.
      expectedBalanceMoveCents:
        allRows
          .filter((r) => r.status === 'placed' || r.status === 'scheduled')
          .reduce((sum, r) => sum + (r.costCents ?? r.totalCents), 0) +
        (money?.links.recordedCents ?? 0) +
        (money?.firstParts.linksRecordedCents ?? 0),
      stuck: rows
        .filter((r) => !(((r.status === 'placed' || r.status === 'failed') && r.notifiedAt) || r.status === 'rejected'))
        .map((r) => ({
          id: r.id,
          status: r.status,
          attempts: r.attempts,
          failedCalls: r.failedCalls,
          nextAttemptAt: r.nextAttemptAt.toISOString(),
          errorCode: r.errorCode,
        })),
      failedWithoutNotice: failedRows.filter((r) => !r.notifiedAt || !r.errorMessage).length,
      faultsInjected: faultState.injected,
      rewardsRequestsSeen: faultState.seen,
      userRetries,
      approvals,
      dbCut,
      kill: {
        afterSubmissions: killAt,
        window: windowFrom(killedAt, Math.min(killedAt + WINDOW_MS, cutResult?.at ?? Infinity)),
      },
      crashes,
      stall,
      moneyFaults: money,
      logged: Object.fromEntries(countBy(logged.map((l) => l.key))),
      seconds: Math.round((performance.now() - started) / 100) / 10,
    };
  } finally {
    closing = true;
    await crowd?.stop().catch(() => {});
    for (const app of apps) {
      app.kill('SIGTERM');
      await app.exited;
    }
    await lb?.close();
    await sim?.close();
    await emulator.close();
    await db.close();
  }
}
