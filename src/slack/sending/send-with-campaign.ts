// The send form's Campaign select (dispatch_action, behind More options): picking a campaign fills its design, amount and
// e-mail template with views.update, keeping everything else the sender entered (Slack keeps a block's
// value while its block_id stays; the three filled blocks get new ids so their new initial values show).
// A campaign archived meanwhile, or whose design left the catalog, is said plainly in the form.
import type { App } from '@slack/bolt';
import { z } from 'zod';

import { readDesignNow } from '../../domain/accounts/design-catalog.js';
import { getCampaign } from '../../domain/finance/campaigns.js';
import { describeCampaign } from '../finance/campaign-blocks.js';
import { SendModal } from '../ids.js';
import { escapeMrkdwn } from '../kit/mrkdwn-escape.js';
import type { ListenerDeps } from '../listening/listener-deps.js';
import { workspaceOf } from '../listening/listener-deps.js';
import { enterpriseRef, metadataOf, parseAtEdge, stateValues, teamRef, userRef } from '../listening/payloads.js';
import { sendMetadata } from './send-form-submission.js';
import { rebuildState } from './send-form-views.js';
import { buildSendModal } from './send-modal-blocks.js';

const campaignPick = z.looseObject({
  type: z.literal('block_actions'),
  user: userRef,
  team: teamRef,
  enterprise: enterpriseRef,
  view: z.looseObject({
    id: z.string().min(1),
    hash: z.string().optional(),
    private_metadata: z.string().default(''),
    state: z.looseObject({ values: stateValues }).optional(),
  }),
  actions: z
    .tuple([z.looseObject({ selected_option: z.looseObject({ value: z.string().min(1).max(150) }).nullish() })])
    .rest(z.unknown()),
});

export function registerCampaignPick(app: App, deps: ListenerDeps): void {
  app.action(SendModal.actions.campaign, async ({ ack, body: raw }) => {
    const body = parseAtEdge(campaignPick, raw, SendModal.actions.campaign);
    await ack();
    const ws = workspaceOf(body);
    const metadata = metadataOf(sendMetadata, body.view.private_metadata, {});
    const picked = body.actions[0].selected_option?.value;
    const log = deps.logger.child({ action: SendModal.actions.campaign, user: body.user.id, viewId: body.view.id });

    const row =
      picked && z.guid().safeParse(picked).success ? await getCampaign(deps.db, ws.teamId, picked) : undefined;
    // What the sender chose stays where the campaign sets nothing; the campaign sits behind More options.
    const state = await rebuildState(deps, {
      ws,
      userId: body.user.id,
      values: body.view.state?.values ?? {},
      metadata,
      next: { more: true, fill: Date.now().toString(36) },
    });
    if (!row || row.status !== 'active') {
      state.campaignNote =
        ':warning: That campaign was archived (or is no longer offered); pick another, or send without one.';
    } else {
      state.campaign = { id: row.id, name: row.name };
      state.amountDollars = row.defaultCents / 100;
      if (row.templateId) state.template = { templateId: row.templateId, name: row.templateName ?? row.templateId };
      const design = await readDesignNow(await deps.rewards.for(ws), row.productId, { timeoutMs: 1500 }).catch(
        () => 'unknown' as const,
      );
      if (design === undefined) {
        state.campaignNote = `:warning: ${escapeMrkdwn(`The campaign’s design “${row.designName}” was removed from the Rewards catalog, so nothing can be sent with it. Pick another design, and ask a Kudos admin to edit the campaign.`)}`;
      } else {
        state.design = { productId: row.productId, name: row.designName };
        state.campaignNote = describeCampaign(row);
      }
    }
    try {
      await deps.slack.for(ws).updateView(body.view.id, buildSendModal(state), body.view.hash);
    } catch (error) {
      // A hash conflict: the sender changed the form meanwhile; their next pick fills it again.
      log.warn('filling in the campaign failed', { error });
    }
  });
}
