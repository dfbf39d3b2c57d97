// Each workspace's own Rewards account in distribution mode (the README's installation modes): stored sealed
// in rewards_connections (src/db/schema/rewards-connections.ts), one row per workspace, found by
// workspace (Slack requests, background work) or by connectionId (the workspace's webhook URL).
import { randomBytes } from 'node:crypto';

import { and, eq, sql } from 'drizzle-orm';

import type { Database } from '../../db/client.js';
import { prepared } from '../../db/prepared.js';
import {
  recipientCreations,
  recipientMappings,
  type RewardsConnectionRow,
  rewardsConnections,
  type RewardsConnectionStatus,
} from '../../db/schema/index.js';
import { rewardsConnectionContext } from '../../db/sealed-columns.js';
import { isRewardsError, RewardsAuthError, RewardsPermissionError } from '../../rewards/index.js';
import type { KeyRing } from '../../secrets/key-ring.js';
import { type Refused, refused } from '../common/refusal.js';
import { moveGuard, type StatusTransitions } from '../common/status-transitions.js';
import type { Workspace } from '../common/workspace.js';

/**
 * Every status a connection may be written with, from each status (common/status-transitions.ts):
 * saving credentials makes the row active (an active one gets the new credentials in place);
 * disconnecting erases the secrets and keeps the row.
 */
export const REWARDS_CONNECTION_STATUS_TRANSITIONS = {
  active: ['active', 'disconnected'],
  disconnected: ['active'],
} as const satisfies StatusTransitions<RewardsConnectionStatus>;

export interface RewardsCredentials {
  clientId: string;
  clientSecret: string;
  webhookSecret: string;
}

/** An active connection with its secrets opened (kept in memory only, never logged). */
export interface RewardsConnection extends RewardsCredentials {
  id: string;
  teamId: string;
  enterpriseId: string | null;
  connectedBy: string;
  connectedAt: Date;
  /** Changes whenever the credentials change: cached clients compare it. */
  version: string;
}

export interface RewardsConnectionStore {
  /** The workspace's active connection, or undefined. */
  get(ws: Workspace): Promise<RewardsConnection | undefined>;
  /** The workspace's active connection without its secrets (nothing is opened): what admins see. */
  describe(
    ws: Workspace,
  ): Promise<Pick<RewardsConnection, 'id' | 'clientId' | 'connectedBy' | 'connectedAt'> | undefined>;
  /** The active connection behind a webhook URL, or undefined (unknown id, or disconnected). */
  byId(connectionId: string): Promise<RewardsConnection | undefined>;
  /** `updated_at` of the workspace's active row (cheap freshness check for cached clients). */
  versionOf(ws: Workspace): Promise<string | undefined>;
  /** Stores (or replaces) the workspace's credentials, sealed; keeps the connectionId of an earlier connection. */
  save(ws: Workspace, credentials: RewardsCredentials, connectedBy: string): Promise<RewardsConnection>;
  /** Workspaces with an active connection. */
  listConnected(): Promise<Workspace[]>;
  /** Erases the secrets and marks the connection disconnected; its webhook URL then answers 404. */
  disconnect(ws: Workspace): Promise<boolean>;
}

/** `rc_` and 24 random bytes: unguessable, URL-safe. */
export function newConnectionId(): string {
  return `rc_${randomBytes(24).toString('base64url')}`;
}

export function createRewardsConnectionStore(deps: {
  db: Database;
  keyRing: KeyRing;
  now?: () => Date;
}): RewardsConnectionStore {
  const { db, keyRing } = deps;
  const now = deps.now ?? (() => new Date());
  const save = (ws: Workspace, credentials: RewardsCredentials, connectedBy: string) =>
    saveConnection(db, keyRing, { ws, credentials, connectedBy, at: now() });
  return {
    get: (ws) => connectionOf(db, keyRing, ws),
    describe: (ws) => describeConnection(db, ws),
    async byId(connectionId) {
      const [row] = await db.select().from(rewardsConnections).where(eq(rewardsConnections.id, connectionId)).limit(1);
      return row ? openConnection(keyRing, row) : undefined;
    },
    versionOf: (ws) => connectionVersion(db, ws),
    async save(ws, credentials, connectedBy) {
      // Two first connections of a workspace at once: the second insert meets the unique team_id and
      // is tried once more, now updating the row the first created (its id, so its sealing context).
      try {
        return await save(ws, credentials, connectedBy);
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
        return save(ws, credentials, connectedBy);
      }
    },
    async listConnected() {
      return db
        .select({ teamId: rewardsConnections.teamId, enterpriseId: rewardsConnections.enterpriseId })
        .from(rewardsConnections)
        .where(eq(rewardsConnections.status, 'active'));
    },
    async disconnect(ws) {
      const rows = await db
        .update(rewardsConnections)
        .set({ status: 'disconnected', clientSecret: null, webhookSecret: null, updatedAt: sql`clock_timestamp()` })
        .where(
          and(
            eq(rewardsConnections.teamId, ws.teamId),
            moveGuard(rewardsConnections.status, REWARDS_CONNECTION_STATUS_TRANSITIONS, 'disconnected', ['active']),
          ),
        )
        .returning({ id: rewardsConnections.id });
      return rows.length > 0;
    },
  };
}

/** An active row with its secrets opened; undefined for a disconnected one. */
function openConnection(keyRing: KeyRing, row: RewardsConnectionRow): RewardsConnection | undefined {
  if (row.status !== 'active' || row.clientSecret === null || row.webhookSecret === null) return undefined;
  return {
    id: row.id,
    teamId: row.teamId,
    enterpriseId: row.enterpriseId,
    clientId: row.clientId,
    clientSecret: keyRing.open(row.clientSecret, rewardsConnectionContext(row.id, 'client_secret')),
    webhookSecret: keyRing.open(row.webhookSecret, rewardsConnectionContext(row.id, 'webhook_secret')),
    connectedBy: row.connectedBy,
    connectedAt: row.connectedAt,
    version: row.updatedAt.toISOString(),
  };
}

async function connectionOf(db: Database, keyRing: KeyRing, ws: Workspace): Promise<RewardsConnection | undefined> {
  // Prepared once: asked on every request of a workspace without a cached client.
  const byTeam = prepared(db, 'rewardsConnections.get', (d) =>
    d
      .select()
      .from(rewardsConnections)
      .where(eq(rewardsConnections.teamId, sql.placeholder('teamId')))
      .limit(1)
      .prepare('rewards_connections_get'),
  );
  const [row] = await byTeam.execute({ teamId: ws.teamId });
  return row ? openConnection(keyRing, row) : undefined;
}

async function describeConnection(
  db: Database,
  ws: Workspace,
): Promise<Pick<RewardsConnection, 'id' | 'clientId' | 'connectedBy' | 'connectedAt'> | undefined> {
  const [row] = await db
    .select({
      id: rewardsConnections.id,
      clientId: rewardsConnections.clientId,
      connectedBy: rewardsConnections.connectedBy,
      connectedAt: rewardsConnections.connectedAt,
    })
    .from(rewardsConnections)
    .where(and(eq(rewardsConnections.teamId, ws.teamId), eq(rewardsConnections.status, 'active')))
    .limit(1);
  return row;
}

async function connectionVersion(db: Database, ws: Workspace): Promise<string | undefined> {
  // Prepared once: the connection status of a workspace not seen for a while (isConnected).
  const byTeam = prepared(db, 'rewardsConnections.versionOf', (d) =>
    d
      .select({ updatedAt: rewardsConnections.updatedAt })
      .from(rewardsConnections)
      .where(and(eq(rewardsConnections.teamId, sql.placeholder('teamId')), eq(rewardsConnections.status, 'active')))
      .limit(1)
      .prepare('rewards_connections_version_of'),
  );
  const [row] = await byTeam.execute({ teamId: ws.teamId });
  return row?.updatedAt.toISOString();
}

/** Stores the credentials sealed, in the workspace's row (its id kept) or a new one. */
function saveConnection(
  db: Database,
  keyRing: KeyRing,
  change: { ws: Workspace; credentials: RewardsCredentials; connectedBy: string; at: Date },
): Promise<RewardsConnection> {
  const { ws, credentials, connectedBy, at } = change;
  return db.transaction(async (tx) => {
    const [existing] = await tx
      .select({ id: rewardsConnections.id })
      .from(rewardsConnections)
      .where(eq(rewardsConnections.teamId, ws.teamId))
      .for('update')
      .limit(1);
    const id = existing?.id ?? newConnectionId();
    const sealed = {
      clientId: credentials.clientId,
      clientSecret: keyRing.seal(credentials.clientSecret, rewardsConnectionContext(id, 'client_secret')),
      webhookSecret: keyRing.seal(credentials.webhookSecret, rewardsConnectionContext(id, 'webhook_secret')),
      status: 'active' as const,
      connectedBy,
      connectedAt: at,
      // The database's clock: other instances' change feeds (change-feed.ts) compare with it.
      updatedAt: sql`clock_timestamp()`,
    };
    const [row] = existing
      ? await tx.update(rewardsConnections).set(sealed).where(eq(rewardsConnections.id, id)).returning()
      : await tx
          .insert(rewardsConnections)
          .values({ id, teamId: ws.teamId, enterpriseId: ws.enterpriseId ?? null, ...sealed })
          .returning();
    return openConnection(keyRing, row!)!;
  });
}

export type ConnectField = 'clientId' | 'clientSecret' | 'webhookSecret';

/** Credentials refused; `field` is always the input to fix, where the modal shows the message. */
interface ConnectRefused extends Refused<
  'malformed_credentials' | 'credentials_rejected' | 'insufficient_scope' | 'rewards_unreachable'
> {
  field: ConnectField;
}

export type ConnectOutcome = { ok: true; connection: RewardsConnection; replacedAccount: boolean } | ConnectRefused;

function refusedOn(field: ConnectField, code: ConnectRefused['code'], message: string): ConnectRefused {
  return { ...refused(code, message), field };
}

export interface ConnectDeps {
  db: Database;
  store: Pick<RewardsConnectionStore, 'get' | 'save'>;
  /** Drops the workspace's cached client, so the next call uses the new credentials. */
  evict(ws: Workspace): Promise<void>;
  /** Token and balance with these credentials against REWARDS_API_URL; throws the client's error. */
  verify(credentials: RewardsCredentials): Promise<void>;
}

/**
 * An admin's "Connect Rewards account": checked at once (a token and the balance), stored sealed
 * only when both worked; wrong credentials store nothing and say which field to fix. Connecting a
 * different Rewards account (another client id) forgets the workspace's address-book mappings: their
 * recipient ids belong to the old account.
 */
export async function connectRewardsAccount(
  deps: ConnectDeps,
  ws: Workspace,
  input: RewardsCredentials,
  connectedBy: string,
): Promise<ConnectOutcome> {
  const credentials = {
    clientId: input.clientId.trim(),
    clientSecret: input.clientSecret.trim(),
    webhookSecret: input.webhookSecret.trim(),
  };
  if (!/^[\x21-\x7e]{1,200}$/.test(credentials.clientId))
    return refusedOn('clientId', 'malformed_credentials', 'Paste the client ID from the Rewards portal (no spaces).');
  if (!/^[\x21-\x7e]{1,500}$/.test(credentials.clientSecret))
    return refusedOn(
      'clientSecret',
      'malformed_credentials',
      'Paste the client secret from the Rewards portal (no spaces).',
    );
  if (!/^[\x21-\x7e]{8,500}$/.test(credentials.webhookSecret))
    return refusedOn(
      'webhookSecret',
      'malformed_credentials',
      'Paste the webhook signing secret from the Rewards portal (at least 8 characters, no spaces).',
    );
  try {
    await deps.verify(credentials);
  } catch (error) {
    return verifyProblem(error);
  }
  const previous = await deps.store.get(ws);
  const connection = await deps.store.save(ws, credentials, connectedBy);
  const replacedAccount = previous !== undefined && previous.clientId !== credentials.clientId;
  if (replacedAccount) {
    await deps.db.delete(recipientMappings).where(eq(recipientMappings.teamId, ws.teamId));
    await deps.db.delete(recipientCreations).where(eq(recipientCreations.teamId, ws.teamId));
  }
  await deps.evict(ws);
  return { ok: true, connection, replacedAccount };
}

function verifyProblem(error: unknown): ConnectRefused {
  if (isRewardsError(error, 'INVALID_CLIENT') || error instanceof RewardsAuthError) {
    return refusedOn(
      'clientSecret',
      'credentials_rejected',
      'The Rewards API refused this client ID and secret. Copy both again from the Rewards portal. Nothing was saved.',
    );
  }
  if (error instanceof RewardsPermissionError) {
    return refusedOn(
      'clientId',
      'insufficient_scope',
      'These credentials may not read the balance (scope balance.read). Use an app that has every scope. Nothing was saved.',
    );
  }
  return refusedOn(
    'clientId',
    'rewards_unreachable',
    'The Rewards API could not be reached to check these credentials. Nothing was saved; try again in a minute.',
  );
}

/** What App Home and the connect modal need (distribution mode; undefined in single-workspace Rewards). */
export interface RewardsSetup {
  connect(ws: Workspace, credentials: RewardsCredentials, connectedBy: string): Promise<ConnectOutcome>;
  /** The workspace's connection as admins see it (never a secret), or undefined. */
  summary(
    ws: Workspace,
  ): Promise<{ clientId: string; connectedBy: string; connectedAt: Date; webhookUrl: string | undefined } | undefined>;
  isConnected(ws: Workspace): Promise<boolean>;
  /**
   * Erases the workspace's Rewards secrets and drops its client (uninstall: nothing of it may be used
   * again); its webhook URL then answers 404. True when there was a connection.
   */
  disconnect(ws: Workspace): Promise<boolean>;
}

/** POST /webhooks/rewards/{connectionId}, absolute; undefined while the app's public URL is unknown. */
export function connectionWebhookUrl(publicUrl: string | undefined, connectionId: string): string | undefined {
  return publicUrl
    ? `${publicUrl.replace(/\/+$/, '')}/webhooks/rewards/${encodeURIComponent(connectionId)}`
    : undefined;
}

export function createRewardsSetup(
  deps: ConnectDeps & {
    store: RewardsConnectionStore;
    isConnected(ws: Workspace): Promise<boolean>;
    publicUrl(): string | undefined;
  },
): RewardsSetup {
  return {
    connect: (ws, credentials, by) => connectRewardsAccount(deps, ws, credentials, by),
    async summary(ws) {
      const c = await deps.store.describe(ws);
      return c
        ? {
            clientId: c.clientId,
            connectedBy: c.connectedBy,
            connectedAt: c.connectedAt,
            webhookUrl: connectionWebhookUrl(deps.publicUrl(), c.id),
          }
        : undefined;
    },
    isConnected: (ws) => deps.isConnected(ws),
    async disconnect(ws) {
      const had = await deps.store.disconnect(ws);
      await deps.evict(ws);
      return had;
    },
  };
}

/** PostgreSQL's unique_violation (the SQLSTATE as `code`, on the error or its cause, with either driver). */
function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: unknown; cause?: { code?: unknown } } | null;
  return e?.code === '23505' || e?.cause?.code === '23505';
}
