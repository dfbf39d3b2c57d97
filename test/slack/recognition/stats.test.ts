// /kudos stats and "+1" reactions through the real routing.
import { describe, expect, it } from 'vitest';

import { campaigns, kudos, kudosReactions, type NewKudosRow } from '../../../src/db/schema/index.js';
import { eventually, sendModalValues, submitSendForm, useAppPerTest } from '../../support/app.js';
import { tescoCardColumns } from '../../support/kudos-row.js';

const e2e = useAppPerTest({ env: { KUDOS_NOTIFY_CHANNEL: 'C_KUDOS', KUDOS_APPROVAL_THRESHOLD: '100' } });

const answer = (userId: string) =>
  e2e.stack.sim
    .messages('C_GENERAL')
    .filter((m) => m.ephemeral && m.visible_to === userId)
    .at(-1);

describe('/kudos stats and +1 reactions', () => {
  it('counts kudos given and received this month and :gift: +1s (once per person); opted-out people do not appear', async () => {
    const row = await submitSendForm(
      e2e.stack,
      e2e.db,
      'U_MANAGER',
      sendModalValues({ users: ['U_EMP1', 'U_EMP2'], design: 'CC-THANK-YOU', amount: '20', message: 'thanks' }),
    );
    const placed = await eventually(async () =>
      (await e2e.db.select().from(kudos)).find((k) => k.id === row.id && k.announcementTs),
    );
    const item = { type: 'message', channel: placed.announcementChannel, ts: placed.announcementTs };
    await e2e.stack.sim.sendEvent({
      type: 'reaction_added',
      user: 'U_EMP3',
      reaction: 'gift',
      item,
      item_user: 'U_KUDOSBOT',
    });
    await e2e.stack.sim.sendEvent({
      type: 'reaction_added',
      user: 'U_EMP3',
      reaction: 'gift',
      item,
      item_user: 'U_KUDOSBOT',
    });
    await e2e.stack.sim.sendEvent({
      type: 'reaction_added',
      user: 'U_EMP4',
      reaction: 'thumbsup',
      item,
      item_user: 'U_KUDOSBOT',
    });
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

  it('per channel and per user group; amounts only when an admin turns them on; the +1 reaction is the configured one', async () => {
    const row = (sender: string, recipient: string, channel: string, amountCents: number): NewKudosRow => ({
      teamId: 'T0KUDOS',
      senderUserId: sender,
      senderName: sender,
      recipients: [
        { slackUserId: recipient, recipientId: null, email: `${recipient.toLowerCase()}@example.com`, name: recipient },
      ],
      recipientCount: 1,
      productId: 'CC-THANK-YOU',
      designName: 'Thank You',
      amountCents,
      totalCents: amountCents,
      status: 'placed',
      notifiedAt: new Date(),
      announcementChannel: channel,
      announcementTs: `17000000${Math.floor(Math.random() * 1e6)}.000100`,
    });
    await e2e.db
      .insert(kudos)
      .values([
        row('U_MANAGER', 'U_EMP3', 'C_KUDOS', 2000),
        row('U_EMP2', 'U_EMP1', 'C_OTHER', 5000),
        row('U_EMP2', 'U_EMP1', 'C_OTHER', 5000),
      ]);
    const board = async (text: string, expected: string) => {
      await e2e.stack.sim.slashCommand('U_EMP4', text, 'C_GENERAL');
      return e2e.stack.sim
        .waitFor(() => {
          const m = answer('U_EMP4');
          const shown = JSON.stringify(m?.blocks ?? []) + (m?.text ?? '');
          return m && shown.includes(expected) ? shown : undefined;
        })
        .catch((e: unknown) => {
          throw new Error(`${String(e)}: ${JSON.stringify(answer('U_EMP4'))}`);
        });
    };

    const channel = await board('stats <#C_OTHER|other>', 'in <#C_OTHER>');
    expect(channel).toContain('2 sent');
    expect(channel).toContain('<@U_EMP2> · 2');
    expect(channel).not.toContain('U_MANAGER');

    // S_TEAM is U_EMP1 and U_EMP2: only they appear.
    const group = await board('stats <!subteam^S_TEAM|@team>', 'for @team');
    expect(group).toContain('<@U_EMP2> · 2');
    expect(group).toContain('<@U_EMP1> · 2');
    expect(group).not.toContain('U_MANAGER');
    expect(group).not.toContain('U_EMP3');
    expect(group).not.toContain('$');
    expect(await board('stats <!subteam^S_NOPE|@nope>', 'couldn’t find that user group')).toBeTruthy();

    // An admin turns amounts on.
    await e2e.stack.app.settings.update({ teamId: 'T0KUDOS' }, 'U_ADMIN', { leaderboardAmounts: true });
    const withAmounts = await board('stats', 'Counts, with amounts');
    expect(withAmounts).toContain('<@U_EMP2> · 2 ($100)');

    // The +1 reaction is the configured one: :tada: now, :gift: no longer counts.
    await e2e.stack.app.settings.update({ teamId: 'T0KUDOS' }, 'U_ADMIN', { reactionEmoji: 'tada' });
    const [first] = await e2e.db.select().from(kudos);
    const item = { type: 'message', channel: first!.announcementChannel, ts: first!.announcementTs };
    await e2e.stack.sim.sendEvent({
      type: 'reaction_added',
      user: 'U_EMP3',
      reaction: 'gift',
      item,
      item_user: 'U_KUDOSBOT',
    });
    await e2e.stack.sim.sendEvent({
      type: 'reaction_added',
      user: 'U_EMP4',
      reaction: 'tada::skin-tone-3',
      item,
      item_user: 'U_KUDOSBOT',
    });
    const counted = await eventually(async () => {
      const rows = await e2e.db.select().from(kudosReactions);
      return rows.length > 0 ? rows : undefined;
    });
    expect(counted.map((r) => r.userId)).toEqual(['U_EMP4']);
    await e2e.stack.sim.sendEvent({
      type: 'reaction_removed',
      user: 'U_EMP4',
      reaction: 'tada::skin-tone-3',
      item,
      item_user: 'U_KUDOSBOT',
    });
    await eventually(async () => (await e2e.db.select().from(kudosReactions)).length === 0);
  });

  it('amounts in dollars: a branded card counts what it was charged, each recipient their share', async () => {
    const tesco = (costCents: number | null): NewKudosRow => ({
      teamId: 'T0KUDOS',
      senderUserId: 'U_MANAGER',
      senderName: 'Maya',
      recipients: ['U_EMP1', 'U_EMP2'].map((id) => ({
        slackUserId: id,
        recipientId: null,
        email: `${id.toLowerCase()}@example.com`,
        name: id,
      })),
      recipientCount: 2,
      ...tescoCardColumns(2),
      costCents,
      status: 'placed',
      notifiedAt: new Date(),
    });
    // One charged $63.50 for the two £25 cards, one whose charge is not known yet (judged $66.68).
    await e2e.db.insert(kudos).values([tesco(6350), tesco(null)]);
    await e2e.stack.app.settings.update({ teamId: 'T0KUDOS' }, 'U_ADMIN', { leaderboardAmounts: true });
    await e2e.stack.sim.slashCommand('U_EMP4', 'stats', 'C_GENERAL');
    const board = JSON.stringify((await e2e.stack.sim.waitFor(() => answer('U_EMP4'))).blocks);
    expect(board).toContain('<@U_MANAGER> · 2 ($130.18)');
    expect(board).toContain('<@U_EMP1> · 2 ($65.09)');
  });

  it('spend per campaign for the month shown, only where amounts show: the workspace board, sends placed that month, archived campaigns too, no other workspace', async () => {
    const campaign = (teamId: string, name: string, status: 'active' | 'archived') => ({
      teamId,
      name,
      productId: 'CC-THANK-YOU',
      designName: 'Thank You',
      minCents: 1000,
      maxCents: 10000,
      defaultCents: 2500,
      status,
      apiName: `${name} (Kudos test)`,
      createdBy: 'U_ADMIN',
    });
    const [q4, launch, theirs] = await e2e.db
      .insert(campaigns)
      .values([
        campaign('T0KUDOS', 'Q4 spot awards', 'active'),
        campaign('T0KUDOS', 'Launch <!channel>', 'archived'),
        campaign('T_OTHER', 'Their campaign', 'active'),
      ])
      .returning();
    const now = new Date();
    const lastMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 15));
    const sent = (
      teamId: string,
      campaignId: string | null,
      cents: number,
      extra: Partial<NewKudosRow> = {},
    ): NewKudosRow => ({
      teamId,
      campaignId,
      senderUserId: 'U_MANAGER',
      senderName: 'U_MANAGER',
      recipients: [{ slackUserId: 'U_EMP1', recipientId: null, email: 'u_emp1@example.com', name: 'U_EMP1' }],
      recipientCount: 1,
      productId: 'CC-THANK-YOU',
      designName: 'Thank You',
      amountCents: cents,
      totalCents: cents,
      status: 'placed',
      placedAt: now,
      ...extra,
    });
    await e2e.db.insert(kudos).values([
      sent('T0KUDOS', q4!.id, 2500),
      sent('T0KUDOS', q4!.id, 5000, { costCents: 5150 }), // counted at its cost, as the campaign list does
      sent('T0KUDOS', launch!.id, 1000),
      sent('T0KUDOS', q4!.id, 9900, { placedAt: lastMonth, createdAt: lastMonth }),
      sent('T0KUDOS', q4!.id, 4400, { status: 'scheduled', placedAt: null }), // booked, not yet placed this month
      sent('T0KUDOS', q4!.id, 3300, { status: 'failed', placedAt: null }),
      sent('T0KUDOS', null, 6600),
      sent('T_OTHER', theirs!.id, 7700),
    ]);
    const board = async (text: string, expected: string) => {
      await e2e.stack.sim.slashCommand('U_EMP4', text, 'C_GENERAL');
      return e2e.stack.sim.waitFor(() => {
        const m = answer('U_EMP4');
        const shown = JSON.stringify(m?.blocks ?? []);
        return m && m.text !== undefined && shown.includes(expected) ? shown : undefined;
      });
    };

    // Amounts off (the default): counts only, no money by campaign.
    const countsOnly = await board('stats', 'Counts only');
    expect(countsOnly).not.toContain('Spend by campaign');
    expect(countsOnly).not.toContain('Q4 spot awards');

    await e2e.stack.app.settings.update({ teamId: 'T0KUDOS' }, 'U_ADMIN', { leaderboardAmounts: true });
    const thisMonth = await board('stats', 'Spend by campaign');
    expect(thisMonth).toContain('*Q4 spot awards* · 2 kudos · $76.50');
    expect(thisMonth).toContain('*Launch &lt;!channel&gt;* (archived) · 1 kudos · $10');
    expect(thisMonth.indexOf('Q4 spot awards')).toBeLessThan(thisMonth.indexOf('Launch')); // most spent first
    expect(thisMonth).not.toContain('Their campaign');
    expect(thisMonth).not.toContain('$99');

    const month = `${lastMonth.getUTCFullYear()}-${String(lastMonth.getUTCMonth() + 1).padStart(2, '0')}`;
    const before = await board(`stats ${month}`, 'Spend by campaign');
    expect(before).toContain('*Q4 spot awards* · 1 kudos · $99');
    expect(before).not.toContain('Launch');

    // A channel's board is not the workspace's spend.
    const channel = await board('stats <#C_OTHER|other>', 'in <#C_OTHER>');
    expect(channel).not.toContain('Spend by campaign');

    // Turned off again: gone for everyone.
    await e2e.stack.app.settings.update({ teamId: 'T0KUDOS' }, 'U_ADMIN', { leaderboardAmounts: false });
    await e2e.stack.sim.slashCommand('U_EMP4', 'stats optin', 'C_GENERAL');
    await e2e.stack.sim.waitFor(() => answer('U_EMP4')?.text.includes('Welcome back'));
    expect(await board('stats', 'Counts only')).not.toContain('Spend by campaign');
  });
});
