// The database connection cut of the chaos run: through a separate admin connection, terminate every
// server connection the app instances hold to the chaos database (postgres.js has to notice and
// reconnect). The instances are told apart from the harness's own connections by application_name,
// set in their DATABASE_URL.
import postgres from 'postgres';

/** application_name of the app instances' connections (a DATABASE_URL query parameter postgres.js passes on). */
export const APP_CONNECTION_NAME = 'kudos-chaos-app';

export function withApplicationName(databaseUrl: string, name = APP_CONNECTION_NAME): string {
  const url = new URL(databaseUrl);
  url.searchParams.set('application_name', name);
  return url.toString();
}

export interface DatabaseCut {
  /** Server connections of the app instances that were terminated. */
  terminated: number;
  /** What they were doing when cut (pg_stat_activity.state: active, idle, idle in transaction). */
  states: Record<string, number>;
}

export async function cutAppConnections(
  adminUrl: string,
  databaseName: string,
  name = APP_CONNECTION_NAME,
): Promise<DatabaseCut> {
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  try {
    const rows = await admin<Array<{ state: string | null; terminated: boolean }>>`
      SELECT state, pg_terminate_backend(pid) AS terminated
      FROM pg_stat_activity
      WHERE datname = ${databaseName} AND pid <> pg_backend_pid() AND application_name = ${name}`;
    const states: Record<string, number> = {};
    for (const r of rows) if (r.terminated) states[r.state ?? 'unknown'] = (states[r.state ?? 'unknown'] ?? 0) + 1;
    return { terminated: rows.filter((r) => r.terminated).length, states };
  } finally {
    await admin.end({ timeout: 5 });
  }
}

/** Server connections the app instances hold right now. */
export async function appConnectionCount(
  adminUrl: string,
  databaseName: string,
  name = APP_CONNECTION_NAME,
): Promise<number> {
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  try {
    const [row] = await admin<
      Array<{ n: number }>
    >`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = ${databaseName} AND application_name = ${name}`;
    return row?.n ?? 0;
  } finally {
    await admin.end({ timeout: 5 });
  }
}
