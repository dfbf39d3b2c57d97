// /kudos stats and "+1" reactions through the real routing.
import { describe, expect, it } from 'vitest';
import { kudos, kudosReactions } from '../../src/db/schema/index.js';
import { eventually, sendModalValues, submitSendForm, useAppPerTest } from '../support/app.js';

const e2e = useAppPerTest({ env: { KUDOS_NOTIFY_CHANNEL: 'C_KUDOS', KUDOS_APPROVAL_THRESHOLD: '100' } });

const answer = (userId: string) =>
  e2e.stack.sim
    .messages('C_GENERAL')
    .filter((m) => m.ephemeral && m.visible_to === userId)
    .at(-1);

describe('/kudos stats and +1 reactions', () => {
  it('counts kudos given and received this month and :gift: +1s (once per person); opted-out people do not appear', async () => {
    const row = await submitSendForm(e2e.stack, e2e.db, 'U_MANAGER', sendModalValues({ users: ['U_EMP1', 'U_EMP2'], design: 'CC-THANK-YOU', amount: '20', message: 'thanks' }));
    const placed = await eventually(async () => (await e2e.db.select().from(kudos)).find((k) => k.id === row.id && k.announcementTs));
    const item = { type: 'message', channel: placed.announcementChannel, ts: placed.announcementTs };
    await e2e.stack.sim.sendEvent({ type: 'reaction_added', user: 'U_EMP3', reaction: 'gift', item, item_user: 'U_KUDOSBOT' });
    await e2e.stack.sim.sendEvent({ type: 'reaction_added', user: 'U_EMP3', reaction: 'gift', item, item_user: 'U_KUDOSBOT' });
    await e2e.stack.sim.sendEvent({ type: 'reaction_added', user: 'U_EMP4', reaction: 'thumbsup', item, item_user: 'U_KUDOSBOT' });
    await eventually(async () => (await e2e.db.select().from(kudosReactions)).length === 1);

    await e2e.stack.sim.slashCommand('U_EMP4', 'stats', 'C_GENERAL');
    const board = JSON.stringify((await e2e.stack.sim.waitFor(() => answer('U_EMP4'))).blocks);
    expect(board).toContain('1 sent · 1 +1s');
    expect(board).toMatch(/Most kudos given\*\\n1\. <@U_MANAGER> · 1/);
    expect(board).toContain('<@U_EMP1> · 1');
    expect(board).not.toContain('$');

    await e2e.stack.sim.slashCommand('U_EMP1', 'stats optout', 'C_GENERAL');
    await e2e.stack.sim.waitFor(() => answer('U_EMP1')?.text.includes('won’t appear'));
    await e2e.stack.sim.slashCommand('U_EMP4', 'stats', 'C_GENERAL');
    await e2e.stack.sim.waitFor(() => {
      const m = answer('U_EMP4');
      const text = JSON.stringify(m?.blocks ?? []);
      return m && text.includes('Most kudos received') && !text.includes('U_EMP1') ? m : undefined;
    });

    await e2e.stack.sim.slashCommand('U_EMP4', 'stats smarch', 'C_GENERAL');
    await e2e.stack.sim.waitFor(() => answer('U_EMP4')?.text.includes('Which month?'));
  });
});
