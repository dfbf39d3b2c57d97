// The approvers of the chaos run: people watching the approval channel. Each approval request that
// appears gets a race: two different approvers decide within 50 ms of each other, either both
// pressing Approve, or one pressing Approve while the other submits the Reject dialog (opened
// beforehand with the Reject button). Every click goes through the simulator as Slack sends it, after
// the button's confirmation dialog (the harness checks each button has one), and through the load
// balancer, so the two decisions usually land on different instances. A person handles one request
// at a time (one modal per Slack user). When nothing comes of a click (an instance was killed, the
// database connection was cut, the app answered 5xx), the approver presses Approve again.
import { findElement } from '../../src/simulator/driver.js';
import type { Message, SlackSimulator, View } from '../../src/simulator/slack.js';

export type RacePlan = 'approve+approve' | 'approve+reject';

export interface RaceRecord {
  kudosId: string;
  plan: RacePlan;
  /** The two decisive requests, in the order they were sent. */
  first: { user: string; kind: 'approve' | 'reject' };
  second: { user: string; kind: 'approve' | 'reject' };
  /** Time between sending the two decisive requests, ms (planned 0..30; a busy event loop adds). */
  gapMs: number;
  /** HTTP status of the two decisive requests (0: no answer). */
  statuses: [number, number];
  /** Who decided, as the database says, once decided. */
  winner?: string | undefined;
  outcome?: string;
  /** The approver who lost the race was told privately who decided first (ephemeral or dialog error). */
  loserTold?: boolean;
  /** Told, but only after 3 s (how long after the decision was seen); never told: undefined. */
  loserToldLateMs?: number | undefined;
  /** Further presses (the first ones came to nothing) and Reject-dialog openings that failed. */
  retries: number;
  /** Requests answered with something else than 200 (dialog opening, decisions, retries). */
  non200: number;
  /** Approvers who went to click while the message already showed the decision (no button left to click). */
  buttonGoneFor: string[];
  /** From the first decisive request to the decision being visible in the database, ms. */
  decidedAfterMs?: number;
  error?: string;
}

export interface ApproverCrowdOptions {
  sim: SlackSimulator;
  channel: string;
  approvers: string[];
  /** 0..1, deterministic when seeded. */
  rng: () => number;
  /** Share of races where one approver rejects (the rest: both approve). */
  rejectShare?: number;
  /** The request's state as the database has it (the harness's view; a person sees the message update). */
  decisionOf(kudosId: string): Promise<{ status: string; decidedBy: string | null } | undefined>;
  /** Every answer the simulated Slack got, for the run's error timeline. */
  onAnswer?(what: string, status: number): void;
  log?: (message: string) => void;
}

export interface ApproverCrowd {
  races: RaceRecord[];
  /** Every request message seen in the channel (with its buttons), by kudos id: more than one is a re-post. */
  requestMessages: Map<string, Set<string>>;
  /** Buttons without a confirmation dialog (Slack would send the click straight away). */
  buttonsWithoutConfirm: number;
  /** Stops watching and waits for the races under way. */
  stop(): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const APPROVE = 'approval_approve';
const REJECT = 'approval_reject';
const REJECT_MODAL = 'approval_reject_modal';
const REASON_BLOCK = 'approval_reject_reason';
const REASON_ACTION = 'reason';

function kudosIdOf(m: Message): string | undefined {
  const found = findElement(m.blocks ?? [], APPROVE);
  const value = found?.element.value;
  return typeof value === 'string' ? value : undefined;
}

export function startApproverCrowd(opts: ApproverCrowdOptions): ApproverCrowd {
  const { sim, channel } = opts;
  const log = opts.log ?? (() => {});
  const rejectShare = opts.rejectShare ?? 0.5;
  const free = new Set(opts.approvers);
  const freed: Array<() => void> = [];
  const crowd: ApproverCrowd = {
    races: [],
    requestMessages: new Map(),
    buttonsWithoutConfirm: 0,
    stop: async () => {},
  };
  const running = new Set<Promise<void>>();
  let stopped = false;

  const answered = async <T extends { status: number }>(
    what: string,
    call: Promise<T>,
  ): Promise<T | { status: 0; body?: undefined }> => {
    const answer = await call.catch(() => ({ status: 0 as const }));
    opts.onAnswer?.(what, answer.status);
    return answer;
  };

  /** Two free approvers (waits until two are free), taken until `release`. */
  async function takeTwo(): Promise<[string, string]> {
    for (;;) {
      if (free.size >= 2) {
        const pool = [...free];
        const a = pool.splice(Math.floor(opts.rng() * pool.length), 1)[0]!;
        const b = pool[Math.floor(opts.rng() * pool.length)]!;
        free.delete(a);
        free.delete(b);
        return [a, b];
      }
      await new Promise<void>((resolve) => freed.push(resolve));
    }
  }
  function release(...people: string[]): void {
    for (const p of people) free.add(p);
    freed.splice(0).forEach((wake) => wake());
  }

  /** The user looks at the button: it must ask for confirmation (Slack shows the dialog, the user confirms). */
  function checkConfirm(m: Message, actionId: string): void {
    const el = findElement(m.blocks ?? [], actionId)?.element as
      { confirm?: { confirm?: unknown; deny?: unknown } } | undefined;
    if (!el?.confirm?.confirm || !el.confirm.deny) crowd.buttonsWithoutConfirm++;
  }

  const ephemeralsFor = (user: string) =>
    sim.messages(channel).filter((m) => m.ephemeral && m.visible_to === user).length;

  async function race(kudosId: string, where: { channel: string; ts: string }, message: Message): Promise<void> {
    const plan: RacePlan = opts.rng() < rejectShare ? 'approve+reject' : 'approve+approve';
    const [approver, other] = await takeTwo();
    const record: RaceRecord = {
      kudosId,
      plan,
      first: { user: approver, kind: 'approve' },
      second: { user: other, kind: plan === 'approve+reject' ? 'reject' : 'approve' },
      gapMs: 0,
      statuses: [0, 0],
      retries: 0,
      non200: 0,
      buttonGoneFor: [],
    };
    crowd.races.push(record);
    const count = (status: number) => {
      if (status !== 200) record.non200++;
      return status;
    };
    /** The request message as everyone sees it now. */
    const shownNow = () => sim.messages(where.channel).find((m) => m.ts === where.ts && !m.ephemeral);
    const click = async (actionId: string, user: string, what: string) => {
      // The decision reached the message first: the button is gone and the person reads the outcome there.
      if (!findElement(shownNow()?.blocks ?? [], actionId)) {
        record.buttonGoneFor.push(user);
        return 0;
      }
      return count((await answered(what, sim.clickButton(where, actionId, user))).status);
    };
    let rejectShown = '';
    let submitReject: ((what: string) => Promise<number>) | undefined;
    try {
      checkConfirm(message, APPROVE);
      // The second decision: another Approve, or the Reject dialog's submission (the dialog is opened first).
      let secondDecision: () => Promise<number>;
      if (plan === 'approve+reject') {
        checkConfirm(message, REJECT);
        let modal: View | undefined;
        for (let attempt = 0; ; attempt++) {
          const before = new Set(sim.openViews(other).map((v) => v.id));
          await click(REJECT, other, 'reject button');
          modal = await sim
            .waitFor(
              () =>
                sim
                  .openViews(other)
                  .find(
                    (v) => v.callback_id === REJECT_MODAL && !before.has(v.id) && v.private_metadata.includes(kudosId),
                  ),
              6000,
            )
            .catch(() => undefined);
          if (modal) break;
          if (attempt >= 20) throw new Error('the Reject dialog never opened');
          record.retries++;
          await sleep(500);
        }
        const view = modal;
        submitReject = async (what) => {
          const answer = await answered(
            what,
            sim.submitView(
              view.id,
              { [REASON_BLOCK]: { [REASON_ACTION]: { type: 'plain_text_input', value: 'Chaos says no' } } },
              other,
            ),
          );
          // What the person reads in the dialog: the app's inline error, or Slack's own when the app was late.
          rejectShown = JSON.stringify(sim.viewErrors(view.id));
          return count(answer.status);
        };
        secondDecision = () => submitReject!('reject dialog');
      } else {
        secondDecision = () => click(APPROVE, other, 'approve button');
      }
      const ephemeralBefore = new Map([approver, other].map((u) => [u, ephemeralsFor(u)]));

      // The race: both within 50 ms of each other, in random order. Planned within 30 ms: on a loaded
      // machine the timer fires late (up to ~30 ms more was seen), and the gap is measured as sent.
      const gap = opts.rng() * 30;
      const approveFirst = opts.rng() < 0.5;
      if (!approveFirst) [record.first, record.second] = [record.second, record.first];
      const approveClick = () => click(APPROVE, approver, 'approve button');
      const started = performance.now();
      let secondSentAt = started;
      record.statuses = await Promise.all([
        approveFirst ? approveClick() : secondDecision(),
        sleep(gap).then(() => {
          secondSentAt = performance.now();
          return approveFirst ? secondDecision() : approveClick();
        }),
      ]);
      record.gapMs = Math.round((secondSentAt - started) * 10) / 10;

      // Wait for the decision; press Approve again when nothing came of it.
      let decided = await waitDecided(kudosId, 5000);
      while (!decided) {
        if (record.retries >= 20) throw new Error('no decision after 20 presses');
        record.retries++;
        await click(APPROVE, approver, 'approve button (again)');
        decided = await waitDecided(kudosId, 5000);
      }
      record.decidedAfterMs = Math.round(performance.now() - started);
      record.winner = decided.decidedBy ?? undefined;
      record.outcome = decided.status;
      // The loser is told who decided first: in the dialog (a reject submission), or privately in the channel.
      const loser = decided.decidedBy === approver ? other : approver;
      // Their request got no answer (a killed or stopped instance): Slack showed them an error, and a
      // person presses again (or submits the dialog again). Only that second answer can tell them.
      const loserRequest = record.first.user === loser ? 0 : 1;
      const sawOutcome = () =>
        !findElement(shownNow()?.blocks ?? [], APPROVE) &&
        JSON.stringify(shownNow()?.blocks ?? []).includes(`<@${decided.decidedBy}>`);
      // The same when Slack's dialog said so (the app answered after Slack's 3 s, or with its failure text).
      const dialogAskedAgain =
        loser === other && plan === 'approve+reject' && /trouble connecting|try again/i.test(rejectShown);
      if (!record.buttonGoneFor.includes(loser) && (record.statuses[loserRequest] !== 200 || dialogAskedAgain)) {
        record.retries++;
        if (loser === other && plan === 'approve+reject') await submitReject?.('reject dialog (again)');
        else await click(APPROVE, loser, 'approve button (again)');
      }
      const toldInDialog = loser === other && plan === 'approve+reject' && /already/.test(rejectShown);
      // Whoever found the buttons gone reads the outcome, and who decided, on the message itself.
      if (record.buttonGoneFor.includes(loser)) record.loserTold = sawOutcome();
      else if (toldInDialog) record.loserTold = true;
      else {
        // Polled, not re-checked on every change of the workspace: the harness's event loop stays free.
        // Within 3 s is told; up to 10 s is told late (a loaded or just resumed instance), kept apart.
        const from = Date.now();
        while (ephemeralsFor(loser) <= ephemeralBefore.get(loser)! && Date.now() < from + 10_000) await sleep(100);
        const toldAfterMs = Date.now() - from;
        record.loserTold = ephemeralsFor(loser) > ephemeralBefore.get(loser)! && toldAfterMs <= 3000;
        if (!record.loserTold && ephemeralsFor(loser) > ephemeralBefore.get(loser)!)
          record.loserToldLateMs = toldAfterMs;
      }
    } catch (error) {
      record.error = String(error);
      log(`approvals: race on ${kudosId} failed: ${record.error}`);
    } finally {
      // The rejecter closes a dialog left open (the other decision won).
      for (const v of sim.openViews(other))
        if (v.callback_id === REJECT_MODAL) await sim.closeView(v.id, other, true).catch(() => {});
      release(approver, other);
    }
  }

  async function waitDecided(
    kudosId: string,
    timeoutMs: number,
  ): Promise<{ status: string; decidedBy: string | null } | undefined> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const d = await opts.decisionOf(kudosId).catch(() => undefined);
      if (d && d.status !== 'awaiting_approval') return d;
      if (Date.now() > deadline) return undefined;
      await sleep(100);
    }
  }

  // Watch the channel: every new request gets its race.
  const watcher = (async () => {
    while (!stopped) {
      for (const m of sim.messages(channel)) {
        if (m.ephemeral) continue;
        const kudosId = kudosIdOf(m);
        if (!kudosId) continue;
        const seen = crowd.requestMessages.get(kudosId);
        if (seen) {
          seen.add(m.ts); // a re-posted request
          continue;
        }
        crowd.requestMessages.set(kudosId, new Set([m.ts]));
        const task = race(kudosId, { channel: m.channel, ts: m.ts }, m).finally(() => running.delete(task));
        running.add(task);
      }
      await sleep(150);
    }
  })();

  crowd.stop = async () => {
    stopped = true;
    await watcher;
    await Promise.allSettled([...running]);
  };
  return crowd;
}

/** Request messages (channel, ts) that still show the Approve button. */
export function stillOpen(sim: SlackSimulator, channel: string, tss: Iterable<string>): string[] {
  const byTs = new Map(sim.messages(channel).map((m) => [m.ts, m]));
  return [...tss].filter((ts) => {
    const m = byTs.get(ts);
    return m !== undefined && findElement(m.blocks ?? [], APPROVE) !== undefined;
  });
}
