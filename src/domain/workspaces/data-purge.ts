// Deleting a workspace's data (docs/security.md "What uninstall deletes, and when"): after
// an uninstall the data stays KUDOS_RETENTION_DAYS (the audit trail: kudos history, who approved
// what), then the periodic purge deletes it; an admin can ask for it sooner from `/kudos settings`
// ("Delete our data"). Every table keyed by the workspace (a `team_id` column: src/db/schema/workspace.ts)
// is emptied of the workspace's rows, tables added later included. The installation row stays, without
// tokens, as the record that the data was deleted (purged_at).
import { and, eq, isNotNull, isNull, lte, sql } from 'drizzle-orm';

import type { Database } from '../../db/client.js';
import { rowsOf } from '../../db/client.js';
import { installations } from '../../db/schema/index.js';

/** The installation's own table keeps its row (no tokens by then), so the deletion is on record. */
const KEPT_TABLES = new Set(['installations', '__drizzle_migrations']);

export interface PurgeTarget {
  /** A workspace install: its team. */
  teamId?: string | null;
  /** An org-wide install: every workspace of the org but those with an installation of their own. */
  enterpriseId?: string | null;
}

/** Deletes every row of the workspace (or org) in every table keyed by workspace. Returns rows deleted. */
export async function purgeWorkspaceData(db: Database, target: PurgeTarget): Promise<number> {
  const tables = rowsOf<{ table: string; hasEnterprise: boolean }>(
    await db.execute(sql`
      select c.table_name as "table", bool_or(e.column_name is not null) as "hasEnterprise"
      from information_schema.columns c
      left join information_schema.columns e on e.table_schema = c.table_schema and e.table_name = c.table_name and e.column_name = 'enterprise_id'
      where c.table_schema = current_schema() and c.column_name = 'team_id'
      group by c.table_name`),
  ).filter((t) => !KEPT_TABLES.has(t.table));
  let deleted = 0;
  await db.transaction(async (tx) => {
    for (const { table, hasEnterprise } of tables) {
      const name = sql.identifier(table);
      let result;
      if (target.teamId) result = await tx.execute(sql`delete from ${name} where team_id = ${target.teamId}`);
      else if (target.enterpriseId && hasEnterprise)
        result = await tx.execute(
          sql`delete from ${name} where enterprise_id = ${target.enterpriseId} and team_id not in (select team_id from installations where team_id is not null and uninstalled_at is null)`,
        );
      else continue;
      deleted += affected(result);
    }
  });
  return deleted;
}

/**
 * The periodic purge: installations whose purge date has come (uninstalled KUDOS_RETENTION_DAYS ago, or
 * asked for by an admin) lose their workspace's data. A re-installed workspace is skipped (its dates were cleared).
 */
export async function purgeDueWorkspaces(
  db: Database,
  now: Date,
): Promise<Array<{ installationKey: string; rows: number }>> {
  const due = await db
    .select()
    .from(installations)
    .where(
      and(isNotNull(installations.purgeAfter), lte(installations.purgeAfter, now), isNull(installations.purgedAt)),
    );
  const done: Array<{ installationKey: string; rows: number }> = [];
  for (const row of due) {
    const rows = await purgeWorkspaceData(
      db,
      row.isEnterpriseInstall ? { enterpriseId: row.enterpriseId } : { teamId: row.teamId },
    );
    // updated_at by the database's clock, as every write of an installation (the change feed compares with it).
    await db
      .update(installations)
      .set({ purgedAt: now, updatedAt: sql`clock_timestamp()` })
      .where(eq(installations.installationKey, row.installationKey));
    done.push({ installationKey: row.installationKey, rows });
  }
  return done;
}

function affected(result: unknown): number {
  const r = result as { count?: number; affectedRows?: number; rowCount?: number } | undefined;
  return Number(r?.count ?? r?.affectedRows ?? r?.rowCount ?? 0);
}
