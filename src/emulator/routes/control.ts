import { z } from 'zod';

import { fail } from '../errors.js';
import { readBody, readJson, validate } from '../http/body.js';
import type { EmulatorApp } from '../http/types.js';
import { centsFromNumber, RATE_SCALE } from '../money.js';
import { MOVEMENT_KINDS, serializeFunding, serializeLedgerRow } from '../state/balance-ledger.js';
import type { EmulatorCore } from '../state/core.js';
import { FaultRuleSchema } from '../state/faults.js';
import { randomFaultsOf, RandomFaultsSchema } from '../state/random-faults.js';
import { EVENT_TYPES } from '../state/webhooks.js';
import { isoUtc } from '../time.js';

const Advance = z.object({
  seconds: z
    .number()
    .finite()
    .min(0)
    .max(10 * 365 * 24 * 3600),
});
const Registration = z.object({
  url: z.url({ protocol: /^https?$/ }),
  events: z.array(z.enum(EVENT_TYPES)).optional(),
});
const EnvField = z.enum(['sandbox', 'production']).default('production');
const Money = z.number().refine((n) => centsFromNumber(n) !== undefined, 'at most two decimals');
const SetBalance = z.object({ environment: EnvField, amount: Money.refine((n) => n >= 0, 'must be >= 0') });
const SetLimits = z.object({
  environment: EnvField,
  dailyLimitUsd: Money.refine((n) => n > 0),
  monthlyLimitUsd: Money.refine((n) => n > 0),
});
const AddMovement = z.object({
  environment: EnvField,
  kind: z.enum(MOVEMENT_KINDS),
  amount: Money.refine((n) => n > 0, 'must be > 0'),
  referenceNumber: z.string().min(1).max(64).optional(),
});
const SetExchangeRate = z.object({
  currency: z
    .string()
    .regex(/^[A-Z]{3}$/, 'an ISO 4217 code, e.g. GBP')
    .refine((c) => c !== 'USD', 'USD is always 1'),
  usdPerUnit: z
    .number()
    .positive()
    .max(1_000_000)
    .refine(
      (n) =>
        Number.isSafeInteger(Math.round(n * RATE_SCALE)) &&
        Math.abs(n * RATE_SCALE - Math.round(n * RATE_SCALE)) < 1e-6,
      'at most six decimals',
    ),
});
const ProcessTopUp = z.object({ outcome: z.enum(['approve', 'reject']) });

/** Control routes of docs/architecture/emulator.md (no auth, never faulted), plus a few documented extras. */
export function registerControlRoutes(app: EmulatorApp, core: EmulatorCore): void {
  const limit = core.config.bodyLimitBytes;
  const now = () => ({ now: isoUtc(core.clock.nowMs()) });

  app.post('/_emulator/reset', async (c) => {
    await core.jobs.idle();
    core.reset();
    randomFaultsOf(core).clear();
    return c.json({ ok: true, ...now() });
  });
  app.get('/_emulator/clock', (c) => c.json(now()));
  app.post('/_emulator/clock/advance', async (c) => {
    const { seconds } = await readBody(c, limit, Advance);
    await core.jobs.advanceBy(seconds);
    return c.json(now());
  });
  app.put('/_emulator/webhook', async (c) => {
    const body = await readBody(c, limit, Registration);
    return c.json(await core.webhooks.register(body.url, body.events));
  });
  app.get('/_emulator/webhook', (c) => c.json({ webhook: core.webhooks.current() }));
  app.get('/_emulator/webhook/deliveries', (c) => c.json({ deliveries: core.webhooks.deliveries() }));
  app.get('/_emulator/emails', (c) => c.json({ emails: core.outbox.list() }));
  app.post('/_emulator/faults', async (c) => {
    const rule = validate(FaultRuleSchema, await readJson(c, limit));
    core.faults.add(rule);
    return c.json({ faults: core.faults.list() }, 201);
  });
  app.get('/_emulator/faults', (c) => c.json({ faults: core.faults.list(), held: core.faults.held() }));
  // Probabilistic faults for chaos runs (state/random-faults.ts).
  app.put('/_emulator/faults/random', async (c) => {
    const config = validate(RandomFaultsSchema, await readJson(c, limit));
    randomFaultsOf(core).set(config);
    return c.json(randomFaultsOf(core).state());
  });
  app.get('/_emulator/faults/random', (c) => c.json(randomFaultsOf(core).state()));
  app.delete('/_emulator/faults/random', (c) => {
    const state = randomFaultsOf(core).state();
    randomFaultsOf(core).clear();
    return c.json(state);
  });
  app.delete('/_emulator/faults', (c) => {
    core.faults.clear();
    return c.json({ faults: [] });
  });
  app.get('/_emulator/jobs', (c) =>
    c.json({ jobs: core.jobs.pending().map((j) => ({ label: j.label, dueAt: isoUtc(j.dueAt) })) }),
  );

  // Extras (documented): operator-side actions the spec leaves to the portal.
  app.post('/_emulator/balance', async (c) => {
    const body = await readBody(c, limit, SetBalance);
    core.env(body.environment).availableCents = centsFromNumber(body.amount)!;
    return c.json({ environment: body.environment, availableBalance: { amount: body.amount, currency: 'USD' } });
  });
  app.post('/_emulator/limits', async (c) => {
    const body = await readBody(c, limit, SetLimits);
    core.env(body.environment).limits = {
      dailyCents: centsFromNumber(body.dailyLimitUsd)!,
      monthlyCents: centsFromNumber(body.monthlyLimitUsd)!,
    };
    return c.json({
      environment: body.environment,
      dailyLimitUsd: body.dailyLimitUsd,
      monthlyLimitUsd: body.monthlyLimitUsd,
    });
  });
  app.post('/_emulator/ledger', async (c) => {
    const body = await readBody(c, limit, AddMovement);
    const row = core.ledger.movement(
      core.env(body.environment),
      body.kind,
      centsFromNumber(body.amount)!,
      body.referenceNumber,
    );
    return c.json({ data: serializeLedgerRow(row) }, 201);
  });
  // The current exchange rates (state/exchange-rates.ts): what branded orders and links are charged at.
  app.get('/_emulator/exchange-rates', (c) => c.json({ rates: core.exchangeRates.list() }));
  app.put('/_emulator/exchange-rates', async (c) => {
    const body = await readBody(c, limit, SetExchangeRate);
    core.exchangeRates.set(body.currency, Math.round(body.usdPerUnit * RATE_SCALE));
    return c.json({ currency: body.currency, usdPerUnit: body.usdPerUnit });
  });
  app.delete('/_emulator/catalog/choice-cards/:productId', (c) => {
    if (!core.catalog.removeChoice(c.req.param('productId')))
      throw fail.notFound(`Choice product ${c.req.param('productId')}`);
    return c.body(null, 204);
  });
  app.delete('/_emulator/catalog/branded-cards/:productId', (c) => {
    if (!core.catalog.removeBranded(c.req.param('productId')))
      throw fail.notFound(`Branded product ${c.req.param('productId')}`);
    return c.body(null, 204);
  });
  // Extra: the production top-ups (funding requests), newest first, so a demo can find the pending one.
  app.get('/_emulator/fundings', (c) =>
    c.json({
      fundings: [...core.env('production').fundings.values()].reverse().map((f) => serializeFunding(f)),
    }),
  );
  app.post('/_emulator/fundings/:fundingNo/process', async (c) => {
    const body = await readBody(c, limit, ProcessTopUp);
    const env = core.env('production');
    if (!env.fundings.has(c.req.param('fundingNo'))) throw fail.notFound(`Funding request ${c.req.param('fundingNo')}`);
    const funding = core.ledger.processTopUp(env, c.req.param('fundingNo'), body.outcome);
    core.webhooks.emit(body.outcome === 'approve' ? 'balance.ach_approved' : 'balance.ach_rejected', {
      fundingNo: funding.fundingNo,
      amount: (funding.amountCents / 100).toFixed(2),
      currency: 'USD',
    });
    return c.json({ data: serializeFunding(funding) });
  });
}
