// What a person's DMs from the app went through: each top-level message with what it said when it was
// posted and after each edit, read from the simulator's call log. The sender of a kudos has one DM per
// kudos, edited in place; a test reads its story ("waiting", "approved", "on its way", "delivered").
import type { SlackSimulator } from '../../src/simulator/slack.js';

/** A DM's text (the notification line of the message) in a word, as a test names its states. */
export function dmState(text: string): string {
  const states: Array<[RegExp, string]> = [
    [/^Your kudos is waiting for approval/, 'waiting'],
    [/^Your kudos was approved/, 'approved'],
    [/^Your kudos was rejected/, 'rejected'],
    [/^Your kudos request expired/, 'expired'],
    [/^An approved kudos could not be placed/, 'back with the approvers'],
    [/^Your kudos is scheduled/, 'scheduled'],
    [/^Your kudos is on its way/, 'on its way'],
    [/^Your kudos was delivered;/, 'bounced'],
    [/^Your kudos was delivered/, 'delivered'],
    [/^Your kudos was cancelled/, 'cancelled'],
  ];
  return states.find(([pattern]) => pattern.test(text))?.[1] ?? text;
}

/**
 * Each top-level DM the app posted to `userId`, oldest first: the texts it showed, from its post
 * through each edit (Slack taking them). Thread replies (a thank-you) are not DMs of their own.
 */
export function dmStories(sim: SlackSimulator, userId: string): string[][] {
  const channel = `D_${userId}`;
  const ok = sim.calls.filter((c) => c.ok && c.args.channel === channel);
  // The call log has no ts for a post: the n-th top-level post is the n-th top-level message.
  const posts = ok.filter((c) => c.method === 'chat.postMessage' && !c.args.thread_ts);
  const messages = sim
    .messages(userId)
    .filter((m) => !m.ephemeral && (!m.thread_ts || m.thread_ts === m.ts))
    .sort((a, b) => Number(a.ts) - Number(b.ts));
  return messages.map((m, i) => {
    const edits = ok.filter((c) => c.method === 'chat.update' && c.args.ts === m.ts);
    return [posts[i], ...edits].flatMap((c) => (c && typeof c.args.text === 'string' ? [c.args.text] : []));
  });
}

/** The states each DM to `userId` went through, oldest first (a state repeated by an edit counts once). */
export function dmStates(sim: SlackSimulator, userId: string): string[][] {
  return dmStories(sim, userId).map((story) =>
    story.map(dmState).filter((state, i, all) => i === 0 || all[i - 1] !== state),
  );
}
