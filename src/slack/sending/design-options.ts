// Options loads (block_suggestion) for the modals' external selects: designs from the cached API
// catalog; groups from Slack user groups and the API's address book. The settings modal's approver
// group and default design are searched here too (admins only), so any of hundreds can be chosen.
import type { App } from '@slack/bolt';

import { isRewardsNotConnected } from '../../domain/accounts/rewards-accounts.js';
import { searchActiveCampaigns } from '../../domain/finance/campaigns.js';
import { campaignRange } from '../finance/campaign-blocks.js';
import { templateOptions } from '../finance/campaigns.js';
import { SendModal, SettingsModal } from '../ids.js';
import { plain } from '../kit/mrkdwn.js';
import { unhurried } from '../listening/deadline.js';
import { type ListenerDeps, workspaceOf } from '../listening/listener-deps.js';
import { optionsLoad, parseAtEdge } from '../listening/payloads.js';
import { SETTINGS_NONE_OPTION, settingsDesignOption, settingsGroupOption } from '../workspaces/settings-blocks.js';
import { buildDesignOptions, buildGroupOptions, searchOptions } from './design-options-blocks.js';

export function registerDesignOptions(app: App, deps: ListenerDeps): void {
  app.options(SendModal.actions.design, async ({ ack, body }) => {
    const options = parseAtEdge(optionsLoad, body, SendModal.actions.design);
    try {
      const designs = await deps.catalog.of(workspaceOf(body)).search(options.value);
      await ack(buildDesignOptions(designs));
    } catch (error) {
      deps.logger.warn('loading designs failed', { error });
      await ack({ options: [] });
    }
  });

  app.options(SendModal.actions.campaign, async ({ ack, body }) => {
    const options = parseAtEdge(optionsLoad, body, SendModal.actions.campaign);
    const rows = await searchActiveCampaigns(deps.db, workspaceOf(body).teamId, options.value);
    await ack({
      options: rows.map((row) => ({ text: plain(`${row.name} (${campaignRange(row)})`, 75), value: row.id })),
    });
  });

  app.options(SendModal.actions.template, async ({ ack, body }) => {
    const options = parseAtEdge(optionsLoad, body, SendModal.actions.template);
    await ack((await templateOptions(deps, workspaceOf(body), options.value)) as never);
  });

  app.options(SendModal.actions.group, async ({ ack, body }) => {
    const options = parseAtEdge(optionsLoad, body, SendModal.actions.group);
    const query = options.value.trim().toLowerCase();
    const matches = (text: string) => query === '' || text.toLowerCase().includes(query);
    const [slackGroups, bookGroups] = await Promise.all([
      deps.slack
        .for(workspaceOf(body as never))
        .listUsergroups()
        .catch((error: unknown) => {
          deps.logger.warn('listing Slack user groups failed', { error });
          return [];
        }),
      (async () =>
        (await (await deps.rewards.for(workspaceOf(body as never))).groups.list({ pageSize: 100 })).data)().catch(
        (error: unknown) => {
          deps.logger.warn('listing address-book groups failed', { error });
          return [];
        },
      ),
    ]);
    await ack(
      buildGroupOptions(
        slackGroups.filter((g) => matches(g.handle) || matches(g.name)),
        bookGroups.filter((g) => matches(g.groupName)),
      ),
    );
    // A user group is about to be picked: its members are checked against the workspace's people
    // (users.list, read page by page at Slack's pace and kept a while), so the read starts now, off
    // the answer's path, and the Send that follows finds it done or under way.
    const ws = workspaceOf(options);
    if (slackGroups.length > 0 && deps.slack.everyone) {
      const everyone = deps.slack.everyone.bind(deps.slack);
      unhurried(() => everyone(ws)).catch((error: unknown) =>
        deps.logger.info('reading the workspace people ahead failed', { error }),
      );
    }
  });

  for (const action of [
    SettingsModal.actions.approverGroup,
    SettingsModal.actions.senderGroup,
    SettingsModal.actions.allowanceGroup,
  ])
    app.options(action, async ({ ack, body }) => {
      const options = parseAtEdge(optionsLoad, body, action);
      const ws = workspaceOf(body);
      if (!(await deps.isAdmin(ws, options.user.id))) return ack({ options: [] });
      const groups = await deps.slack
        .for(ws)
        .listUsergroups()
        .catch((error: unknown) => {
          deps.logger.warn('listing Slack user groups for settings failed', { error });
          return [];
        });
      await ack(searchOptions(options.value, SETTINGS_NONE_OPTION, groups.map(settingsGroupOption)) as never);
    });

  app.options(SettingsModal.actions.defaultDesign, async ({ ack, body }) => {
    const options = parseAtEdge(optionsLoad, body, SettingsModal.actions.defaultDesign);
    const ws = workspaceOf(body);
    if (!(await deps.isAdmin(ws, options.user.id))) return ack({ options: [] });
    const designs = await deps.catalog
      .of(ws)
      .search('')
      .catch((error: unknown) => {
        // No Rewards account connected yet (distribution mode): an empty list is expected, not a warning.
        if (isRewardsNotConnected(error))
          deps.logger.debug('no designs for settings: no Rewards account connected yet');
        else deps.logger.warn('loading designs for settings failed', { error });
        return [];
      });
    await ack(searchOptions(options.value, SETTINGS_NONE_OPTION, designs.map(settingsDesignOption)) as never);
  });
}
