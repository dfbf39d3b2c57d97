/**
 * A Slack workspace, as every layer names it: its team id and, on Enterprise Grid, its org's id. In
 * distribution mode each workspace (or its Grid org) has its own installation and token, so every call
 * that reaches Slack or the database names the workspace it acts in. `teamId` empty: a workspace the
 * app cannot name (an order placed outside Slack), which only single-workspace mode can serve.
 */
export interface Workspace {
  teamId: string;
  enterpriseId?: string | null | undefined;
}

/** The workspace of a stored row (its team_id, enterprise_id). */
export function workspaceOfRow(row: {
  teamId: string | null | undefined;
  enterpriseId?: string | null | undefined;
}): Workspace {
  return { teamId: row.teamId ?? '', enterpriseId: row.enterpriseId ?? null };
}
