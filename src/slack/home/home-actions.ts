// Buttons that only App Home has: Cancel on a scheduled send, Newer / Older on a list, Settings,
// and leaving or rejoining the leaderboard (stats section).
// The outcome of a click is shown on Home itself (a line on top), since Home has no response_url.
import type { App } from '@slack/bolt';
import { z } from 'zod';

import { formatUsd } from '../../domain/common/money.js';
import { getHomeVisit, HOME_PAGE_SIZE, type HomeList } from '../../domain/home/home-data.js';
import { setStatsOptOut } from '../../domain/recognition/stats.js';
import { cancelScheduledSend } from '../../domain/sending/cancel-scheduled.js';
import { Home } from '../ids.js';
import { brandedOf } from '../kit/card-amounts.js';
import { namingMrkdwn } from '../kit/mrkdwn.js';
import { perPerson, sendRecipients } from '../kit/recipients.js';
import type { ListenerDeps } from '../listening/listener-deps.js';
import { workspaceOf } from '../listening/listener-deps.js';
import { buttonClick, buttonOpeningModal, noValue, parseAtEdge, uuidValue } from '../listening/payloads.js';
import { openSettingsModal } from '../workspaces/settings-command.js';

const PAGE_ACTION = new RegExp(`^${Home.actions.page}_`);

const cancelClick = buttonClick(uuidValue);
/** `list:page`, as the Home builder writes it. */
const pageClick = buttonClick(z.string().regex(/^\w+:\d+$/, 'not a page this app wrote'));
const settingsClick = buttonOpeningModal(noValue);
/** Leave or rejoin the leaderboard: the button's value is not read. */
const statsClick = buttonClick(noValue);

export function registerHomeActions(app: App, deps: ListenerDeps): void {
  app.action(Home.actions.cancel, async ({ ack, body: raw }) => {
    const body = parseAtEdge(cancelClick, raw, Home.actions.cancel);
    await ack();
    const actor = body.user.id;
    const ws = workspaceOf(body);
    const outcome = await cancelScheduledSend(
      { db: deps.db, rewards: deps.rewards, logger: deps.logger },
      {
        kudosId: body.actions[0].value,
        teamId: ws.teamId,
        actorUserId: actor,
        actorIsAdmin: await deps.isAdmin(ws, actor),
        now: deps.now(),
      },
    );
    const flash = outcome.ok
      ? `:no_entry_sign: Cancelled your kudos to ${sendRecipients(outcome.row, outcome.row.recipientCount, 5)} (${brandedOf(outcome.row) ? perPerson(outcome.row) : `${formatUsd(outcome.row.amountCents)} each`}). The amount is back in the balance.`
      : `:warning: ${namingMrkdwn(outcome.message)}`;
    await deps.home.publish(ws, actor, { flash });
  });

  app.action(PAGE_ACTION, async ({ ack, body: raw }) => {
    const body = parseAtEdge(pageClick, raw, Home.actions.page);
    await ack();
    const [list, pageText] = body.actions[0].value.split(':');
    const page = Number(pageText);
    if (!list || !(list in HOME_PAGE_SIZE) || !Number.isInteger(page) || page < 0) return;
    const ws = workspaceOf(body);
    const visit = await getHomeVisit(deps.db, ws.teamId, body.user.id);
    await deps.home.publish(ws, body.user.id, { pages: { ...(visit?.pages ?? {}), [list as HomeList]: page } });
  });

  app.action(Home.actions.openSettings, async ({ ack, body: raw }) => {
    const body = parseAtEdge(settingsClick, raw, Home.actions.openSettings);
    await ack();
    const ws = workspaceOf(body);
    if (!(await deps.isAdmin(ws, body.user.id))) {
      await deps.home.publish(ws, body.user.id, { flash: ':no_entry: Only Kudos admins can change settings.' });
      return;
    }
    await openSettingsModal(deps, ws, body.trigger_id);
  });

  for (const [actionId, optOut] of [
    [Home.actions.statsOptOut, true],
    [Home.actions.statsOptIn, false],
  ] as const) {
    app.action(actionId, async ({ ack, body: raw }) => {
      const body = parseAtEdge(statsClick, raw, actionId);
      await ack();
      const ws = workspaceOf(body);
      await setStatsOptOut(deps.db, ws, body.user.id, optOut);
      const flash = optOut
        ? ':see_no_evil: Done: you won’t appear on the leaderboard. Only you see your numbers.'
        : ':wave: Welcome back: you appear on the leaderboard again.';
      await deps.home.publish(ws, body.user.id, { flash });
    });
  }
}
