// Celebrations set up as an admin would: the birthday rule and a CSV of dates, for the workspace
// of the end-to-end stack (T0KUDOS).
import type { Database } from '../../src/db/client.js';
import type { CelebrationRuleInput } from '../../src/domain/automations/automation-runner.js';
import { importCelebrationDates, parseCelebrationCsv } from '../../src/domain/automations/celebration-csv.js';
import type { TestStack } from './app.js';

export const CELEBRATING_WORKSPACE = { teamId: 'T0KUDOS', enterpriseId: null };

/** $25 Birthday cards from U_ADMIN, announced in #kudos. */
export const BIRTHDAY_RULE: CelebrationRuleInput = {
  enabled: true,
  amountCents: 2500,
  productId: 'CC-BIRTHDAY',
  messageTemplate: 'Happy birthday, {name}!',
  senderUserId: 'U_ADMIN',
  channelId: 'C_KUDOS',
  profileFieldId: null,
};

/** Imports a dates CSV (`email,birthday,start_date`) as uploaded on 2026-11-25, matched to the simulator's people. */
export async function importDatesCsv(env: { db: Database; stack: TestStack }, text: string) {
  const parsed = parseCelebrationCsv(text, '2026-11-25');
  if (!parsed.ok) throw new Error(parsed.message);
  return importCelebrationDates(
    { db: env.db, listUsers: async () => env.stack.sim.workspace.users },
    CELEBRATING_WORKSPACE,
    parsed,
  );
}
