import type { Context } from 'hono';
import { z } from 'zod';

import { ApiError } from '../errors.js';
import { readBody, validate } from '../http/body.js';
import { pageRequest, paginate } from '../http/pagination.js';
import { scoped } from '../http/scoped.js';
import type { EmulatorApp, EmulatorEnv } from '../http/types.js';
import { centsFromNumber, money } from '../money.js';
import { serializeFunding, serializeLedgerRow, TOP_UP_MIN_CENTS } from '../state/balance-ledger.js';
import type { EmulatorCore } from '../state/core.js';
import { parseDay, utcDay } from '../time.js';

const required = z.string().trim().min(1, 'is required').max(200);
const TopUpSchema = z.object({
  amount: z
    .number({ message: 'must be a number' })
    .finite()
    .refine((n) => centsFromNumber(n) !== undefined, 'at most two decimals')
    .refine((n) => (centsFromNumber(n) ?? 0) >= TOP_UP_MIN_CENTS, 'must be at least 100.00'),
  companyName: required,
  phoneNumber: required,
  billingAddress: required,
  city: required,
  state: required,
  country: z.string().regex(/^[A-Za-z]{2,3}$/, 'must be a country code'),
  zipCode: required,
  ein: required,
  companyWebsite: z.string().max(200).optional(),
});

/** ISO-8601 date, or a date-time whose UTC date is used. */
const LedgerDate = z.string().transform((s, ctx) => {
  const day =
    parseDay(s) ?? (/^\d{4}-\d{2}-\d{2}T/.test(s) && !Number.isNaN(Date.parse(s)) ? utcDay(Date.parse(s)) : undefined);
  if (!day) {
    ctx.addIssue({ code: 'custom', message: 'must be an ISO-8601 date' });
    return z.NEVER;
  }
  return day;
});
const LedgerQuery = z.object({ startDate: LedgerDate.optional(), endDate: LedgerDate.optional() });

/** Spec 4.8. */
export function registerBalanceRoutes(app: EmulatorApp, core: EmulatorCore): void {
  const envOf = (c: Context<EmulatorEnv>) => core.env(c.get('grant').env);
  const base = '/api/v1/balance';
  const productionOnly = (c: Context<EmulatorEnv>, what: string) => {
    if (c.get('grant').env !== 'production')
      throw new ApiError('PRODUCTION_ONLY', `${what} is available in production only`);
  };

  app.get(base, scoped('balance.read'), (c) => {
    const env = envOf(c);
    return c.json({
      data: { availableBalance: money(env.availableCents), pendingBalance: money(core.ledger.pendingCents(env)) },
    });
  });
  app.post(`${base}/charge`, scoped('balance.write'), async (c) => {
    productionOnly(c, 'Top-up');
    const { amount, ...company } = await readBody(c, core.config.bodyLimitBytes, TopUpSchema);
    const funding = core.ledger.topUp(
      envOf(c),
      centsFromNumber(amount)!,
      Object.fromEntries(Object.entries(company).filter((entry): entry is [string, string] => entry[1] !== undefined)),
    );
    return c.json({ data: serializeFunding(funding) }, 201);
  });
  app.delete(`${base}/charge/:fundingNo`, scoped('balance.write'), (c) => {
    productionOnly(c, 'Top-up cancel');
    const f = core.ledger.cancelTopUp(envOf(c), c.req.param('fundingNo'));
    const { fundingNo, amount, status, canceledAt } = serializeFunding(f);
    return c.json({ data: { fundingNo, amount, status, canceledAt } });
  });
  app.get(`${base}/ledger`, scoped('balance.read'), (c) => {
    const q = validate(LedgerQuery, c.req.query(), 'Query');
    return c.json(
      paginate(
        core.ledger.ledgerRows(envOf(c), q.startDate, q.endDate),
        pageRequest(c.req.query()),
        serializeLedgerRow,
      ),
    );
  });
}
