// Company values in the recognition feed, through the real routing: `/kudos stats` counts kudos per
// value (a renamed value under its name now, a removed one under the name its kudos kept), the weekly
// digest says last week's per value, App Home shows the value of each kudos sent and received, and
// `/kudos audit csv` has a value column.
import { describe, expect, it } from 'vitest';

import { kudos, type NewKudosRow } from '../../../src/db/schema/index.js';
import { weekStartUtc } from '../../../src/domain/recognition/digest.js';
import { removeCompanyValue, saveCompanyValue, type ValueForm } from '../../../src/domain/workspaces/company-values.js';
import { useAppPerTest } from '../../support/app.js';
import { parseCsv } from '../../support/csv.js';

const e2e = useAppPerTest({
  env: { KUDOS_NOTIFY_CHANNEL: 'C_KUDOS', KUDOS_ADMINS: 'U_ADMIN' },
  app: { tuning: { digestMs: 0 } },
});
const WS = { teamId: 'T0KUDOS', enterpriseId: null };
const DAY = 24 * 3_600_000;

async function addValue(form: ValueForm, id?: string) {
  const saved = await saveCompanyValue(e2e.db, WS, 'U_ADMIN', id, form);
  if (!saved.ok) throw new Error(saved.message);
  return saved.row;
}

let orders = 0;
function placed(value: { id: string; name: string; emoji: string } | undefined, at: Date): NewKudosRow {
  return {
    teamId: 'T0KUDOS',
    senderUserId: 'U_MANAGER',
    senderName: 'Maya',
    recipients: [{ slackUserId: 'U_EMP1', recipientId: null, email: 'emp1@example.com', name: 'Eli' }],
    recipientCount: 1,
    productId: 'CC-THANK-YOU',
    designName: 'Thank You',
    amountCents: 2500,
    totalCents: 2500,
    status: 'placed',
    orderId: `ORD-${++orders}`,
    orderIds: [`ORD-${orders}`],
    partsPlaced: 1,
    placedAt: at,
    notifiedAt: at,
    createdAt: at,
    ...(value ? { valueId: value.id, valueName: value.name, valueEmoji: value.emoji } : {}),
  };
}

const lastAnswer = (userId: string, channel = 'C_GENERAL') =>
  e2e.stack.sim
    .messages(channel)
    .filter((m) => m.ephemeral && m.visible_to === userId)
    .at(-1);

describe('company values in stats, digest, Home and the audit export', () => {
  it('/kudos stats counts kudos per value: renamed under the name now, removed under the name kept', async () => {
    const teamwork = await addValue({ name: 'Teamwork', emoji: 'handshake', description: '' });
    const ownership = await addValue({ name: 'Ownership', emoji: 'bulb', description: '' });
    const speed = await addValue({ name: 'Speed', emoji: 'zap', description: '' });
    const now = new Date();
    await e2e.db
      .insert(kudos)
      .values([
        placed(teamwork, now),
        placed(teamwork, now),
        placed(teamwork, now),
        placed(ownership, now),
        placed(speed, now),
        placed(undefined, now),
      ]);
    await addValue({ name: 'Collaboration', emoji: 'people_holding_hands', description: '' }, teamwork.id);
    await removeCompanyValue(e2e.db, WS, 'U_ADMIN', speed.id);

    await e2e.stack.sim.slashCommand('U_EMP2', 'stats', 'C_GENERAL');
    const board = JSON.stringify((await e2e.stack.sim.waitFor(() => lastAnswer('U_EMP2'))).blocks);
    expect(board).toContain('6 sent');
    expect(board).toContain(
      'Kudos by company value*\\n:people_holding_hands: *Collaboration* · 3\\n:bulb: *Ownership* · 1\\n:zap: *Speed* · 1',
    );
  });

  it('the weekly digest says last week’s kudos per value', async () => {
    const teamwork = await addValue({ name: 'Teamwork', emoji: 'handshake', description: '' });
    const monday10 = new Date(weekStartUtc(new Date()).getTime() + 10 * 3_600_000);
    const lastWeek = new Date(monday10.getTime() - 5 * DAY);
    await e2e.db
      .insert(kudos)
      .values([placed(teamwork, lastWeek), placed(teamwork, lastWeek), placed(undefined, lastWeek)]);
    await e2e.stack.app.settings.update(WS, 'U_ADMIN', { weeklyDigest: true });
    expect(await e2e.stack.app.digest.runOnce(monday10)).toEqual({ posted: 1 });
    const digest = e2e.stack.sim.messages('C_KUDOS').find((m) => m.text.startsWith('Kudos this past week'))!;
    expect(JSON.stringify(digest.blocks)).toContain('By company value*\\n:handshake: *Teamwork* · 2');
  });

  it('App Home shows the value of kudos sent and received, as sent; the audit CSV has a value column', async () => {
    const teamwork = await addValue({ name: 'Teamwork', emoji: 'handshake', description: '' });
    const [row] = await e2e.db.insert(kudos).values(placed(teamwork, new Date())).returning();
    await addValue({ name: 'Collaboration', emoji: 'people_holding_hands', description: '' }, teamwork.id);

    for (const [userId, expected] of [
      ['U_MANAGER', 'Kudos you sent'],
      ['U_EMP1', '<@U_MANAGER> sent you'],
    ] as const) {
      await e2e.stack.sim.sendEvent({ type: 'app_home_opened', user: userId, channel: `D_${userId}`, tab: 'home' });
      const home = await e2e.stack.sim.waitFor(() => {
        const text = JSON.stringify(e2e.stack.sim.homeView(userId)?.blocks ?? []);
        return text.includes(expected) ? text : undefined;
      });
      expect(home).toContain('for :handshake: *Teamwork*');
    }

    await e2e.stack.sim.slashCommand('U_ADMIN', 'audit csv', 'C_GENERAL');
    const dm = await e2e.stack.sim.waitFor(() => e2e.stack.sim.messages('U_ADMIN').find((m) => m.files?.length));
    const [header, ...rows] = parseCsv(e2e.stack.sim.fileText(dm.files![0]!.id)!.text);
    const value = header!.indexOf('Value');
    expect(value).toBeGreaterThan(0);
    // The kudos keeps the value's name as sent; the value's own row names it as renamed.
    expect(rows.find((r) => r[9] === row!.id.slice(0, 8))?.[value]).toBe('Teamwork');
    expect(rows.find((r) => r[2] === 'Company value changed')?.[value]).toBe('Collaboration');
  });
});
