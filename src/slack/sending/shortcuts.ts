// Shortcuts: "Give kudos for this" on a message opens the send modal for its author, with a link to
// the message (the announcement quotes it); "Give kudos" opens it from anywhere. A message by a bot,
// a deactivated person or yourself gets a short answer instead.
import type { App } from '@slack/bolt';

import { Shortcut } from '../ids.js';
import { OPEN_LOOKUP_BUDGET_MS, withinBudget } from '../listening/deadline.js';
import { type ListenerDeps, workspaceOf } from '../listening/listener-deps.js';
import { globalShortcut, messageShortcut, parseAtEdge } from '../listening/payloads.js';
import { openSendModal } from './open-send-modal.js';

export function registerShortcuts(app: App, deps: ListenerDeps): void {
  app.shortcut(Shortcut.global, async ({ ack, shortcut: raw }) => {
    const shortcut = parseAtEdge(globalShortcut, raw, Shortcut.global);
    await ack();
    await openSendModal(deps, { ws: workspaceOf(raw), userId: shortcut.user.id, triggerId: shortcut.trigger_id });
  });

  app.shortcut(Shortcut.message, async ({ ack, shortcut: raw, respond }) => {
    const shortcut = parseAtEdge(messageShortcut, raw, Shortcut.message);
    await ack();
    const message = shortcut.message;
    const tell = (text: string) => respond({ response_type: 'ephemeral', text });
    const authorId = message.user;
    if (!authorId || message.bot_id || message.subtype === 'bot_message') {
      return void (await tell(
        'Kudos go to people, and that message is from an app. Pick a message written by the person you want to thank.',
      ));
    }
    if (authorId === shortcut.user.id)
      return void (await tell('That’s your own message. Kudos are for thanking someone else!'));
    const [author, link] = await withinBudget(
      () =>
        Promise.all([
          deps.slack.userInfo(workspaceOf(shortcut as never), authorId),
          deps.slack
            .for(workspaceOf(shortcut as never))
            .permalink(shortcut.channel.id, shortcut.message_ts)
            .catch(() => undefined),
        ]),
      OPEN_LOOKUP_BUDGET_MS,
      [undefined, undefined] as const,
    );
    if (author && (author.deleted || author.isBot)) {
      return void (await tell(
        `${author.deleted ? 'That person’s account is deactivated' : 'That message is from an app'}, so they can’t get kudos.`,
      ));
    }
    await openSendModal(deps, {
      ws: workspaceOf(raw),
      userId: shortcut.user.id,
      triggerId: shortcut.trigger_id,
      userIds: [authorId],
      metadata: { channelId: shortcut.channel.id, ...(link ? { sourceMessageUrl: link } : {}) },
    });
  });
}
