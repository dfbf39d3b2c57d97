// What the smoke runs of a built image do once the app answers (scripts/container-smoke.ts, one
// container; scripts/compose-smoke.ts, compose.yaml's stack): place one kudos as a user does, through
// the Slack simulator, and count the orders at the Rewards emulator.
import type { SlackSimulator } from '../src/simulator/slack.js';

/** The orders the emulator holds (its production client's credentials, as the smoke runs set them). */
export async function orderCount(emulatorUrl: string): Promise<number> {
  const token = (await fetch(`${emulatorUrl}/oauth2/token`, {
    method: 'POST',
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: 'production-client',
      client_secret: 'production-secret',
      scope: 'orders.read',
    }),
  }).then((r) => r.json())) as { access_token: string };
  const list = (await fetch(`${emulatorUrl}/api/v1/orders?pageSize=100`, {
    headers: { authorization: `Bearer ${token.access_token}` },
  }).then((r) => r.json())) as { totalCount?: number; data?: unknown[] };
  return list.totalCount ?? list.data?.length ?? 0;
}

/**
 * /kudos, then the send form submitted for one person: the path a user takes. The app's first
 * requests pay for its cold start, which on a loaded machine can outlast Slack's 3-second trigger_id
 * (no form opens: the user types the command again) or its 3-second ack (Slack's "try again" on the
 * open form: the user submits again; one send is recorded).
 */
export async function sendOneKudos(sim: SlackSimulator): Promise<void> {
  const option = (value: string) => ({ text: { type: 'plain_text', text: value }, value });
  const values = {
    send_recipients: { recipients: { type: 'multi_users_select', selected_users: ['U_EMP1'] } },
    send_design: { design: { type: 'external_select', selected_option: option('CC-THANK-YOU') } },
    send_amount: { amount: { type: 'number_input', value: '10' } },
    send_message: { message: { type: 'plain_text_input', value: 'Thanks for shipping the container' } },
    send_timing: { timing: { type: 'radio_buttons', selected_option: option('now') } },
  };
  for (let attempt = 1; attempt <= 4; attempt++) {
    await sim.slashCommand('U_MANAGER', '', 'C_GENERAL');
    // The form opens within Slack's 3-second trigger window or never: 5 s is enough to know.
    const view = await sim
      .waitFor(() => sim.openViews('U_MANAGER').find((v) => v.callback_id === 'kudos_send'), 5_000)
      .catch(() => undefined);
    if (!view) continue;
    for (let submit = 1; submit <= 3; submit++) {
      const answer = await sim.submitView(view.id, values, 'U_MANAGER');
      if (answer.status !== 200) throw new Error(`the send form answered ${answer.status}`);
      if (sim.openViews('U_MANAGER').every((v) => v.id !== view.id)) return;
    }
    throw new Error(`the send form was never accepted: ${JSON.stringify(sim.viewErrors(view.id))}`);
  }
  throw new Error('/kudos never opened the send form');
}
