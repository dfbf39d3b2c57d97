import type { EnvName } from './auth.js';
import type { BalanceLedger } from './balance-ledger.js';
import type { EnvState } from './model.js';

export const SEED_BALANCE_CENTS = 1_000_000;
export const SEED_LIMITS = { dailyCents: 500_000, monthlyCents: 5_000_000 };
export const DEFAULT_TEMPLATE_ID = 'TP-DEFAULT';

/** A fresh environment as docs/architecture/emulator.md seeds it. */
export function seedEnv(name: EnvName, nowMs: number, ledger: BalanceLedger): EnvState {
  const env: EnvState = {
    name,
    availableCents: 0,
    orders: new Map(),
    usedKeys: new Map(),
    campaigns: new Map(),
    templates: new Map(),
    recipients: new Map(),
    groups: new Map(),
    fundings: new Map(),
    ledger: [],
    limits: { ...SEED_LIMITS },
    limitRequests: [],
    testEmailsPerDay: new Map(),
  };
  env.templates.set(DEFAULT_TEMPLATE_ID, {
    templateId: DEFAULT_TEMPLATE_ID,
    name: 'Default',
    senderName: 'Kudos Rewards',
    message: 'Thank you for all you do!',
    imageAlignment: 'center',
    imageSize: 40,
    isDefault: true,
    createdAtMs: nowMs,
  });
  if (name === 'production') {
    // The opening balance is a processed funding, so the ledger sums to the balance.
    env.availableCents = SEED_BALANCE_CENTS;
    ledger.addRow(env, 'fundingProcessed', 'FD-OPENING', SEED_BALANCE_CENTS);
  } else {
    // Sandbox orders are never charged; the sandbox shows a fixed balance.
    env.availableCents = SEED_BALANCE_CENTS;
  }
  return env;
}
