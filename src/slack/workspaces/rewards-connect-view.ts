// Distribution mode: App Home's "Connect Rewards account" button (admins) opens the modal; its
// submission is checked at once (token and balance against REWARDS_API_URL): wrong credentials come
// back inline on the field to fix and nothing is stored; on success the credentials are stored
// sealed and the modal turns into the workspace's webhook URL.
import type { App } from '@slack/bolt';

import type { ConnectField } from '../../domain/accounts/rewards-connections.js';
import { RewardsConnect } from '../ids.js';
import { type ListenerDeps, workspaceOf } from '../listening/listener-deps.js';
import { buttonOpeningModal, noValue, parseAtEdge, textOf, viewSubmission } from '../listening/payloads.js';
import { buildConnectedModal, buildConnectModal } from './rewards-connect-blocks.js';

const FIELD_BLOCKS: Record<ConnectField, string> = {
  clientId: RewardsConnect.blocks.clientId,
  clientSecret: RewardsConnect.blocks.clientSecret,
  webhookSecret: RewardsConnect.blocks.webhookSecret,
};

const openClick = buttonOpeningModal(noValue);

export function registerRewardsConnect(app: App, deps: ListenerDeps): void {
  const setup = deps.rewardsSetup;
  if (!setup) return;

  app.action(RewardsConnect.actions.open, async ({ ack, body: raw }) => {
    const body = parseAtEdge(openClick, raw, RewardsConnect.actions.open);
    await ack();
    const ws = workspaceOf(body);
    if (!(await deps.isAdmin(ws, body.user.id))) {
      await deps.home.publish(ws, body.user.id, {
        flash: ':no_entry: Only Kudos admins can connect the Rewards account.',
      });
      return;
    }
    await deps.slack.for(ws).openView(body.trigger_id, buildConnectModal(await setup.isConnected(ws)));
  });

  app.view(RewardsConnect.callbackId, async ({ ack, body: raw }) => {
    const parsed = parseAtEdge(viewSubmission, raw, RewardsConnect.callbackId);
    const ws = workspaceOf(parsed);
    const value = (block: string) => textOf(parsed.view.state.values[block]?.[RewardsConnect.actions.value]);
    if (!(await deps.isAdmin(ws, parsed.user.id))) {
      return ack({
        response_action: 'errors',
        errors: {
          [RewardsConnect.blocks.clientId]: 'Only Kudos admins can connect the Rewards account. Nothing was saved.',
        },
      });
    }
    const outcome = await setup.connect(
      ws,
      {
        clientId: value(RewardsConnect.blocks.clientId),
        clientSecret: value(RewardsConnect.blocks.clientSecret),
        webhookSecret: value(RewardsConnect.blocks.webhookSecret),
      },
      parsed.user.id,
    );
    if (!outcome.ok)
      return ack({ response_action: 'errors', errors: { [FIELD_BLOCKS[outcome.field]]: outcome.message } });
    const summary = await setup.summary(ws);
    deps.logger.info('rewards account connected', {
      teamId: ws.teamId,
      connectionId: outcome.connection.id,
      by: parsed.user.id,
      replacedAccount: outcome.replacedAccount,
    });
    await ack({
      response_action: 'update',
      view: buildConnectedModal(summary?.webhookUrl, outcome.replacedAccount) as never,
    });
    await deps.home.publish(ws, parsed.user.id);
  });
}
