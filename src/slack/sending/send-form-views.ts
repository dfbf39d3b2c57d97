// The short send form's reveals, each a views.update of the open form: "More options" shows
// campaign, e-mail template and refund; picking "Schedule for later" (dispatch_action) shows the date
// and time, and picking "Send now" again hides them; picking "A brand" shows the brand fields in place
// of design and amount (brand-picker.ts), "Choice card" the design and amount again. Slack keeps what was typed in every block whose
// id stays, so the rebuilt form starts from the choices only Slack knows (design, template).
import type { App } from '@slack/bolt';
import { z } from 'zod';

import { isValidTimeZone } from '../../domain/common/zoned-time.js';
import { CardChoice, NO_TEMPLATE, SendModal, SendModalMore, TimingChoice } from '../ids.js';
import type { ListenerDeps } from '../listening/listener-deps.js';
import { workspaceOf } from '../listening/listener-deps.js';
import {
  enterpriseRef,
  metadataOf,
  parseAtEdge,
  type StateValues,
  stateValues,
  teamRef,
  userRef,
} from '../listening/payloads.js';
import { brandFieldsOf } from './brand-fields.js';
import { sendFormValues } from './open-send-modal.js';
import { sendMetadata } from './send-form-submission.js';
import { buildSendModal, filledBlockId, type SendModalState } from './send-modal-blocks.js';
import { todayInCached } from './today.js';

const formAction = z.looseObject({
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
    .tuple([z.looseObject({ selected_option: z.looseObject({ value: z.string().max(150) }).nullish() })])
    .rest(z.unknown()),
});

/** Is "Schedule for later" picked in the form's current values? */
export function scheduledIn(values: StateValues): boolean {
  return values[SendModal.blocks.timing]?.[SendModal.actions.timing]?.selected_option?.value === TimingChoice.schedule;
}

/**
 * The form's state for a rebuild: the design and template picked (their blocks' ids may carry a
 * campaign's fill), the sender's zone, the message requirement; the rest Slack keeps by block id.
 */
export async function rebuildState(
  deps: ListenerDeps,
  at: {
    ws: ReturnType<typeof workspaceOf>;
    userId: string;
    values: StateValues;
    /** The form's metadata as it is (its fill names the blocks read). */
    metadata: SendModalState['metadata'];
    /** What changes in the rebuilt form's metadata. */
    next: Partial<SendModalState['metadata']>;
    /** The brand just picked, ahead of the view's state (brand-picker.ts). */
    brand?: { pickedId: string | undefined };
  },
): Promise<SendModalState> {
  const { blocks: B, actions: A } = SendModal;
  const current = (block: string, action: string) =>
    at.values[filledBlockId(block, at.metadata.fill)]?.[action]?.selected_option;
  // The value field keeps its block id, so Slack keeps the sender's pick; its options are given again.
  const [sender, settings, valueField] = await Promise.all([
    deps.slack
      .for(at.ws)
      .userInfo(at.userId)
      .catch(() => undefined),
    deps.settings.get(at.ws).catch(() => undefined),
    sendFormValues(deps, at.ws),
  ]);
  const timezone = sender?.tz && isValidTimeZone(sender.tz) ? sender.tz : undefined;
  const metadata = { ...at.metadata, ...at.next };
  const brand =
    metadata.card === 'brand'
      ? await brandFieldsOf(deps, at.ws, { values: at.values, fill: at.metadata.fill, ...at.brand })
      : undefined;
  const designNow = current(B.design, A.design);
  const templateNow = current(B.template, A.template);
  return {
    ...(designNow?.value
      ? { design: { productId: designNow.value, name: designNow.text?.text ?? designNow.value } }
      : {}),
    ...(templateNow?.value && templateNow.value !== NO_TEMPLATE
      ? { template: { templateId: templateNow.value, name: templateNow.text?.text ?? templateNow.value } }
      : {}),
    ...(timezone
      ? { timezone, today: todayInCached(timezone, deps.now()) }
      : { noTimezone: Boolean(sender), today: todayInCached('UTC', deps.now()) }),
    scheduled: scheduledIn(at.values),
    ...(valueField ? { values: valueField } : {}),
    requireMessage: settings?.requireMessage ?? false,
    ...(brand ? { brand } : {}),
    metadata,
  };
}

export function registerSendFormViews(app: App, deps: ListenerDeps): void {
  const reveal = (
    actionId: string,
    next: (metadata: SendModalState['metadata'], picked: string | undefined) => Partial<SendModalState['metadata']>,
  ) =>
    app.action(actionId, async ({ ack, body: raw }) => {
      const body = parseAtEdge(formAction, raw, actionId);
      await ack();
      const ws = workspaceOf(body);
      const metadata = metadataOf(sendMetadata, body.view.private_metadata, {});
      const values = body.view.state?.values ?? {};
      const picked = body.actions[0].selected_option;
      const state = await rebuildState(deps, {
        ws,
        userId: body.user.id,
        // The choice just made is the click's own, whatever the view's state says yet.
        values:
          actionId === SendModal.actions.timing && picked
            ? {
                ...values,
                [SendModal.blocks.timing]: { [actionId]: { type: 'radio_buttons', selected_option: picked } },
              }
            : values,
        metadata,
        next: next(metadata, picked?.value),
      });
      try {
        await deps.slack.for(ws).updateView(body.view.id, buildSendModal(state), body.view.hash);
      } catch (error) {
        // A hash conflict: the sender changed the form meanwhile; their next click shows it again.
        deps.logger.warn('updating the send form failed', { error, action: actionId, viewId: body.view.id });
      }
    });
  reveal(SendModalMore.action, () => ({ more: true }));
  reveal(SendModal.actions.timing, (metadata) => ({ more: metadata.more || undefined }));
  reveal(SendModal.actions.cardType, (metadata, picked) => ({
    more: metadata.more || undefined,
    card: picked === CardChoice.brand ? 'brand' : undefined,
  }));
}
