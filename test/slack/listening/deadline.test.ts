// answerByAnswered (src/slack/listening/deadline.ts): a slash command's lookups are due by its ack; what it does
// after the ack (a DM, the approvers' posts) is not, and waits for Slack's slots as usual. untilDeadline:
// only Slack's limit is called a rate limit; a read that is only slow is not.
import { describe, expect, it } from 'vitest';

import { type ChatRefusal, isChatRefusal } from '../../../src/domain/common/ports.js';
import {
  answerBy,
  answerByAnswered,
  NotReadInTime,
  slotWaitLeft,
  untilDeadline,
} from '../../../src/slack/listening/deadline.js';

describe('answerByAnswered', () => {
  it('bounds the paced calls made before the answer, and none made after it', async () => {
    const seen: Array<number | undefined> = [];
    const later: Promise<number | undefined>[] = [];
    await answerByAnswered(Date.now() + 2000, async (answered) => {
      seen.push(slotWaitLeft());
      await Promise.resolve();
      seen.push(slotWaitLeft());
      // Started before the answer, going on after it (a DM sent once the work is done).
      later.push(new Promise((resolve) => setTimeout(() => resolve(slotWaitLeft()), 20)));
      answered();
      seen.push(slotWaitLeft());
      await new Promise((resolve) => setTimeout(resolve, 5));
      seen.push(slotWaitLeft());
    });
    expect(seen[0]).toBeGreaterThan(0);
    expect(seen[0]).toBeLessThanOrEqual(2000);
    expect(seen[1]).toBeGreaterThan(0);
    expect(seen.slice(2)).toEqual([undefined, undefined]);
    expect(await later[0]).toBeUndefined();
    expect(slotWaitLeft()).toBeUndefined();
  });
});

describe('untilDeadline: a shared read within the answer', () => {
  const pending = <T>() => {
    let resolve!: (value: T) => void;
    const promise = new Promise<T>((r) => (resolve = r));
    return { promise, resolve };
  };

  it('a read that is only slow (no slot of Slack limit in the way) is not called a rate limit', async () => {
    const read = pending<string>();
    const outcome = await answerBy(Date.now() + 350, () =>
      untilDeadline(read.promise, () => 0, 'reading people'),
    ).catch((error: unknown) => error);
    expect(outcome).toBeInstanceOf(NotReadInTime);
    expect(isChatRefusal(outcome)).toBe(false);
  });

  // The deadline is a minute away: the refusal comes when the wait is known, long before it.
  it(
    "a read whose next page waits for Slack's limit past the deadline is refused as rate_limited at once, with the wait",
    { timeout: 20_000 },
    async () => {
      const read = pending<string>();
      let wait = 0;
      let changed: () => void = () => {};
      const outcome = answerBy(Date.now() + 60_000, () =>
        untilDeadline(
          read.promise,
          () => wait,
          'reading people',
          (listener) => {
            changed = listener;
            return () => {};
          },
        ),
      ).catch((error: unknown) => error);
      // A minute is left; the page's slot is two minutes away: refused now, not at the deadline.
      wait = 120_000;
      changed();
      const error = await outcome;
      expect(isChatRefusal(error, 'rate_limited')).toBe(true);
      expect((error as ChatRefusal).retryAfterSeconds).toBe(120);
    },
  );

  it('once the caller has answered, the read is waited for however long it takes', async () => {
    const read = pending<string>();
    const outcome = answerByAnswered(Date.now() + 350, async (answered) => {
      const waiting = untilDeadline(read.promise, () => 0, 'reading people');
      answered();
      setTimeout(() => read.resolve('read'), 200);
      return waiting;
    });
    expect(await outcome).toBe('read');
  });
});
