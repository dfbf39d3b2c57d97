// The admin's exports as CSV files in Slack (files.uploadV2 into the simulator): the ledger's rows as an
// admin reads them (names, campaign, face value and dollars), the formula guard, non-admins refused.
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';

import { kudos, type NewKudosRow } from '../../../src/db/schema/index.js';
import { ledgerCsv } from '../../../src/domain/finance/csv-exports.js';
import type { Movement } from '../../../src/domain/finance/ledger.js';
import { eventually, sendModalValues, submitSendForm, useAppPerTest } from '../../support/app.js';
import { parseCsv } from '../../support/csv.js';
import { pendingKudosValues, tescoCardColumns } from '../../support/kudos-row.js';

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
      'Face value',
      'Face currency',
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
    // A choice card's face is its dollars.
    expect(order.slice(11)).toEqual(['25.00', 'USD']);
    expect(order[0]).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    // No cell a spreadsheet would run as a formula.
    for (const row of csv.rows) for (const cell of row) expect(cell).not.toMatch(/^[=+@]/);
  });

  it('a branded send: its face value and currency beside the USD, the actual cost once charged', async () => {
    const [charged] = await t.db
      .insert(kudos)
      .values(tescoSend({ orderId: 'O-TESCO', costCents: 6350 }))
      .returning();
    const movement: Movement = {
      kind: 'order',
      label: 'Order',
      type: 'ORDER',
      source: undefined,
      status: undefined,
      statusLabel: undefined,
      referenceNumber: 'O-TESCO',
      signedCents: -6350,
      currency: 'USD',
      credited: true,
      occurredAt: new Date('2026-11-22T12:00:00Z'),
    };
    const [header, row] = parseCsv(await ledgerCsv(t.db, { teamId: 'T0KUDOS' }, [movement]));
    const cell = (name: string) => row![header!.indexOf(name)];
    expect(charged!.cardType).toBe('BRANDED_CARD');
    expect(cell('Face value (USD)')).toBe('31.75');
    expect(cell('Amount (USD)')).toBe('-63.50');
    expect(cell('Face value')).toBe('25.00');
    expect(cell('Face currency')).toBe('GBP');
  });
});

/** A £25 Tesco Gift Card each to two people, judged at $33.34 a card, placed as order `orderId`. */
function tescoSend(overrides: Partial<NewKudosRow>): NewKudosRow {
  return pendingKudosValues({
    recipients: [
      { slackUserId: 'U_EMP1', recipientId: null, email: 'eli@example.com', name: 'Eli Engineer' },
      { slackUserId: 'U_EMP2', recipientId: null, email: 'sam@example.com', name: 'Sam' },
    ],
    recipientCount: 2,
    ...tescoCardColumns(2),
    status: 'placed',
    placedAt: new Date(),
    ...overrides,
  });
}

describe('/kudos audit csv', () => {
  it('a branded send: the face in its currency; USD as charged, as judged, or left empty while unknown', async () => {
    const [charged] = await t.db
      .insert(kudos)
      .values(tescoSend({ orderId: 'O-CHARGED', costCents: 6350 }))
      .returning();
    const [judged] = await t.db
      .insert(kudos)
      .values(tescoSend({ orderId: 'O-JUDGED' }))
      .returning();
    const [yen] = await t.db
      .insert(kudos)
      .values(
        tescoSend({
          orderId: 'O-YEN',
          status: 'scheduled',
          designName: 'Amazon.co.jp Gift Card',
          faceCurrency: 'JPY',
          faceCents: 100_000,
          usdBasis: 'unknown',
        }),
      )
      .returning();

    await t.stack.sim.slashCommand('U_ADMIN', 'audit csv', 'C_ADMIN');
    const [header, ...rows] = (await sharedCsv('U_ADMIN')).rows;
    expect(header!.slice(-4)).toEqual(['Reference', 'Value', 'Face value', 'Face currency']);
    const placed = (id: string) => {
      const row = rows.find((r) => r[2] === 'Order placed' && r[9] === id.slice(0, 8))!;
      return Object.fromEntries(
        ['Face value (USD)', 'Total (USD)', 'Face value', 'Face currency'].map((name) => [
          name,
          row[header!.indexOf(name)],
        ]),
      );
    };
    expect(placed(charged!.id)).toEqual({
      'Face value (USD)': '31.75',
      'Total (USD)': '63.50',
      'Face value': '25.00',
      'Face currency': 'GBP',
    });
    expect(placed(judged!.id)).toEqual({
      'Face value (USD)': '33.34',
      'Total (USD)': '66.68',
      'Face value': '25.00',
      'Face currency': 'GBP',
    });
    expect(placed(yen!.id)).toEqual({
      'Face value (USD)': '',
      'Total (USD)': '',
      'Face value': '1000',
      'Face currency': 'JPY',
    });
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
