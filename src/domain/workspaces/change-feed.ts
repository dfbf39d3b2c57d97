// What other instances changed, for the per-workspace caches on the request path (the installation
// lookup, settings, the Rewards connection status): every couple of seconds one indexed query asks
// for the rows of `installations`, `workspace_settings` and `rewards_connections` changed since the
// last poll (their `updated_at`, written with the database's clock), and the caches drop those
// workspaces' entries. So an entry can live long (an hour) and another instance's change is still
// seen within a poll. The cursor is the database's own clock, read by the same query, minus an
// overlap: a transaction that wrote `updated_at` and committed a little later is still caught by the
// next poll (an entry evicted twice is only read again). While polls fail, `watching()` turns false
// after a few intervals and the caches go back to their short TTLs; the cursor stays where it was,
// so the first poll that succeeds again evicts everything changed meanwhile.
import { sql } from 'drizzle-orm';

import type { Database } from '../../db/client.js';
import { rowsOf } from '../../db/client.js';
import { createPeriodicJob } from '../../lib/periodic-job.js';

/** How often a poll runs. */
const POLL_INTERVAL_MS = 2000;
/** Rows changed this long before the previous poll's clock are asked for again (late commits). */
const OVERLAP_MS = 5000;

export interface ChangeWatch {
  /**
   * True while the polls succeed (the last one started within a few intervals): what another
   * instance changed reaches the caches within a poll, so they may keep entries long.
   */
  watching(): boolean;
}

export interface ChangeListeners {
  /** An installation's row changed (install, token refresh, uninstall, tokens_revoked, purge): its key. */
  installation?(installationKey: string): void;
  /** A workspace's settings changed. */
  settings?(teamId: string): void;
  /** A workspace's Rewards connection changed (connect, reconnect, disconnect). */
  connection?(teamId: string): void;
}

export interface ChangeFeed extends ChangeWatch {
  /** Where the changes go (set once, after the caches exist). */
  listen(listeners: ChangeListeners): void;
  /** One poll now (the timer calls it; tests too). Never throws: a failure is logged and retried. */
  poll(): Promise<void>;
  start(): void;
  /** Stops the timer and waits for a poll in flight. */
  stop(): Promise<void>;
}

export interface ChangeFeedOptions {
  db: Database;
  /** Single-workspace mode has no installations: that table is not asked. */
  installations: boolean;
  intervalMs?: number;
  overlapMs?: number;
  /** The feed counts as stopped when its last successful poll started longer ago (default: 4 intervals, at least 8 s). */
  staleAfterMs?: number;
  onError?(error: unknown): void;
  now?: () => number;
}

export function createChangeFeed(opts: ChangeFeedOptions): ChangeFeed {
  const intervalMs = opts.intervalMs ?? POLL_INTERVAL_MS;
  const overlapMs = opts.overlapMs ?? OVERLAP_MS;
  const staleAfterMs = opts.staleAfterMs ?? Math.max(4 * intervalMs, 8000);
  const clock = opts.now ?? Date.now;
  const createdAt = clock();
  let listeners: ChangeListeners = {};
  /** The database's clock at the last successful poll, as it answered it (ISO). */
  let cursor: string | undefined;
  /** Local clock when the last successful poll was sent. */
  let lastSuccessAt: number | undefined;
  let running: Promise<void> | undefined;
  let stopped = false;

  async function pollOnce(): Promise<void> {
    const sentAt = clock();
    // The first poll looks back to when this instance started (plus the overlap): anything cached
    // before it was read after that.
    const since = cursor
      ? sql`(${cursor}::timestamptz - ${overlapMs}::double precision * interval '1 millisecond')`
      : sql`(now() - ${sentAt - createdAt + overlapMs}::double precision * interval '1 millisecond')`;
    const installationsPart = opts.installations
      ? sql`(select coalesce(json_agg(installation_key), '[]'::json) from installations where updated_at > ${since})`
      : sql`'[]'::json`;
    const result = await opts.db.execute(sql`
      select to_json(now()) as now,
        ${installationsPart} as installations,
        (select coalesce(json_agg(team_id), '[]'::json) from workspace_settings where updated_at > ${since}) as settings,
        (select coalesce(json_agg(team_id), '[]'::json) from rewards_connections where updated_at > ${since}) as connections`);
    const [row] = rowsOf<{ now: unknown; installations: unknown; settings: unknown; connections: unknown }>(result);
    if (!row) throw new Error('the change feed query answered no row');
    for (const key of jsonList(row.installations)) listeners.installation?.(key);
    for (const teamId of jsonList(row.settings)) listeners.settings?.(teamId);
    for (const teamId of jsonList(row.connections)) listeners.connection?.(teamId);
    cursor = jsonValue(row.now);
    lastSuccessAt = sentAt;
  }

  const poll = (): Promise<void> => {
    running ??= pollOnce()
      .catch((error: unknown) => opts.onError?.(error))
      .finally(() => {
        running = undefined;
      });
    return running;
  };

  // poll() reports its own failures (opts.onError).
  const polls = createPeriodicJob({
    name: 'change feed poll',
    cadence: 'after-step',
    periodMs: intervalMs,
    firstDelayMs: 0,
    step: poll,
  });

  return {
    watching: () => lastSuccessAt !== undefined && clock() - lastSuccessAt < staleAfterMs,
    listen(l) {
      listeners = l;
    },
    poll,
    start() {
      if (!stopped) polls.start();
    },
    async stop() {
      stopped = true;
      await polls.stop();
      await running;
    },
  };
}

/** A json column: postgres.js parses it, PGlite too; a string is parsed in case a driver did not. */
function jsonValue(value: unknown): string {
  const parsed = typeof value === 'string' && value.startsWith('"') ? (JSON.parse(value) as unknown) : value;
  return String(parsed);
}

function jsonList(value: unknown): string[] {
  const parsed = typeof value === 'string' ? (JSON.parse(value) as unknown) : value;
  return Array.isArray(parsed) ? parsed.filter((v): v is string => typeof v === 'string') : [];
}
