// A top-up request's billing details are sealed at rest (KUDOS_ENCRYPTION_KEY) in its own row, not
// only the workspace's remembered ones: the row holds no readable copy, the approved request still
// reaches the Rewards API with them, `npm run keys:rotate` re-seals them, a request stored in plain
// JSON (by the previous version) is sealed by the finance sweep and still goes through, and details
// no key opens any more are never sent: the approver is told to ask again.
import { randomUUID } from 'node:crypto';

import { eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';

import { rowsOf } from '../../../src/db/client.js';
import { rotateSealedColumns } from '../../../src/db/rotate-keys.js';
import { topUpRequests } from '../../../src/db/schema/index.js';
import { topUpBillingContext } from '../../../src/db/sealed-columns.js';
import { openTopUp } from '../../../src/domain/finance/top-ups.js';
import { generateKey, parseKeyRing } from '../../../src/secrets/key-ring.js';
import { blockActionPayload, eventually, postSignedPayload, useAppPerTest } from '../../support/app.js';
import { topUpValues } from '../../support/top-up-form.js';

const keyA = generateKey('a');
const keyB = generateKey('b');

const t = useAppPerTest({
  env: {
    KUDOS_ADMINS: 'U_ADMIN,U_APPROVER',
    KUDOS_ADMIN_CHANNEL: 'C_ADMIN',
    KUDOS_ENCRYPTION_KEY: keyA,
  },
  app: { tuning: { financeSweepMs: 0 } },
});

const BILLING = {
  companyName: 'Acme Inc.',
  phoneNumber: '+1 555 0100',
  billingAddress: '1 Main St',
  city: 'Springfield',
  state: 'IL',
  country: 'us',
  zipCode: '62701',
  ein: '12-3456789',
};
const PLAIN_PARTS = ['Acme', '12-3456789', 'Springfield', '555 0100', '1 Main St'];

/** Every column of the request's row as text, read straight from the table. */
async function rawRow(id: string): Promise<Record<string, unknown>> {
  const [row] = rowsOf<Record<string, unknown>>(
    await t.db.execute(sql`select *, billing::text as billing_text from top_up_requests where id = ${id}`),
  );
  return row!;
}

async function requestThroughForm(amount: string) {
  await t.stack.sim.slashCommand('U_ADMIN', 'topup', 'C_ADMIN');
  const view = await t.stack.sim.waitFor(() =>
    t.stack.sim.openViews('U_ADMIN').find((v) => v.callback_id === 'finance_topup'),
  );
  await t.stack.sim.submitView(view.id, topUpValues(amount), 'U_ADMIN');
  expect(t.stack.sim.viewErrors(view.id)).toEqual({});
  return eventually(async () => (await t.db.select().from(topUpRequests))[0]);
}

const requestMessage = (id: string) =>
  t.stack.sim.waitFor(() =>
    t.stack.sim
      .messages('C_ADMIN')
      .find((m) => !m.ephemeral && JSON.stringify(m.blocks ?? []).includes(`finance_topup_${id}`)),
  );

async function approve(id: string) {
  const message = await requestMessage(id);
  await t.stack.sim.clickButton({ channel: message.channel, ts: message.ts }, 'finance_topup_approve', 'U_APPROVER');
  return eventually(async () => {
    const [row] = await t.db.select().from(topUpRequests).where(eq(topUpRequests.id, id));
    return row && row.status !== 'awaiting_approval' && row.status !== 'approved' ? row : undefined;
  });
}

async function fundings(): Promise<number> {
  const rows = await t.stack.app.rewards.balance.ledger({ pageSize: 100 }).all();
  return rows.filter((r) => r.source === 'funding' && r.referenceNumber !== 'FD-OPENING').length;
}

describe('top-up billing details sealed in the request', () => {
  it('the row holds no readable copy; approved, the request reaches the API; keys:rotate re-seals it', async () => {
    const request = await requestThroughForm('2500');
    const raw = await rawRow(request.id);
    expect(raw.billing).toBeNull();
    expect(raw.billing_sealed).toMatch(/^enc:v1:a:/);
    const everything = JSON.stringify(raw);
    for (const part of PLAIN_PARTS) expect(everything).not.toContain(part);

    // The approver sees whose details they are, the EIN only by its last digits.
    const message = JSON.stringify((await requestMessage(request.id)).blocks);
    expect(message).toContain('Acme Inc.');
    expect(message).toContain('EIN ending 6789');
    expect(message).not.toContain('12-3456789');

    // The emulator refuses a top-up without every billing field: submitted means they were sent.
    const decided = await approve(request.id);
    expect(decided.status).toBe('submitted');
    expect(decided.fundingNo).toBeTruthy();
    expect(await fundings()).toBe(1);
    expect((await rawRow(request.id)).billing).toBeNull();

    const report = await rotateSealedColumns(t.db, parseKeyRing(`${keyB},${keyA}`));
    expect(report.columns.find((c) => c.name === 'top_up_requests.billing_sealed')).toMatchObject({
      resealed: 1,
      current: 0,
      failed: [],
    });
    const [rotated] = await t.db.select().from(topUpRequests).where(eq(topUpRequests.id, request.id));
    expect(rotated!.billingSealed).toMatch(/^enc:v1:b:/);
    expect(openTopUp(parseKeyRing(keyB), rotated!).billing).toMatchObject({ ...BILLING, country: 'US' });
    expect(openTopUp(parseKeyRing(keyA), rotated!).billing).toBeUndefined();
  });

  it('a request stored in plain JSON (the previous version) is sealed by the finance sweep and still goes through', async () => {
    const [plain] = await t.db
      .insert(topUpRequests)
      .values({ teamId: 'T0KUDOS', requesterUserId: 'U_ADMIN', amountCents: 150_000, note: '', billing: BILLING })
      .returning();
    await t.stack.app.finance.sweep();
    const raw = await rawRow(plain!.id);
    expect(raw.billing).toBeNull();
    expect(raw.billing_sealed).toMatch(/^enc:v1:a:/);
    for (const part of PLAIN_PARTS) expect(JSON.stringify(raw)).not.toContain(part);
    // The form is filled in from it, opened.
    await t.stack.sim.slashCommand('U_ADMIN', 'topup', 'C_ADMIN');
    const form = await t.stack.sim.waitFor(() =>
      t.stack.sim.openViews('U_ADMIN').find((v) => v.callback_id === 'finance_topup'),
    );
    expect(JSON.stringify(form.blocks)).toContain('"initial_value":"12-3456789"');

    // Its request message was never posted (the previous version posts its own): approve it by click.
    const decided = await postApproval(plain!.id);
    expect(decided.status).toBe('submitted');
    expect(await fundings()).toBe(1);
  });

  it('details no key of the ring opens are never sent: the request fails and says to ask again', async () => {
    // Sealed with a key that is not in the app's ring (dropped from KUDOS_ENCRYPTION_KEY).
    const id = randomUUID();
    const gone = parseKeyRing(generateKey('gone'));
    await t.db.insert(topUpRequests).values({
      id,
      teamId: 'T0KUDOS',
      requesterUserId: 'U_ADMIN',
      amountCents: 150_000,
      note: '',
      billingSealed: gone.seal(JSON.stringify(BILLING), topUpBillingContext(id)),
    });
    const decided = await postApproval(id);
    expect(decided.status).toBe('failed');
    expect(decided.errorCode).toBe('BILLING_UNREADABLE');
    expect(await fundings()).toBe(0);
    // The requester is told why, and that nothing was requested.
    await t.stack.sim.waitFor(() =>
      t.stack.sim
        .messages('U_ADMIN')
        .find(
          (m) =>
            /can no longer be read/.test(JSON.stringify(m.blocks ?? [])) &&
            /Ask for the top-up again/.test(JSON.stringify(m.blocks ?? [])),
        ),
    );
  });
});

/** Approve by a signed click on a request whose message this instance did not post. */
async function postApproval(id: string) {
  await postSignedPayload(
    t.stack.app.url,
    blockActionPayload({
      userId: 'U_APPROVER',
      actionId: 'finance_topup_approve',
      value: id,
      channel: 'C_ADMIN',
      blockId: `finance_topup_${id}`,
    }),
  );
  return eventually(async () => {
    const [row] = await t.db.select().from(topUpRequests).where(eq(topUpRequests.id, id));
    return row && row.status !== 'awaiting_approval' && row.status !== 'approved' ? row : undefined;
  });
}
