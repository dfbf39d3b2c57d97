// "Say thanks" on a recipient's DM: the button opens a small form (only for a recipient of the kudos, in
// its own workspace: anyone else gets one short line); the words are checked inline, then reach the
// sender and the announcement's thread (domain/sending/say-thanks.ts), once per form.
import type { App } from '@slack/bolt';
import { z } from 'zod';

import { checkThanksWords, kudosToThank, sayThanks } from '../../domain/sending/say-thanks.js';
import { SayThanks } from '../ids.js';
import { plain, plainTextInput, section } from '../kit/mrkdwn.js';
import { mentionUser } from '../kit/mrkdwn-escape.js';
import type { ListenerDeps } from '../listening/listener-deps.js';
import { workspaceOf } from '../listening/listener-deps.js';
import { buttonClick, metadataOf, parseAtEdge, textOf, uuidValue, viewSubmission } from '../listening/payloads.js';
import { presentNotice } from '../notices/present-notice.js';

const metadataSchema = z.object({ kudosId: z.string().default('') });

function buildThanksModal(kudosId: string, senderUserId: string): Record<string, unknown> {
  return {
    type: 'modal',
    callback_id: SayThanks.callbackId,
    private_metadata: JSON.stringify({ kudosId }),
    title: plain('Say thanks', 24),
    submit: plain('Send', 24),
    close: plain('Cancel', 24),
    blocks: [
      section(`Your words go to ${mentionUser(senderUserId)}, and under the announcement when there is one.`),
      plainTextInput(SayThanks.actions.words, SayThanks.blocks.words, 'Your thanks', undefined, { multiline: true }),
    ],
  };
}

export function registerSayThanks(app: App, deps: ListenerDeps): void {
  app.action(SayThanks.actions.open, async ({ ack, body: raw, respond }) => {
    const body = parseAtEdge(buttonClick(uuidValue), raw, SayThanks.actions.open);
    await ack();
    const ws = workspaceOf(body);
    const kudos = await kudosToThank(deps.db, ws, body.actions[0].value, body.user.id);
    if ('ok' in kudos)
      return void (await respond({ response_type: 'ephemeral', replace_original: false, text: kudos.message }));
    if (!body.trigger_id)
      return void (await respond({
        response_type: 'ephemeral',
        replace_original: false,
        text: 'Slack did not let this click open the form; click the button again.',
      }));
    await deps.slack.for(ws).openView(body.trigger_id, buildThanksModal(kudos.id, kudos.senderUserId));
  });

  app.view(SayThanks.callbackId, async ({ ack, body: raw }) => {
    const body = parseAtEdge(viewSubmission, raw, SayThanks.callbackId);
    const ws = workspaceOf(body);
    const block = SayThanks.blocks.words;
    const words = textOf(body.view.state.values[block]?.[SayThanks.actions.words]);
    const { kudosId } = metadataOf(metadataSchema, body.view.private_metadata, { kudosId: '' });
    const kudos = await kudosToThank(deps.db, ws, kudosId, body.user.id);
    if ('ok' in kudos) return ack({ response_action: 'errors', errors: { [block]: kudos.message } });
    const problem = checkThanksWords(words);
    if (problem) return ack({ response_action: 'errors', errors: { [block]: problem } });
    await ack();
    await sayThanks({ db: deps.db, chat: deps.slack, present: presentNotice }, kudos, {
      fromUserId: body.user.id,
      words,
      formId: body.view.id,
    });
  });
}
