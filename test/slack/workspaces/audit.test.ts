// The audit trail end to end: every request, decision, order and cancellation is a row; admins list
// it with /kudos audit and get it as a CSV file by DM with /kudos audit csv; others are refused.
import { describe, expect, it } from 'vitest';

import { approvalRequests, kudos } from '../../../src/db/schema/index.js';
import { eventually, sendModalValues, submitSendForm, useAppPerTest, wallTimeIn } from '../../support/app.js';
import { parseCsv } from '../../support/csv.js';

const e2e = useAppPerTest({
  env: {
    KUDOS_NOTIFY_CHANNEL: 'C_KUDOS',
    KUDOS_APPROVAL_CHANNEL: 'C_APPROVALS',
    KUDOS_APPROVERS: 'U_APPROVER',
    KUDOS_ADMINS: 'U_ADMIN',
    KUDOS_APPROVAL_THRESHOLD: '100',
  },
  app: { tuning: { approvalsSweepMs: 0 } },
});

const inNewYork = (minutes: number) => wallTimeIn('America/New_York', minutes);

/** A send through the modal; like a user, tries again when a cold app on a loaded machine misses Slack's 3 s. */
async function send(input: Parameters<typeof sendModalValues>[0]) {
  return submitSendForm(e2e.stack, e2e.db, 'U_MANAGER', sendModalValues(input));
}

async function requestMessage(kudosId: string) {
  await eventually(async () =>
    (await e2e.db.select().from(approvalRequests)).find((r) => r.kudosId === kudosId && r.postedAt),
  );
  return e2e.stack.sim.waitFor(() =>
    e2e.stack.sim.messages('C_APPROVALS').find((m) => JSON.stringify(m.blocks ?? []).includes(kudosId)),
  );
}

/** Builds the story: an approved send (ordered), a rejected one, a cancelled scheduled one. */
async function story() {
  const approved = await send({ users: ['U_EMP1'], design: 'CC-THANK-YOU', amount: '150' });
  await e2e.stack.sim.clickButton(
    { channel: 'C_APPROVALS', ts: (await requestMessage(approved.id)).ts },
    'approval_approve',
    'U_APPROVER',
  );
  await eventually(async () =>
    (await e2e.db.select().from(kudos)).find((k) => k.id === approved.id && k.status === 'placed'),
  );

  const rejected = await send({ users: ['U_EMP2'], design: 'CC-THANK-YOU', amount: '200' });
  await e2e.stack.sim.clickButton(
    { channel: 'C_APPROVALS', ts: (await requestMessage(rejected.id)).ts },
    'approval_reject',
    'U_APPROVER',
  );
  const modal = await e2e.stack.sim.waitFor(() => e2e.stack.sim.openViews('U_APPROVER').at(-1));
  await e2e.stack.sim.submitView(
    modal.id,
    { approval_reject_reason: { reason: { type: 'plain_text_input', value: 'Not now, "sorry" =1+1 <b>' } } },
    'U_APPROVER',
  );

  const scheduled = await send({ users: ['U_EMP3'], design: 'CC-THANK-YOU', amount: '20', schedule: inNewYork(120) });
  await eventually(async () =>
    (await e2e.db.select().from(kudos)).find((k) => k.id === scheduled.id && k.status === 'scheduled'),
  );
  await e2e.stack.sim.slashCommand('U_MANAGER', 'scheduled', 'C_GENERAL');
  const list = e2e.stack.sim
    .messages('C_GENERAL')
    .filter((m) => m.ephemeral && m.visible_to === 'U_MANAGER')
    .at(-1)!;
  await e2e.stack.sim.clickButton({ channel: 'C_GENERAL', ts: list.ts }, 'scheduled_cancel', 'U_MANAGER');
  await eventually(async () =>
    (await e2e.db.select().from(kudos)).find((k) => k.id === scheduled.id && k.status === 'canceled'),
  );
  return { approved, rejected, scheduled };
}

/** The `n`th CSV file shared into U_ADMIN's DM, read back from Slack. */
async function csvFile(n: number) {
  const dm = await e2e.stack.sim.waitFor(() => {
    const shared = e2e.stack.sim.messages('U_ADMIN').filter((m) => m.files?.length);
    return shared.length === n ? shared[n - 1] : undefined;
  });
  expect(dm.files![0]!.name).toMatch(/^kudos-audit-\d{4}-\d{2}-\d{2}\.csv$/);
  return e2e.stack.sim.fileText(dm.files![0]!.id)!;
}

describe('/kudos audit', () => {
  it('lists every request, decision, order and cancellation to an admin, and sends the CSV by DM', async () => {
    const { approved, rejected, scheduled } = await story();

    await e2e.stack.sim.slashCommand('U_ADMIN', 'audit', 'C_GENERAL');
    const listing = e2e.stack.sim
      .messages('C_GENERAL')
      .filter((m) => m.ephemeral && m.visible_to === 'U_ADMIN')
      .at(-1)!;
    const shown = JSON.stringify(listing.blocks);
    for (const label of ['Approval requested', 'Approved', 'Rejected', 'Order placed', 'Cancelled'])
      expect(shown).toContain(`*${label}*`);
    expect(shown).not.toContain('approval.requested');
    expect(shown).toMatch(/<!date\^\d+\^/);
    expect(shown).toContain('&lt;b&gt;');
    expect(shown).not.toContain('<b>');

    await e2e.stack.sim.slashCommand('U_ADMIN', 'audit csv', 'C_GENERAL');
    const [header, ...rows] = parseCsv((await csvFile(1)).text);
    expect(header).toEqual([
      'When (UTC)',
      'Who',
      'Event',
      'Sender',
      'Recipients',
      'Campaign',
      'Face value (USD)',
      'Total (USD)',
      'Details',
      'Reference',
      'Value',
      'Face value',
      'Face currency',
    ]);
    const events = rows.map(([at, who, event, sender, recipients, , face, total, details, reference]) => ({
      at: at!,
      who,
      event,
      sender,
      recipients,
      face,
      total,
      details: details!,
      reference,
    }));
    // An admin reads people's names and dollars; the send is its short reference, as in the listing.
    const of = (kudosId: string) =>
      events
        .filter((e) => e.reference === kudosId.slice(0, 8))
        .map((e) => `${e.event}:${e.who}`)
        .sort();
    const names = (id: string) => {
      const u = e2e.stack.sim.workspace.users.find((w) => w.id === id)!;
      return u.displayName;
    };
    expect(of(approved.id)).toEqual([
      `Approval requested:${names('U_MANAGER')}`,
      `Approved:${names('U_APPROVER')}`,
      `Order placed:${names('U_MANAGER')}`,
    ]);
    expect(of(rejected.id)).toEqual([`Approval requested:${names('U_MANAGER')}`, `Rejected:${names('U_APPROVER')}`]);
    expect(of(scheduled.id)).toEqual([`Cancelled:${names('U_MANAGER')}`, `Order placed:${names('U_MANAGER')}`]);
    const placed = events.find((e) => e.reference === approved.id.slice(0, 8) && e.event === 'Order placed')!;
    expect(placed).toMatchObject({ face: '150.00', total: '150.00' });
    expect(placed.recipients).not.toMatch(/U_EMP1/);
    expect(placed.sender).not.toMatch(/^U_/);
    for (const e of events) expect(e.who).not.toMatch(/^U_/);
    // The reason as typed; the formula guard keeps a spreadsheet from running what starts with =.
    expect(events.find((e) => e.event === 'Rejected')!.details).toContain('reason: Not now, "sorry" =1+1 <b>');
    for (const e of events) expect(e.at).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    // Newest first.
    expect([...events].sort((a, b) => b.at.localeCompare(a.at)).map((e) => e.at)).toEqual(events.map((e) => e.at));

    // Listing twice copies each order outcome once.
    await e2e.stack.sim.slashCommand('U_ADMIN', 'audit csv', 'C_GENERAL');
    expect((await csvFile(2)).text.match(/Order placed/g)).toHaveLength(2);
  });

  it('refuses non-admins, with nothing sent', async () => {
    await e2e.stack.sim.slashCommand('U_MANAGER', 'audit', 'C_GENERAL');
    await e2e.stack.sim.slashCommand('U_APPROVER', 'audit csv', 'C_GENERAL');
    for (const user of ['U_MANAGER', 'U_APPROVER']) {
      const reply = e2e.stack.sim
        .messages('C_GENERAL')
        .filter((m) => m.ephemeral && m.visible_to === user)
        .at(-1)!;
      expect(reply.text).toContain('Only Kudos admins');
      expect(e2e.stack.sim.messages(user)).toHaveLength(0);
    }
  });

  it('help lists the admin subcommands to an admin', async () => {
    await e2e.stack.sim.slashCommand('U_ADMIN', 'help', 'C_GENERAL');
    const reply = e2e.stack.sim
      .messages('C_GENERAL')
      .filter((m) => m.ephemeral && m.visible_to === 'U_ADMIN')
      .at(-1)!;
    expect(JSON.stringify(reply.blocks)).toContain('/kudos audit csv');
    expect(JSON.stringify(reply.blocks)).toContain('/kudos settings');
  });
});
