// The /kudos send form, opened and submitted through the Slack simulator for an app in a child
// process (app-process.ts), as a user would.
import { expect } from 'vitest';

import type { SlackSimulator } from '../../src/simulator/slack.js';
import { sendModalValues } from '../support/app.js';

/**
 * /kudos, then the send form submitted for `recipient` ($10, design CC-THANK-YOU). The child app's
 * first request pays for its cold start, which on a loaded machine can outlast Slack's 3-second
 * trigger_id (no form opens: the user types the command again) or its 3-second ack (Slack's "try
 * again" on the open form: the user submits again; one send is recorded).
 */
export async function submitKudosForm(sim: SlackSimulator, recipient: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    await sim.slashCommand('U_MANAGER', '', 'C_GENERAL');
    const view = await sim
      .waitFor(
        () =>
          sim
            .openViews('U_MANAGER')
            .filter((v) => v.callback_id === 'kudos_send')
            .at(-1),
        10_000,
      )
      .catch(() => undefined);
    if (!view && attempt < 3) continue;
    expect(view).toBeDefined();
    for (let submit = 1; submit <= 3; submit++) {
      const answer = await sim.submitView(
        view!.id,
        sendModalValues({ users: [recipient], design: 'CC-THANK-YOU', amount: '10' }),
        'U_MANAGER',
      );
      expect(answer.status).toBe(200);
      if (sim.openViews('U_MANAGER').every((v) => v.id !== view!.id)) return;
      expect(JSON.stringify(answer.body) + JSON.stringify(sim.viewErrors(view!.id))).toMatch(/again|trouble/);
    }
    throw new Error('the send modal was never accepted');
  }
}
