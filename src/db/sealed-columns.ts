// Every column that holds a secret sealed with the KUDOS_ENCRYPTION_KEY key ring (src/secrets/key-ring.ts),
// and the context each value is sealed under. `npm run keys:rotate` (src/db/rotate-keys.ts) re-seals
// exactly these; the stores seal and open with the same `context` functions, so the two cannot drift.
// A table with a sealed column adds one entry here (its key: one text column, primary or unique).
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';

import { financeState, installations, rewardsConnections, topUpRequests, workflowStepRuns } from './schema/index.js';

export interface SealedColumn {
  /** `table.column`, for the rotation report. */
  name: string;
  table: PgTable;
  /** What names the row: one text column, its primary key or a unique one (finance_state.team_id). */
  key: PgColumn;
  column: PgColumn;
  /** The additional data the value is sealed under: binds the row and the field. */
  context(key: string): string;
}

export const rewardsConnectionContext = (connectionId: string, field: 'client_secret' | 'webhook_secret') =>
  `rewards_connections:${connectionId}:${field}`;

/** The context src/slack/install/installation-store.ts seals an installation's tokens under (the same formula). */
export const installationTokenContext = (
  installationKey: string,
  role: 'bot' | 'bot-refresh' | 'user' | 'user-refresh',
) => `installation:${installationKey}:${role}`;

const installationToken = (
  column: 'botToken' | 'botRefreshToken' | 'userToken' | 'userRefreshToken',
  role: Parameters<typeof installationTokenContext>[1],
  name: string,
): SealedColumn => ({
  name: `installations.${name}`,
  table: installations,
  key: installations.installationKey,
  column: installations[column],
  context: (key) => installationTokenContext(key, role),
});

/** The context a waiting workflow step's token is sealed under (src/domain/automations/workflow-steps.ts). */
export const workflowStepTokenContext = (functionExecutionId: string) =>
  `workflow_step_runs:${functionExecutionId}:token`;

/** The context a workspace's remembered top-up billing details are sealed under (src/domain/finance/billing-details.ts). */
export const billingDetailsContext = (teamId: string) => `finance_state:${teamId}:billing_details`;

/** The context a top-up request's billing details are sealed under (src/domain/finance/top-ups.ts): binds the request. */
export const topUpBillingContext = (topUpId: string) => `top_up_requests:${topUpId}:billing`;

export const SEALED_COLUMNS: readonly SealedColumn[] = [
  installationToken('botToken', 'bot', 'bot_token'),
  installationToken('botRefreshToken', 'bot-refresh', 'bot_refresh_token'),
  installationToken('userToken', 'user', 'user_token'),
  installationToken('userRefreshToken', 'user-refresh', 'user_refresh_token'),
  {
    name: 'rewards_connections.client_secret',
    table: rewardsConnections,
    key: rewardsConnections.id,
    column: rewardsConnections.clientSecret,
    context: (id) => rewardsConnectionContext(id, 'client_secret'),
  },
  {
    name: 'rewards_connections.webhook_secret',
    table: rewardsConnections,
    key: rewardsConnections.id,
    column: rewardsConnections.webhookSecret,
    context: (id) => rewardsConnectionContext(id, 'webhook_secret'),
  },
  {
    name: 'workflow_step_runs.token',
    table: workflowStepRuns,
    key: workflowStepRuns.functionExecutionId,
    column: workflowStepRuns.token,
    context: workflowStepTokenContext,
  },
  {
    name: 'finance_state.billing_details',
    table: financeState,
    key: financeState.teamId,
    column: financeState.billingDetails,
    context: billingDetailsContext,
  },
  {
    name: 'top_up_requests.billing_sealed',
    table: topUpRequests,
    key: topUpRequests.id,
    column: topUpRequests.billingSealed,
    context: topUpBillingContext,
  },
];
