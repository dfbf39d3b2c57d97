// The admin's exports as CSV files in Slack (files.uploadV2 into the simulator): the ledger's rows as an
// admin reads them (names, campaign, face value and dollars), the formula guard, non-admins refused.
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';

import { kudos } from '../../../src/db/schema/index.js';
import { eventually, sendModalValues, submitSendForm, useAppPerTest } from '../../support/app.js';
import { parseCsv } from '../../support/csv.js';

const t = useAppPerTest({
  env: { KUDOS_ADMINS: 'U_ADMIN', KUDOS_ADMIN_CHANNEL: 'C_ADMIN', KUDOS_APPROVAL_THRESHOLD: '100000' },
  app: { tuning: { financeSweepMs: 0 } },
});

async function placedSend(users: string[], amount: string) {
  const row = await submitSendForm(
    t.stack,
    t.db,
    'U_MANAGER',
    sendModalValues({ users, design: 'CC-THANK-YOU', amount }),
  );
  return eventually(async () =>
    (await t.db.select().from(kudos).where(eq(kudos.id, row.id))).find((k) => k.status === 'placed' && k.orderId),
  );
}

/** The one CSV file shared into the admin's DM, as a spreadsheet reads it. */
async function sharedCsv(userId: string) {
  const dm = await t.stack.sim.waitFor(() => t.stack.sim.messages(userId).find((m) => m.files?.length));
  const file = t.stack.sim.fileText(dm.files![0]!.id)!;
  return { name: file.name, rows: parseCsv(file.text), text: file.text };
}

describe('/kudos ledger csv', () => {
  it('a send is one row with its sender, recipients, face value and dollars; a formula in a name is neutralised', async () => {
    // Someone set their Slack name to a spreadsheet formula.
    const prankster = t.stack.sim.workspace.users.find((u) => u.id === 'U_EMP2')!;
    prankster.realName = '=HYPERLINK("http://evil.example","Pat")';
    prankster.displayName = prankster.realName;
    const sent = await placedSend(['U_EMP2', 'U_EMP1'], '25');

    await t.stack.sim.slashCommand('U_ADMIN', 'ledger csv', 'C_ADMIN');
    const csv = await sharedCsv('U_ADMIN');
    expect(csv.name).toMatch(/^kudos-ledger-\d{4}-\d{2}\.csv$/);
    const [header, ...rows] = csv.rows;
    expect(header).toEqual([
      'Date (UTC)',
      'What',
      'Sender',
      'Recipients',
      'Campaign',
      'Face value (USD)',
      'Amount (USD)',
      'Currency',
      'Credited',
      'Rewards reference',
      'Value',
    ]);
    const order = rows.find((r) => r[1] === 'Order')!;
    expect(order.slice(1, 9)).toEqual([
      'Order',
      'Maya Manager',
      `'=HYPERLINK("http://evil.example","Pat"), Eli Engineer`,
      '',
      '25.00',
      '-50.00',
      'USD',
      'yes',
    ]);
    expect(order[9]).toBe(sent.orderId);
    expect(order[0]).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    // No cell a spreadsheet would run as a formula.
    for (const row of csv.rows) for (const cell of row) expect(cell).not.toMatch(/^[=+@]/);
  });

  it('non-admins are refused, and no file is shared', async () => {
    const answer = await t.stack.sim.slashCommand('U_MANAGER', 'ledger csv', 'C_GENERAL');
    expect(JSON.stringify(answer.body)).toMatch(/Only Kudos admins/);
    const audit = await t.stack.sim.slashCommand('U_MANAGER', 'audit csv', 'C_GENERAL');
    expect(JSON.stringify(audit.body)).toMatch(/Only Kudos admins/);
    expect(t.stack.sim.calls.filter((c) => c.method.startsWith('files.'))).toEqual([]);
    expect(t.stack.sim.messages('U_MANAGER').filter((m) => m.files?.length)).toEqual([]);
  });
});
