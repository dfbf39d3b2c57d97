// answerByAnswered (src/slack/deadline.ts): a slash command's lookups are due by its ack; what it does
// after the ack (a DM, the approvers' posts) is not, and waits for Slack's slots as usual.
import { describe, expect, it } from 'vitest';
import { answerByAnswered, slotWaitLeft } from '../../src/slack/deadline.js';

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
