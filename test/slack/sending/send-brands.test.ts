// Branded cards in the send form and the one-line command, end to end through the Slack simulator and
// the emulator: "A brand" swaps the design for a brand picker (searched by name and category); a FIXED
// product offers its denominations, a RANGE product checks min, max and step; the amount shows in the
// brand's currency with its USD estimate and terms; the send is a branded order at face value. Amounts
// a brand does not offer, and a brand removed while the form is open, are inline errors, nothing sent;
// a card whose USD cost is unknown, or whose estimate crosses the threshold, waits for approval.
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';

import { kudos, learnedExchangeRates, peopleCountries } from '../../../src/db/schema/index.js';
import { learnRate } from '../../../src/domain/branded/exchange-rates.js';
import type { View } from '../../../src/simulator/slack.js';
import { eventually, useAppPerTest } from '../../support/app.js';

const t = useAppPerTest({
  env: {
    KUDOS_NOTIFY_CHANNEL: 'C_KUDOS',
    KUDOS_APPROVAL_CHANNEL: 'C_APPROVALS',
    KUDOS_APPROVERS: 'U_APPROVER',
    KUDOS_APPROVAL_THRESHOLD: '100',
  },
});
const WS = { teamId: 'T0KUDOS', enterpriseId: null };
const USER = 'U_MANAGER';

type AnyBlock = {
  type: string;
  block_id?: string;
  text?: { text: string };
  hint?: { text: string };
  label?: { text: string };
  element?: { action_id?: string; options?: Array<{ text: { text: string }; value: string }> };
};
const blocksOf = (view: View) => view.blocks as AnyBlock[];
const blockWith = (view: View, actionId: string) => blocksOf(view).find((b) => b.element?.action_id === actionId);

function currentView(id: string): View | undefined {
  return t.stack.sim.openViews(USER).find((v) => v.id === id);
}

/** Waits for the form to be updated (its hash changed) and `ready` to hold of it. */
async function updated(view: View, ready: (v: View) => boolean = () => true): Promise<View> {
  return t.stack.sim.waitFor(() => {
    const now = currentView(view.id);
    return now && now.hash !== view.hash && ready(now) && now;
  });
}

async function openForm(): Promise<View> {
  await t.stack.sim.slashCommand(USER, '', 'C_GENERAL');
  const view = await t.stack.sim.waitFor(() => t.stack.sim.openViews(USER).find((v) => v.callback_id === 'kudos_send'));
  await t.stack.sim.clickButton({ viewId: view.id }, 'card_type', USER, 'brand');
  return updated(view, (v) => blockWith(v, 'brand') !== undefined);
}

/** The brand picker's options for `query` (and the category picked in the view's state). */
async function brandOptions(view: View, query: string) {
  const block = blockWith(view, 'brand')!;
  const answer = await t.stack.sim.loadOptions(view.id, 'brand', block.block_id!, query, USER);
  const body = answer.body as { option_groups?: Array<{ options: Array<{ text: { text: string }; value: string }> }> };
  return (body.option_groups ?? []).flatMap((g) => g.options);
}

async function pickBrand(view: View, productId: string): Promise<View> {
  await brandOptions(view, '');
  await t.stack.sim.clickButton({ viewId: view.id }, 'brand', USER, productId);
  return updated(view, (v) => blockWith(v, 'face_amount') !== undefined);
}

/** Sends the form with the brand picked: people, the brand's amount, a message. */
async function submit(view: View, face: string, users = ['U_EMP1']) {
  const faceBlock = blockWith(view, 'face_amount')!;
  const faceValue =
    faceBlock.element!.options !== undefined
      ? { type: 'static_select', selected_option: { text: { type: 'plain_text', text: face }, value: face } }
      : { type: 'plain_text_input', value: face };
  await t.stack.sim.submitView(
    view.id,
    {
      send_recipients: { recipients: { type: 'multi_users_select', selected_users: users } },
      [faceBlock.block_id!]: { face_amount: faceValue },
      send_message: { message: { type: 'plain_text_input', value: 'Thanks for the launch' } },
    },
    USER,
  );
  return {
    errors: t.stack.sim.viewErrors(view.id),
    faceBlock: faceBlock.block_id!,
    brandBlock: blockWith(view, 'brand')!.block_id!,
  };
}

const infoText = (view: View) => blocksOf(view).find((b) => b.block_id === 'send_brand_info')?.text?.text ?? '';

describe('brands and where people are', () => {
  it('the picker offers only brands every person picked can use; a brand for another country is an inline error', async () => {
    await t.db.insert(peopleCountries).values([
      { ...WS, slackUserId: 'U_EMP1', countryCode: 'GBR', source: 'csv' },
      { ...WS, slackUserId: 'U_EMP2', countryCode: 'DEU', source: 'csv' },
    ]);
    const view = await openForm();
    const picked = (users: string[]) => {
      view.state = {
        values: { send_recipients: { recipients: { type: 'multi_users_select', selected_users: users } } },
      };
    };
    picked(['U_EMP1']);
    const forEli = (await brandOptions(view, '')).map((o) => o.value);
    expect(forEli).toContain('BR-TESCO');
    expect(forEli).not.toContain('BR-ZALANDO');
    // GLOBAL and country-less brands suit everyone.
    expect(forEli).toEqual(expect.arrayContaining(['BR-AIRBNB', 'BR-NETFLIX']));
    picked(['U_EMP1', 'U_EMP2']);
    const forBoth = (await brandOptions(view, '')).map((o) => o.value);
    expect(forBoth).not.toContain('BR-TESCO');
    expect(forBoth).not.toContain('BR-ZALANDO');
    expect(forBoth).toEqual(expect.arrayContaining(['BR-AIRBNB', 'BR-NETFLIX']));

    // Picked before the second person was added: refused on Send, naming who cannot use it.
    const tesco = await pickBrand(view, 'BR-TESCO');
    const { errors, brandBlock } = await submit(tesco, '20', ['U_EMP1', 'U_EMP2']);
    expect(errors[brandBlock]).toMatch(/is for the United Kingdom; .* \(Germany\) cannot use it/);
    expect(await t.db.select().from(kudos)).toEqual([]);
  });
});

describe('branded cards in the send form', () => {
  it('"A brand" shows the brand picker, searched by name and category; a FIXED brand offers its denominations and its terms', async () => {
    const view = await openForm();
    expect(blockWith(view, 'design')).toBeUndefined();
    const tesco = await brandOptions(view, 'tes');
    expect(tesco.map((o) => [o.value, o.text.text])).toEqual([['BR-TESCO', 'Tesco · GBP · United Kingdom']]);
    expect((await brandOptions(view, 'airbnb'))[0]!.text.text).toBe('Airbnb · USD · all countries');
    expect((await brandOptions(view, 'netflix'))[0]!.text.text).toBe('Netflix · USD · any country');

    // The category offered are those of the catalog's brands; picking one narrows the search.
    const categories = blockWith(view, 'brand_category')!.element!.options!.map((o) => o.value);
    expect(categories).toEqual(expect.arrayContaining(['any', 'food', 'travel']));
    view.state = {
      values: {
        send_brand_category: {
          brand_category: {
            type: 'static_select',
            selected_option: { text: { type: 'plain_text', text: 'travel' }, value: 'travel' },
          },
        },
      },
    };
    expect((await brandOptions(view, '')).map((o) => o.value).sort()).toEqual(['BR-AIRBNB', 'BR-UBER']);

    const picked = await pickBrand(view, 'BR-TESCO');
    const face = blockWith(picked, 'face_amount')!;
    expect(face.label!.text).toBe('Amount per person (GBP)');
    expect(face.element!.options!.map((o) => o.text.text)).toEqual(['£10', '£20', '£50']);
    // No GBP order yet: the USD cost is known only after ordering, and the line says so.
    expect(infoText(picked)).toMatch(/has not yet learned what GBP cards cost in USD.*waits for approval/);

    await t.stack.sim.clickButton({ viewId: picked.id }, 'brand_terms', USER);
    const terms = await t.stack.sim.waitFor(() => t.stack.sim.openViews(USER).find((v) => v.id !== picked.id));
    const text = JSON.stringify(terms.blocks);
    expect(text).toContain('Tesco gift cards cannot be exchanged for cash');
    expect(text).toContain('Use in store or at tesco.com.');
  });

  it('a FIXED GBP brand is sent end to end: a branded order of £20, the face value kept, the rate learned', async () => {
    await learnRate(t.db, WS, {
      currency: 'GBP',
      faceCents: 1000,
      costCents: 1270,
      learnedAt: new Date(Date.now() - 86_400_000),
    });
    const view = await pickBrand(await openForm(), 'BR-TESCO');
    // Picking an amount shows it at the brand, with its USD estimate.
    await t.stack.sim.clickButton({ viewId: view.id }, 'face_amount', USER, '20.00');
    const priced = await updated(view, (v) => infoText(v).includes('£20 at Tesco'));
    expect(infoText(priced)).toContain('about $25.40 in USD, at the rate of your last GBP order (1 day ago)');

    const { errors } = await submit(priced, '20.00');
    expect(errors).toEqual({});
    const row = await eventually(async () => {
      const [r] = await t.db.select().from(kudos);
      return r?.orderId ? r : undefined;
    }, 30_000);
    expect(row).toMatchObject({
      cardType: 'BRANDED_CARD',
      faceCurrency: 'GBP',
      faceCents: 2000,
      productId: 'BR-TESCO',
    });
    const order = await t.stack.app.rewards.orders.get(row.orderId!);
    expect(order).toMatchObject({ cardType: 'BRANDED_CARD' });
    const rate = await eventually(async () => {
      const [r] = await t.db.select().from(learnedExchangeRates).where(eq(learnedExchangeRates.currency, 'GBP'));
      return r?.orderId === row.orderId ? r : undefined;
    });
    expect(rate).toMatchObject({ faceCents: 2000, costCents: 2540 });
  });

  it('amounts a brand does not offer are inline errors on the amount, and nothing is sent', async () => {
    const zalando = await pickBrand(await openForm(), 'BR-ZALANDO');
    const face = blockWith(zalando, 'face_amount')!;
    expect(face.label!.text).toBe('Amount per person (EUR)');
    expect(face.hint!.text).toContain('between €10 and €250, in steps of €0.50');

    const offStep = await submit(zalando, '10.25');
    expect(offStep.errors[offStep.faceBlock]).toBe(
      '€10.25 is not on the price step: pick €10 or €10.50 (between €10 and €250, in steps of €0.50).',
    );
    const above = await submit(zalando, '€300');
    expect(above.errors[above.faceBlock]).toMatch(/^€300 is above the maximum/);
    const below = await submit(zalando, '5');
    expect(below.errors[below.faceBlock]).toMatch(/^€5 is below the minimum/);

    const tesco = await pickBrand(currentView(zalando.id)!, 'BR-TESCO');
    const notOffered = await submit(tesco, '25');
    expect(notOffered.errors[notOffered.faceBlock]).toBe('£25 is not offered; pick £10, £20, or £50.');
    expect(await t.db.select().from(kudos)).toHaveLength(0);
  });

  it('a USD brand for all countries and one with no country are sent at their face value, no approval', async () => {
    const airbnb = await pickBrand(await openForm(), 'BR-AIRBNB');
    expect((await submit(airbnb, '$50')).errors).toEqual({});
    const netflix = await pickBrand(await openForm(), 'BR-NETFLIX');
    expect((await submit(netflix, '25.00', ['U_EMP2'])).errors).toEqual({});
    const rows = await eventually(async () => {
      const all = await t.db.select().from(kudos);
      return all.length === 2 && all.every((r) => r.orderId) && all;
    }, 30_000);
    expect(rows.map((r) => [r.productId, r.faceCurrency, r.faceCents, r.amountCents, r.usdBasis]).sort()).toEqual([
      ['BR-AIRBNB', 'USD', 5000, 5000, 'exact'],
      ['BR-NETFLIX', 'USD', 2500, 2500, 'exact'],
    ]);
  });

  it('a brand removed from the catalog while the form is open: an inline error on the brand, nothing sent', async () => {
    const view = await pickBrand(await openForm(), 'BR-TESCO');
    await t.emulator.removeBrand('BR-TESCO');
    const { errors, brandBlock } = await submit(view, '20.00');
    expect(errors[brandBlock]).toBe('That brand is no longer in the Rewards catalog; pick another, or a choice card.');
    expect(await t.db.select().from(kudos)).toHaveLength(0);
  });

  it('a GBP send under the threshold in pounds but over it in USD waits for approval', async () => {
    await learnRate(t.db, WS, { currency: 'GBP', faceCents: 1000, costCents: 1270, learnedAt: new Date() });
    const view = await pickBrand(await openForm(), 'BR-TESCO');
    // £50 each to two people: £100 face, not above the $100 threshold; about $127 in USD.
    expect((await submit(view, '50.00', ['U_EMP1', 'U_EMP2'])).errors).toEqual({});
    const row = await eventually(async () => (await t.db.select().from(kudos))[0]);
    expect(row).toMatchObject({ status: 'awaiting_approval', faceCents: 5000, usdBasis: 'learned' });
    expect(row.totalCents).toBeGreaterThan(10_000);
  });

  it('a send with no learned rate waits for approval, the approver told why in plain words', async () => {
    const view = await pickBrand(await openForm(), 'BR-TESCO');
    expect((await submit(view, '10.00')).errors).toEqual({});
    const row = await eventually(async () => (await t.db.select().from(kudos))[0]);
    expect(row).toMatchObject({ status: 'awaiting_approval', usdBasis: 'unknown' });
    const request = await t.stack.sim.waitFor(() =>
      t.stack.sim.messages('C_APPROVALS').find((m) => JSON.stringify(m.blocks ?? []).includes(row.id)),
    );
    expect(JSON.stringify(request.blocks)).toContain('has not yet learned what GBP cards cost in USD');
  });
});

describe('branded cards in one line', () => {
  const mine = () => t.stack.sim.messages('C_GENERAL').filter((m) => m.ephemeral && m.visible_to === USER);

  async function answer(text: string) {
    const before = mine().length;
    await t.stack.sim.slashCommand(USER, text, 'C_GENERAL');
    return t.stack.sim.waitFor(() => mine().slice(before)[0], 30_000);
  }

  it('`£20 at Tesco` confirms the brand in pounds with its USD estimate, and Send places it', async () => {
    await learnRate(t.db, WS, { currency: 'GBP', faceCents: 1000, costCents: 1270, learnedAt: new Date() });
    const shown = await answer('<@U_EMP1|eli> £20 at tesco for the launch');
    const text = JSON.stringify(shown.blocks);
    expect(text).toContain('Send a *£20* Tesco gift card to <@U_EMP1> (about $25.40)?');
    expect(text).toContain('for the launch');
    await t.stack.sim.clickButton({ channel: 'C_GENERAL', ts: shown.ts }, 'one_line_send', USER);
    const row = await eventually(async () => (await t.db.select().from(kudos))[0]);
    expect(row).toMatchObject({
      cardType: 'BRANDED_CARD',
      productId: 'BR-TESCO',
      faceCurrency: 'GBP',
      faceCents: 2000,
    });
    expect(row.message).toBe('for the launch');
    const outcome = await t.stack.sim.waitFor(() =>
      mine().find((m) => m.ts === shown.ts && m.text.startsWith(':white_check_mark: Sent')),
    );
    expect(outcome.text).toContain('a *£20* Tesco Gift Card');
  });

  it('`/kudos £20 at Tesco` naming nobody opens the form with the brand and its amount', async () => {
    await t.stack.sim.slashCommand(USER, '£20 at Tesco', 'C_GENERAL');
    const form = await t.stack.sim.waitFor(() =>
      t.stack.sim.openViews(USER).find((v) => v.callback_id === 'kudos_send'),
    );
    expect(JSON.stringify(blockWith(form, 'card_type'))).toContain(
      '"initial_option":{"text":{"type":"plain_text","text":"A brand"',
    );
    expect(JSON.stringify(blockWith(form, 'face_amount'))).toContain(
      '"initial_option":{"text":{"type":"plain_text","text":"£20"',
    );
  });

  it('Edit opens the form with the brand and its amount; an unknown brand or amount is one line', async () => {
    const shown = await answer('<@U_EMP1> 25 EUR at Zalando Danke');
    await t.stack.sim.clickButton({ channel: 'C_GENERAL', ts: shown.ts }, 'one_line_edit', USER);
    const form = await t.stack.sim.waitFor(() =>
      t.stack.sim.openViews(USER).find((v) => v.callback_id === 'kudos_send'),
    );
    expect(JSON.stringify(blockWith(form, 'brand'))).toContain('BR-ZALANDO');
    expect(JSON.stringify(blockWith(form, 'face_amount'))).toContain('"initial_value":"25 EUR"');

    expect((await answer('<@U_EMP1> £20 at Gift thanks')).text).toMatch(/^No brand is called “Gift”; did you mean /);
    expect((await answer('<@U_EMP1> £20 at Nowhere thanks')).text).toMatch(
      /^No brand called “Nowhere” is in the catalog/,
    );
    expect((await answer('<@U_EMP1> £25 at Tesco thanks')).text).toBe('£25 is not offered; pick £10, £20, or £50.');
    expect(await t.db.select().from(kudos)).toHaveLength(0);
  });
});
