// The weekly digest: off by default; once an admin turns it on, posted in the announcement channel on
// Monday for the week that ended, exactly once per workspace and week however many instances run
// the pass (the notice outbox's unique row). Slack calls go to the simulator through the real gateway.
import { describe, expect, it } from 'vitest';

import { installations, kudos, kudosReactions, type NewKudosRow, notifications } from '../../../src/db/schema/index.js';
import { digestWeekAt, weekStartUtc } from '../../../src/domain/recognition/digest.js';
import { useAppPerTest } from '../../support/app.js';

const e2e = useAppPerTest({
  env: { KUDOS_NOTIFY_CHANNEL: 'C_KUDOS', KUDOS_ADMINS: 'U_ADMIN' },
  app: { tuning: { digestMs: 0 } },
});

const DAY = 24 * 3_600_000;
/** This week's Monday, 10:00 UTC: inside the digest window, reporting on last week. */
const monday10 = new Date(weekStartUtc(new Date()).getTime() + 10 * 3_600_000);
const lastWeek = new Date(monday10.getTime() - 5 * DAY);

const digests = () => e2e.stack.sim.messages('C_KUDOS').filter((m) => m.text.startsWith('Kudos this past week'));

function row(sender: string, recipient: string, at: Date): NewKudosRow {
  return {
    teamId: 'T0KUDOS',
    senderUserId: sender,
    senderName: sender,
    recipients: [
      { slackUserId: recipient, recipientId: null, email: `${recipient.toLowerCase()}@example.com`, name: recipient },
    ],
    recipientCount: 1,
    productId: 'CC-THANK-YOU',
    designName: 'Thank You',
    amountCents: 2500,
    totalCents: 2500,
    status: 'placed',
    notifiedAt: at,
    createdAt: at,
  };
}

describe('weekly digest', () => {
  it('opens Mondays 09:00 UTC for one day, reporting on the week that ended', () => {
    const monday = weekStartUtc(new Date('2026-11-25T12:00:00Z'));
    expect(monday.toISOString()).toBe('2026-11-23T00:00:00.000Z');
    expect(digestWeekAt(new Date('2026-11-23T08:59:00Z'))).toBeUndefined();
    expect(digestWeekAt(new Date('2026-11-23T09:00:00Z'))?.toISOString()).toBe('2026-11-16T00:00:00.000Z');
    expect(digestWeekAt(new Date('2026-11-24T08:59:00Z'))?.toISOString()).toBe('2026-11-16T00:00:00.000Z');
    expect(digestWeekAt(new Date('2026-11-24T09:00:00Z'))).toBeUndefined();
    expect(digestWeekAt(new Date('2026-11-29T23:00:00Z'))).toBeUndefined();
  });

  it('is off by default; once on, posted once per week in the announcement channel, however many instances run the pass', async () => {
    const [k] = await e2e.db
      .insert(kudos)
      .values([
        row('U_MANAGER', 'U_EMP1', lastWeek),
        row('U_MANAGER', 'U_EMP2', lastWeek),
        row('U_EMP1', 'U_MANAGER', new Date(lastWeek.getTime() - 7 * DAY)),
      ])
      .returning();
    await e2e.db
      .insert(kudosReactions)
      .values({ teamId: 'T0KUDOS', kudosId: k!.id, userId: 'U_EMP3', reaction: 'gift', createdAt: lastWeek });

    expect(await e2e.stack.app.digest.runOnce(monday10)).toEqual({ posted: 0 });
    expect(digests()).toHaveLength(0);

    await e2e.stack.app.settings.update({ teamId: 'T0KUDOS' }, 'U_ADMIN', { weeklyDigest: true });
    const other = await e2e.stack.startAnotherApp({ tuning: { digestMs: 0 } });
    // Three passes at once (two instances), then one more: one post.
    const results = await Promise.all([
      e2e.stack.app.digest.runOnce(monday10),
      other.digest.runOnce(monday10),
      other.digest.runOnce(new Date(monday10.getTime() + 60_000)),
    ]);
    expect(results.reduce((n, r) => n + r.posted, 0)).toBe(1);
    expect(await e2e.stack.app.digest.runOnce(new Date(monday10.getTime() + 3_600_000))).toEqual({ posted: 0 });
    const posted = await e2e.stack.sim.waitFor(() => digests()[0]);
    expect(digests()).toHaveLength(1);
    const shown = JSON.stringify(posted.blocks);
    expect(shown).toContain('2 sent · 1 +1s'); // last week only: the older kudos is not in it
    expect(shown).toContain('<@U_MANAGER> · 2');
    expect(shown).not.toContain('$'); // counts only unless an admin turns amounts on
    expect((await e2e.db.select().from(notifications)).filter((n) => n.kind === 'digest.weekly')).toHaveLength(1);

    // Outside the window: nothing, even for a workspace that has not had this week's digest.
    expect(await e2e.stack.app.digest.runOnce(new Date(monday10.getTime() + 2 * DAY))).toEqual({ posted: 0 });
  });

  it('skips a workspace that uninstalled the app', async () => {
    await e2e.db.insert(kudos).values(row('U_MANAGER', 'U_EMP1', lastWeek));
    await e2e.stack.app.settings.update({ teamId: 'T0KUDOS' }, 'U_ADMIN', { weeklyDigest: true });
    await e2e.db
      .insert(installations)
      .values({ installationKey: 'team:T0KUDOS', teamId: 'T0KUDOS', uninstalledAt: new Date() });
    expect(await e2e.stack.app.digest.runOnce(monday10)).toEqual({ posted: 0 });
    expect(digests()).toHaveLength(0);
    // Installed again: posted.
    await e2e.db.delete(installations);
    expect(await e2e.stack.app.digest.runOnce(monday10)).toEqual({ posted: 1 });
  });
});
