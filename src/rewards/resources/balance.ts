// Balance, ledger and ACH top-ups (spec 4.8).
import { toApiNumber } from '../money.js';
import { balanceSchema, fundingSchema, ledgerRowSchema, topUpParamsSchema } from '../schemas.js';
import type { BalanceResource } from '../types.js';
import { listFor, parseParams, type ResourceContext, segment, sendFor } from './context.js';

export function balanceResource(ctx: ResourceContext): BalanceResource {
  return {
    get: async (options) =>
      sendFor(ctx, { method: 'GET', path: '/api/v1/balance', endpoint: '/api/v1/balance' }, balanceSchema, options),
    ledger: (query = {}, options) =>
      listFor(
        ctx,
        { path: '/api/v1/balance/ledger', endpoint: '/api/v1/balance/ledger' },
        ledgerRowSchema,
        { ...query },
        options,
      ),
    async topUp(params, options) {
      const parsed = parseParams(topUpParamsSchema, params, 'top-up parameters');
      return sendFor(
        ctx,
        {
          method: 'POST',
          path: '/api/v1/balance/charge',
          endpoint: '/api/v1/balance/charge',
          json: { ...parsed, amount: toApiNumber(parsed.amount) },
        },
        fundingSchema,
        options,
      );
    },
    cancelTopUp: async (fundingNo, options) =>
      sendFor(
        ctx,
        {
          method: 'DELETE',
          path: `/api/v1/balance/charge/${segment('fundingNo', fundingNo)}`,
          endpoint: '/api/v1/balance/charge/{fundingNo}',
        },
        fundingSchema,
        options,
      ),
  };
}
