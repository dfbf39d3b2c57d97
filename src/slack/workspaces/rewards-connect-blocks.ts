// Distribution mode: "Connect Rewards account" (App Home, a modal), the answer with the workspace's
// webhook URL, and what /kudos says until an admin has connected one. Pure builders.
import { RewardsConnect } from '../ids.js';
import { type Block, context, plain, section } from '../kit/mrkdwn.js';
import { escapeMrkdwn } from '../kit/mrkdwn-escape.js';

export interface RewardsConnectionSummary {
  clientId: string;
  connectedBy: string;
  connectedAt: Date;
  webhookUrl: string | undefined;
}

const input = (blockId: string, label: string, hint: string) => ({
  type: 'input' as const,
  block_id: blockId,
  label: plain(label, 2000),
  hint: plain(hint, 2000),
  element: { type: 'plain_text_input' as const, action_id: RewardsConnect.actions.value, max_length: 500 },
});

export function buildConnectModal(connected: boolean): Record<string, unknown> {
  return {
    type: 'modal',
    callback_id: RewardsConnect.callbackId,
    title: plain('Connect Rewards', 24),
    submit: plain('Check and connect', 24),
    close: plain('Cancel', 24),
    blocks: [
      section(
        connected
          ? 'This replaces the Rewards account connected now. The new credentials are checked before anything changes.'
          : 'Kudos sends gift cards through *your own* Rewards account. Paste its API credentials from the Rewards portal; they are checked at once and stored encrypted.',
      ),
      input(RewardsConnect.blocks.clientId, 'Client ID', 'Rewards portal → Apps → your production app'),
      input(RewardsConnect.blocks.clientSecret, 'Client secret', 'Shown once in the portal when the app was created'),
      input(
        RewardsConnect.blocks.webhookSecret,
        'Webhook signing secret',
        'Rewards portal → Webhooks: the secret deliveries are signed with',
      ),
    ],
  };
}

/** Shown in place of the modal once connected: the URL to paste into the Rewards portal. */
export function buildConnectedModal(webhookUrl: string | undefined, replacedAccount: boolean): Record<string, unknown> {
  return {
    type: 'modal',
    title: plain('Rewards connected', 24),
    close: plain('Done', 24),
    blocks: [
      section(
        ':white_check_mark: *Your Rewards account is connected.* Kudos checked the credentials (a token and the balance) and stored them encrypted.',
      ),
      ...webhookBlocks(webhookUrl),
      ...(replacedAccount
        ? [
            context(
              'A different account than before: Kudos will look up or create address-book recipients in the new account.',
            ),
          ]
        : []),
    ],
  };
}

function webhookBlocks(webhookUrl: string | undefined): Block[] {
  if (!webhookUrl)
    return [
      section(
        '*Webhook URL:* the app does not know its public address. Ask the operator to set `KUDOS_PUBLIC_URL`; the URL is then shown here and in App Home.',
      ),
    ];
  return [
    section(
      `*Now paste this webhook URL into the Rewards portal* (Webhooks), so Kudos hears about orders at once:\n\`${escapeMrkdwn(webhookUrl)}\``,
    ),
  ];
}

/** App Home, admins, distribution mode. */
export function rewardsHomeSection(connection: RewardsConnectionSummary | undefined): Block[] {
  const button = (text: string, primary: boolean): Block => ({
    type: 'actions',
    elements: [
      {
        type: 'button',
        action_id: RewardsConnect.actions.open,
        text: plain(text, 75),
        ...(primary ? { style: 'primary' } : {}),
      },
    ],
  });
  if (!connection) {
    return [
      section(
        '*Rewards account* :warning: Not connected yet. Nobody in this workspace can send kudos until an admin connects the workspace’s Rewards account.',
      ),
      button('Connect Rewards account', true),
    ];
  }
  return [
    section(
      `*Rewards account* connected (client \`${escapeMrkdwn(connection.clientId)}\`) by <@${connection.connectedBy}> on ${connection.connectedAt.toISOString().slice(0, 10)}.`,
    ),
    ...webhookBlocks(connection.webhookUrl),
    button('Connect another account', false),
  ];
}

/** What /kudos answers (ephemeral) while the workspace has no Rewards account. */
export function notConnectedText(isAdmin: boolean, admins: string[] | undefined): string {
  if (isAdmin) {
    return ':gear: Kudos is installed, but this workspace has no Rewards account connected yet, so no gift card can be sent. Open the *Kudos* app’s *Home* tab and click *Connect Rewards account* (client ID, client secret and webhook secret from your Rewards portal).';
  }
  const who = admins && admins.length > 0 ? admins.map((id) => `<@${id}>`).join(', ') : 'a workspace admin or owner';
  return `:hourglass: Kudos is not ready in this workspace yet: an admin has to connect a Rewards account first. Ask ${who} to open the Kudos app’s Home tab and click *Connect Rewards account*.`;
}
