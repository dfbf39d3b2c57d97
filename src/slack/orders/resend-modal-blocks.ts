// The "Fix address and resend" modal: one e-mail input, prefilled with the address that bounced.
import { BounceFix } from '../ids.js';
import { plain, section } from '../kit/mrkdwn.js';
import { escapeMrkdwn } from '../kit/mrkdwn-escape.js';

/** `message`: where the DM with the button is, so that it can be updated after the resend. */
export function buildBounceFixModal(input: {
  bounceId: string;
  email: string;
  name: string;
  message?: { channel: string; ts: string };
}): Record<string, unknown> {
  return {
    type: 'modal',
    callback_id: BounceFix.callbackId,
    private_metadata: JSON.stringify({
      bounceId: input.bounceId,
      ...(input.message ? { channel: input.message.channel, ts: input.message.ts } : {}),
    }),
    title: plain('Fix address', 24),
    submit: plain('Resend', 24),
    close: plain('Cancel', 24),
    blocks: [
      section(
        `The card for *${escapeMrkdwn(input.name || input.email)}* could not be delivered to *${escapeMrkdwn(input.email)}*. Enter the right address and the card is sent again; the address book is corrected for next time.`,
      ),
      {
        type: 'input',
        block_id: BounceFix.blocks.email,
        label: plain('Correct e-mail address', 2000),
        element: {
          type: 'email_text_input',
          action_id: BounceFix.actions.email,
          placeholder: plain('name@company.com', 150),
        },
      },
    ],
  };
}
