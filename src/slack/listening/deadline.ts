// Slack gives 3 seconds (and a trigger_id lives 3 seconds). Two tools for the work done before the
// answer:
// - withinBudget: lookups that only make a view nicer get a budget, after which the caller goes on
//   without them;
// - answerBy: the paced Slack calls made inside (src/slack/web-api/pacing.ts) book a slot of Slack's rate
//   limit only when it comes early enough to be used before the answer is due; a later slot is not
//   booked (it would be used after Slack gave up, and each press of Send would book another): the
//   call is refused at once as `rate_limited`, with when to try again.
import { AsyncLocalStorage } from 'node:async_hooks';

import { ChatRefusal, isChatRefusal } from '../../domain/common/ports.js';

/** When the answer of the request being handled is due (ms since the epoch); `at` undefined: no deadline. */
interface AnswerDue {
  at: number | undefined;
}
const answerDue = new AsyncLocalStorage<AnswerDue>();

/** A paced call's own round trip, kept free before the deadline: its slot must come this much earlier. */
const CALL_ALLOWANCE_MS = 300;

/** Runs `work` with its answer due at `deadlineAt`: its paced Slack calls book only slots they can use in time. */
export function answerBy<T>(deadlineAt: number, work: () => Promise<T>): Promise<T> {
  return answerDue.run({ at: deadlineAt }, work);
}

/**
 * answerBy for a handler that answers part way (a slash command's ack): once `answered()` is called,
 * what `work` does next (a DM, an approvers' post) is no longer due by then and waits for its slots as usual.
 */
export function answerByAnswered<T>(deadlineAt: number, work: (answered: () => void) => Promise<T>): Promise<T> {
  const due: AnswerDue = { at: deadlineAt };
  return answerDue.run(due, () =>
    work(() => {
      due.at = undefined;
    }),
  );
}

/** Runs `work` without the caller's deadline: a shared read that goes on, at Slack's pace, for whoever asks next. */
export function unhurried<T>(work: () => Promise<T>): Promise<T> {
  return answerDue.run({ at: undefined }, work);
}

/** How long a paced call made now may wait for its slot (0 or more), or undefined outside answerBy. */
export function slotWaitLeft(now = Date.now()): number | undefined {
  const due = answerDue.getStore()?.at;
  return due === undefined ? undefined : Math.max(0, due - CALL_ALLOWANCE_MS - now);
}

/**
 * A shared read that goes on (Slack answering slowly: no rate limit in the way) but cannot finish
 * before the answer of the request waiting for it is due. Not `rate_limited`: nobody is told Slack
 * is busy when it is only slow.
 */
export class NotReadInTime extends Error {
  override readonly name = 'NotReadInTime';
}

/**
 * `work` (a shared read paced by Slack's rate limit), waited for within the deadline of answerBy (if
 * any). `comeBackInMs()` is how long the read waits for its next slot of Slack's limit; `watch` (if
 * given) calls back whenever that changes. As soon as that wait reaches past the deadline, a
 * ChatRefusal `rate_limited` whose retryAfterSeconds is that wait (at least a second). At the deadline
 * without such a wait, the read is only slow: a NotReadInTime, unless the caller has answered already
 * (answerByAnswered), who then waits on for it. The work itself goes on either way.
 */
export function untilDeadline<T>(
  work: Promise<T>,
  comeBackInMs: () => number,
  detail: string,
  watch?: (changed: () => void) => () => void,
): Promise<T> {
  const due = answerDue.getStore();
  const left = slotWaitLeft();
  if (due === undefined || left === undefined) return work;
  work.catch(() => {}); // a late failure must not become an unhandled rejection
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    const held: { timer?: NodeJS.Timeout; unwatch?: () => void } = {};
    const settle = (finish: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(held.timer);
      held.unwatch?.();
      finish();
    };
    /** True when the read waits for a slot of Slack's limit past the answer's deadline: refused. */
    const refuseIfLimited = (): boolean => {
      if (due.at === undefined) return false;
      const waitMs = comeBackInMs();
      if (waitMs <= Math.max(0, due.at - CALL_ALLOWANCE_MS - Date.now())) return false;
      settle(() => reject(new ChatRefusal('rate_limited', detail, { retryAfterSeconds: Math.max(1, waitMs / 1000) })));
      return true;
    };
    work.then(
      (value) => settle(() => resolve(value)),
      (error: unknown) => settle(() => reject(error instanceof Error ? error : new Error(String(error)))),
    );
    if (refuseIfLimited()) return;
    if (watch)
      held.unwatch = watch(() => {
        if (!settled) refuseIfLimited();
      });
    held.timer = setTimeout(() => {
      if (settled || refuseIfLimited() || due.at === undefined) return; // answered: the caller waits on
      settle(() => reject(new NotReadInTime(`${detail}: Slack is answering slowly; the read goes on`)));
    }, left);
  });
}

/**
 * The lookups of `work`, given `budgetMs` (their paced Slack calls book no slot further away): after
 * it, or refused by Slack's rate limit, `fallback`. Other failures are passed on.
 */
export async function withinBudget<T, F>(work: () => Promise<T>, budgetMs: number, fallback: F): Promise<T | F> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<F>((resolve) => {
    timer = setTimeout(() => resolve(fallback), budgetMs);
  });
  const started = answerBy(Date.now() + budgetMs, work).catch((error: unknown) => {
    if (isChatRefusal(error, 'rate_limited')) return fallback;
    throw error;
  });
  started.catch(() => {}); // a late failure must not become an unhandled rejection
  try {
    return await Promise.race([started, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Lookups made before opening a modal (the trigger_id expires 3 s after the click). */
export const OPEN_LOOKUP_BUDGET_MS = 800;

/** A slash command's or a submission's answer: Slack's 3 s, less a margin for the answer's own trip. */
export const ANSWER_BUDGET_MS = 2300;

/** Whole seconds a person is told to wait before trying again, from a `rate_limited` refusal's retryAfterSeconds. */
export function secondsToWait(retryAfterSeconds: number | undefined): number {
  return Math.max(1, Math.ceil(retryAfterSeconds ?? 1));
}
