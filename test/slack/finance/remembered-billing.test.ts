// The top-up form remembers the workspace's billing details, sealed at rest (KUDOS_ENCRYPTION_KEY):
// the next top-up asks only for the amount, and "Change billing details" brings the fields back.
import { randomBytes } from 'node:crypto';

import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';

import { financeState, topUpRequests } from '../../../src/db/schema/index.js';
import { openTopUp } from '../../../src/domain/finance/top-ups.js';
import { parseKeyRing } from '../../../src/secrets/key-ring.js';
import type { View } from '../../../src/simulator/slack.js';
import { eventually, useAppPerTest } from '../../support/app.js';
import { topUpValues } from '../../support/top-up-form.js';

const KEY = randomBytes(32).toString('base64');
const t = useAppPerTest({
  env: {
    KUDOS_ADMINS: 'U_ADMIN,U_APPROVER',
    KUDOS_ADMIN_CHANNEL: 'C_ADMIN',
    KUDOS_ENCRYPTION_KEY: KEY,
  },
  app: { tuning: { financeSweepMs: 0 } },
});

const text = (value: string) => ({ value: { type: 'plain_text_input', value } });
const shown = (view: View) => JSON.stringify(view.blocks);

async function openTopUpForm(): Promise<View> {
  const before = new Set(t.stack.sim.openViews('U_ADMIN').map((v) => v.id));
  await t.stack.sim.slashCommand('U_ADMIN', 'topup', 'C_ADMIN');
  return t.stack.sim.waitFor(() =>
    t.stack.sim.openViews('U_ADMIN').find((v) => v.callback_id === 'finance_topup' && !before.has(v.id)),
  );
}

async function requests(count: number) {
  return eventually(async () => {
    const rows = await t.db.select().from(topUpRequests).orderBy(topUpRequests.createdAt);
    return rows.length === count ? rows : undefined;
  });
}

/** Once the first request's details are kept (just after the request is recorded). */
const remembered = () =>
  eventually(async () => {
    const [row] = await t.db.select().from(financeState).where(eq(financeState.teamId, 'T0KUDOS'));
    return row?.billingDetails ? row : undefined;
  });

describe('remembered billing details', () => {
  it('asked once, then only the amount; sealed in the database; changed on demand', async () => {
    const first = await openTopUpForm();
    expect(shown(first)).toContain('topup_company');
    expect(shown(first)).toContain('Kudos remembers them, encrypted');
    await t.stack.sim.submitView(first.id, topUpValues('2500'), 'U_ADMIN');
    expect(t.stack.sim.viewErrors(first.id)).toEqual({});
    await requests(1);

    // Sealed at rest: the column holds no part of what was typed.
    const state = await remembered();
    expect(state.billingDetails).toMatch(/^enc:v1:/);
    for (const plain of ['Acme', '12-3456789', 'Springfield', '555 0100'])
      expect(state.billingDetails).not.toContain(plain);
    expect(state.billingUpdatedBy).toBe('U_ADMIN');

    // The second top-up asks only for the amount, and shows whose details it will use.
    const second = await openTopUpForm();
    expect(shown(second)).not.toContain('topup_company');
    expect(shown(second)).toContain('Acme Inc.');
    expect(shown(second)).toContain('EIN ending 6789');
    expect(shown(second)).not.toContain('12-3456789');
    expect(shown(second)).toContain('Change billing details');
    await t.stack.sim.submitView(second.id, { topup_amount: text('300'), topup_note: text('December') }, 'U_ADMIN');
    expect(t.stack.sim.viewErrors(second.id)).toEqual({});
    const [, again] = await requests(2);
    expect(again!.amountCents).toBe(30_000);
    // Each request keeps the details it is sent with, sealed too (sealed-top-up-billing.test.ts).
    expect(again!.billing).toBeNull();
    expect(openTopUp(parseKeyRing(KEY), again!).billing).toMatchObject({
      companyName: 'Acme Inc.',
      ein: '12-3456789',
      country: 'US',
      city: 'Springfield',
    });

    // Change billing details: the fields come back, prefilled; what was typed stays.
    const third = await openTopUpForm();
    await t.stack.sim.clickButton({ viewId: third.id }, 'finance_topup_change_billing', 'U_ADMIN');
    const fields = await t.stack.sim.waitFor(() => {
      const view = t.stack.sim.openViews('U_ADMIN').find((v) => v.id === third.id);
      return view && shown(view).includes('topup_company') ? view : undefined;
    });
    expect(shown(fields)).toContain('"initial_value":"Acme Inc."');
    await t.stack.sim.submitView(
      fields.id,
      { ...topUpValues('400'), topup_company: text('Acme Holdings'), topup_ein: text('98-7654321') },
      'U_ADMIN',
    );
    expect(t.stack.sim.viewErrors(fields.id)).toEqual({});
    const [, , changed] = await requests(3);
    expect(openTopUp(parseKeyRing(KEY), changed!).billing).toMatchObject({
      companyName: 'Acme Holdings',
      ein: '98-7654321',
    });
    const fourth = await openTopUpForm();
    expect(shown(fourth)).toContain('Acme Holdings');
    expect(shown(fourth)).toContain('EIN ending 4321');
    expect(shown(fourth)).not.toContain('topup_company');
  });

  it('a bad amount in the short form is refused inline; nothing is recorded', async () => {
    const first = await openTopUpForm();
    await t.stack.sim.submitView(first.id, topUpValues('2500'), 'U_ADMIN');
    await remembered();
    const short = await openTopUpForm();
    await t.stack.sim.submitView(short.id, { topup_amount: text('50'), topup_note: text('') }, 'U_ADMIN');
    expect(t.stack.sim.viewErrors(short.id).topup_amount).toMatch(/at least \$100/);
    expect(await t.db.select().from(topUpRequests)).toHaveLength(1);
  });

  it('non-admins cannot open it', async () => {
    const answer = await t.stack.sim.slashCommand('U_MANAGER', 'topup', 'C_GENERAL');
    expect(JSON.stringify(answer.body)).toMatch(/Only Kudos admins/);
  });
});
