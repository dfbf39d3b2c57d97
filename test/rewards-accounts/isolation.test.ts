// Two workspaces side by side on one database, each with its own Rewards account (real HTTP to the
// emulator, two organizations: separate apps, balances, orders, address books, webhook secrets).
// Workspace A (T0KUDOS) is the simulator's; workspace B (T0BETA) is reached by signed requests and
// its own rows. Nothing of one ever reaches the other: orders, balance, address book, webhooks
// signed with the other's secret, cancel of the other's scheduled send. Runs on PGlite and PostgreSQL.
import { randomUUID } from 'node:crypto';

import { formatInTimeZone } from 'date-fns-tz';
import { and, eq } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';

import { createLogger } from '../../src/config/logger.js';
import {
  kudos,
  type KudosRow,
  recipientMappings,
  rewardsConnections,
  webhookEvents,
} from '../../src/db/schema/index.js';
import type { RewardsConnection } from '../../src/domain/accounts/rewards-connections.js';
import { cancelScheduledSend } from '../../src/domain/sending/cancel-scheduled.js';
import { isRewardsError, signWebhookBody } from '../../src/rewards/index.js';
import { generateKey } from '../../src/secrets/key-ring.js';
import { commandFields, eventually, postSignedCommand, useAppPerTest } from '../support/app.js';
import { buildKudosRow } from '../support/kudos-row.js';

const A = { teamId: 'T0KUDOS', enterpriseId: null };
const B = { teamId: 'T0BETA', enterpriseId: null };
const BETA = {
  orgId: 'beta',
  productionClientId: 'beta-client',
  productionClientSecret: 'beta-secret',
  signingSecret: 'beta-signing-secret',
};

/** Every log line of every test, at debug level: no Rewards secret may ever be in one. */
const logLines: string[] = [];
const SECRETS = [
  'production-secret',
  'emulator-signing-secret',
  BETA.productionClientSecret,
  BETA.signingSecret,
  'not-the-secret',
];

const e2e = useAppPerTest({
  env: { KUDOS_ENCRYPTION_KEY: generateKey('k1'), KUDOS_ADMINS: 'U_ADMIN' },
  app: {
    tuning: { rewardsPerWorkspace: true },
    logger: createLogger({ level: 'debug', write: (line) => void logLines.push(line) }),
  },
});

afterAll(() => {
  expect(logLines.length).toBeGreaterThan(50);
  for (const secret of SECRETS) expect(logLines.filter((line) => line.includes(secret))).toEqual([]);
});

async function control(path: string, method: string, body?: unknown): Promise<unknown> {
  const res = await fetch(`${e2e.emulator.url}/_emulator${path}`, {
    method,
    headers: { 'Content-Type': 'application/json' },
    body: body === undefined ? null : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

/** Both workspaces connected: A with the seeded organization, B with an organization of its own. */
async function connectBoth(): Promise<{ a: RewardsConnection; b: RewardsConnection }> {
  await control('/orgs', 'POST', BETA);
  await control('/orgs/beta/balance', 'POST', { amount: 3000 });
  const store = e2e.stack.app.rewardsConnections!;
  const a = await store.save(
    A,
    { clientId: 'production-client', clientSecret: 'production-secret', webhookSecret: 'emulator-signing-secret' },
    'U_ADMIN',
  );
  const b = await store.save(
    B,
    { clientId: BETA.productionClientId, clientSecret: BETA.productionClientSecret, webhookSecret: BETA.signingSecret },
    'U_BETA_ADMIN',
  );
  return { a, b };
}

/** A pending send recorded for `ws` (what the send modal records), placed by the worker. */
async function recordSend(ws: { teamId: string }, amountCents: number, schedule?: Date): Promise<KudosRow> {
  const row = buildKudosRow({
    id: randomUUID(),
    idempotencyKey: randomUUID(),
    teamId: ws.teamId,
    amountCents,
    totalCents: amountCents,
    createdAt: new Date(),
    nextAttemptAt: new Date(),
    recipients: [{ slackUserId: 'U_EMP1', recipientId: null, email: 'eli@example.com', name: 'Eli' }],
    ...(schedule
      ? {
          scheduledAt: schedule,
          scheduleTimezone: 'UTC',
          scheduleLocal: formatInTimeZone(schedule, 'UTC', "yyyy-MM-dd'T'HH:mm:ssXXX"),
        }
      : {}),
  });
  await e2e.db.insert(kudos).values(row);
  e2e.stack.app.worker.wake();
  return eventually(
    async () => (await e2e.db.select().from(kudos).where(eq(kudos.id, row.id))).find((k) => k.orderId !== null),
    15_000,
  );
}

function postWebhook(path: string, body: Record<string, unknown>, secret: string) {
  const raw = JSON.stringify(body);
  return fetch(`${e2e.stack.app.url}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-Service-Signature': signWebhookBody(raw, secret) },
    body: raw,
  });
}

describe('a workspace connects its own Rewards account (App Home)', () => {
  it('until connected, /kudos tells an admin what to do and anyone else whom to ask', async () => {
    const admin = await postSignedCommand(e2e.stack.app.url, commandFields('U_ADMIN', 'balance'));
    expect(JSON.parse(admin.text)).toMatchObject({
      response_type: 'ephemeral',
      text: expect.stringContaining('Connect Rewards account'),
    });
    // `/kudos` opens the explanation where the send form would be (views.open, the workspace's token).
    const other = await e2e.stack.sim.slashCommand('U_EMP1', '');
    expect(other.status).toBe(200);
    const explained = await e2e.stack.sim.waitFor(() => e2e.stack.sim.openViews('U_EMP1').at(-1));
    expect(JSON.stringify(explained.blocks)).toContain('Ask <@U_ADMIN>');
    expect(JSON.stringify(explained.blocks)).not.toContain('send_kudos');
    await e2e.stack.sim.closeView(explained.id, 'U_EMP1');
    // Give kudos (a shortcut, Home's button) says the same instead of a form that cannot send.
    await e2e.stack.sim.globalShortcut('U_EMP1', 'give_kudos');
    const modal = await e2e.stack.sim.waitFor(() =>
      e2e.stack.sim.openViews('U_EMP1').find((v) => v.id !== explained.id),
    );
    expect(JSON.stringify(modal.blocks)).toContain('Ask <@U_ADMIN>');
    // Help needs no Rewards account.
    expect((await postSignedCommand(e2e.stack.app.url, commandFields('U_EMP1', 'help'))).text).not.toContain(
      'Connect Rewards account',
    );
  });

  it('checks the credentials at once: wrong ones are an inline error and nothing is stored; right ones are stored sealed and the webhook URL is shown', async () => {
    const sim = e2e.stack.sim;
    await sim.sendEvent({ type: 'app_home_opened', user: 'U_ADMIN', channel: 'D_U_ADMIN', tab: 'home' });
    const home = await sim.waitFor(() =>
      JSON.stringify(sim.homeView('U_ADMIN')?.blocks ?? []).includes('rewards_connect_open')
        ? sim.homeView('U_ADMIN')
        : undefined,
    );
    await sim.clickButton({ viewId: home.id }, 'rewards_connect_open', 'U_ADMIN');
    const modal = await sim.waitFor(() => sim.openViews('U_ADMIN').find((v) => v.callback_id === 'rewards_connect'));
    const values = (secret: string) => ({
      rewards_client_id: { value: { type: 'plain_text_input', value: 'production-client' } },
      rewards_client_secret: { value: { type: 'plain_text_input', value: secret } },
      rewards_webhook_secret: { value: { type: 'plain_text_input', value: 'emulator-signing-secret' } },
    });

    await sim.submitView(modal.id, values('not-the-secret'), 'U_ADMIN');
    expect(sim.viewErrors(modal.id).rewards_client_secret).toMatch(/refused this client ID and secret/);
    expect(await e2e.db.select().from(rewardsConnections)).toEqual([]);

    await sim.submitView(modal.id, values('production-secret'), 'U_ADMIN');
    const [row] = await e2e.db.select().from(rewardsConnections);
    expect(row).toMatchObject({
      teamId: 'T0KUDOS',
      clientId: 'production-client',
      status: 'active',
      connectedBy: 'U_ADMIN',
    });
    expect(row!.id).toMatch(/^rc_[A-Za-z0-9_-]{32}$/);
    // Sealed: no secret in clear in the row.
    expect(JSON.stringify(row)).not.toContain('production-secret');
    expect(JSON.stringify(row)).not.toContain('emulator-signing-secret');
    const shown = JSON.stringify(sim.openViews('U_ADMIN').at(-1)?.blocks ?? []);
    expect(shown).toContain(`${e2e.stack.app.url}/webhooks/rewards/${row!.id}`);
    // The workspace can send now: /kudos balance answers with the account's balance.
    const balance = await postSignedCommand(e2e.stack.app.url, commandFields('U_EMP1', 'balance'));
    expect(balance.text).toContain('$10,000');
  });
});

describe('two workspaces, two Rewards accounts, one database', () => {
  it('orders, balances and address books never cross', async () => {
    await connectBoth();
    const sentA = await recordSend(A, 2500);
    const sentB = await recordSend(B, 4000);
    const rewardsA = await e2e.stack.app.rewardsAccounts.for(A);
    const rewardsB = await e2e.stack.app.rewardsAccounts.for(B);
    expect(rewardsA).not.toBe(rewardsB);

    // Each order is in its workspace's account, and only there.
    expect((await rewardsA.orders.list({ pageSize: 100 })).data.map((o) => o.orderId)).toEqual([sentA.orderId]);
    expect((await rewardsB.orders.list({ pageSize: 100 })).data.map((o) => o.orderId)).toEqual([sentB.orderId]);
    await expect(rewardsB.orders.get(sentA.orderId!)).rejects.toSatisfy((e: unknown) => isRewardsError(e, 'NOT_FOUND'));
    await expect(rewardsA.orders.get(sentB.orderId!)).rejects.toSatisfy((e: unknown) => isRewardsError(e, 'NOT_FOUND'));

    // Each balance paid for its own workspace's send.
    expect((await rewardsA.balance.get()).availableBalance.amount).toBe('9975.00');
    expect((await rewardsB.balance.get()).availableBalance.amount).toBe('2960.00');

    // The same Slack user id in both workspaces: one address-book entry in each account.
    const [mapA] = await e2e.db.select().from(recipientMappings).where(eq(recipientMappings.teamId, A.teamId));
    const [mapB] = await e2e.db.select().from(recipientMappings).where(eq(recipientMappings.teamId, B.teamId));
    expect(mapA!.recipientId).not.toBe(mapB!.recipientId);
    expect((await rewardsA.recipients.get(mapA!.recipientId)).email).toBe('eli@example.com');
    await expect(rewardsA.recipients.get(mapB!.recipientId)).rejects.toSatisfy((e: unknown) =>
      isRewardsError(e, 'NOT_FOUND'),
    );
    await expect(rewardsB.recipients.get(mapA!.recipientId)).rejects.toSatisfy((e: unknown) =>
      isRewardsError(e, 'NOT_FOUND'),
    );
  });

  it("each workspace's webhook URL takes only its own secret; events are stored for that workspace and never touch the other's sends", async () => {
    const { a, b } = await connectBoth();
    const sentA = await recordSend(A, 2500);
    const event = (orderId: string) => ({
      eventId: randomUUID(),
      eventType: 'order.created',
      createdAt: '2026-11-25T10:00:00',
      data: { orderId, cardType: 'CHOICE_CARD', totalAmount: '25.00', currency: 'USD', recipientCount: 1 },
    });

    // Signed with the other workspace's secret: refused like the single route.
    const forged = await postWebhook(`/webhooks/rewards/${a.id}`, event(sentA.orderId!), BETA.signingSecret);
    expect(forged.status).toBe(401);
    expect(await forged.json()).toMatchObject({ error: { code: 'INVALID_SIGNATURE' } });
    // An unknown connection: 404 with a code.
    const unknown = await postWebhook('/webhooks/rewards/rc_nobody', event(sentA.orderId!), 'emulator-signing-secret');
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ error: { code: 'UNKNOWN_CONNECTION' } });

    // B's own secret on B's URL, naming A's order: stored for B, and B's account does not know it.
    const cross = event(sentA.orderId!);
    expect((await postWebhook(`/webhooks/rewards/${b.id}`, cross, BETA.signingSecret)).status).toBe(200);
    const stored = await eventually(async () =>
      (await e2e.db.select().from(webhookEvents).where(eq(webhookEvents.eventId, cross.eventId))).find(
        (r) => r.processedAt !== null,
      ),
    );
    expect(stored).toMatchObject({ teamId: B.teamId, connectionId: b.id, outcome: 'not_found' });
    // A's send is untouched by it.
    const [afterA] = await e2e.db.select().from(kudos).where(eq(kudos.id, sentA.id));
    expect(afterA).toMatchObject({ teamId: A.teamId, orderId: sentA.orderId });

    // The real thing: each organization delivers to its own workspace's URL, signed with its own secret.
    expect(
      await control('/orgs/beta/webhook', 'PUT', { url: `${e2e.stack.app.url}/webhooks/rewards/${b.id}` }),
    ).toMatchObject({ active: true });
    const sentB = await recordSend(B, 4000);
    const delivered = await eventually(
      async () =>
        (
          await e2e.db
            .select()
            .from(webhookEvents)
            .where(and(eq(webhookEvents.connectionId, b.id), eq(webhookEvents.eventType, 'order.created')))
        ).find((r) => (r.body.data as { orderId?: string }).orderId === sentB.orderId && r.processedAt !== null),
      15_000,
    );
    expect(delivered).toMatchObject({ teamId: B.teamId, outcome: 'kudos' });
    // The single-workspace route is not served with per-workspace accounts.
    expect((await postWebhook('/webhooks/rewards', event(sentB.orderId!), 'emulator-signing-secret')).status).toBe(404);
  });

  it("a workspace cannot cancel the other's scheduled send", async () => {
    await connectBoth();
    const at = new Date(Date.now() + 2 * 86_400_000);
    at.setUTCSeconds(0, 0);
    const sentA = await recordSend(A, 2500, at);
    expect(sentA.status).toBe('scheduled');
    const deps = { db: e2e.db, rewards: e2e.stack.app.rewardsAccounts, logger: e2e.stack.app.logger };

    const refused = await cancelScheduledSend(deps, {
      kudosId: sentA.id,
      teamId: B.teamId,
      actorUserId: 'U_BETA_ADMIN',
      actorIsAdmin: true,
      now: new Date(),
    });
    expect(refused).toMatchObject({ ok: false, code: 'not_found' });
    const rewardsA = await e2e.stack.app.rewardsAccounts.for(A);
    const statusBefore = (await rewardsA.orders.get(sentA.orderId!)).status;
    expect(statusBefore).not.toBe('CANCELED');
    // And B's account cannot cancel A's order either, even given its id.
    const rewardsB = await e2e.stack.app.rewardsAccounts.for(B);
    await expect(rewardsB.orders.cancel(sentA.orderId!)).rejects.toSatisfy((e: unknown) =>
      isRewardsError(e, 'NOT_FOUND'),
    );

    const cancelled = await cancelScheduledSend(deps, {
      kudosId: sentA.id,
      teamId: A.teamId,
      actorUserId: 'U_ADMIN',
      actorIsAdmin: true,
      now: new Date(),
    });
    expect(cancelled).toMatchObject({ ok: true });
    expect((await rewardsA.orders.get(sentA.orderId!)).status).toBe('CANCELED');
  });

  it('a reconnect with new credentials is used at once, and a disconnect stops the account being used', async () => {
    const { a } = await connectBoth();
    const before = await e2e.stack.app.rewardsAccounts.for(A);
    expect(await e2e.stack.app.rewardsSetup!.disconnect(A)).toBe(true);
    const [erased] = await e2e.db.select().from(rewardsConnections).where(eq(rewardsConnections.id, a.id));
    expect(erased).toMatchObject({ status: 'disconnected', clientSecret: null, webhookSecret: null });
    await expect(e2e.stack.app.rewardsAccounts.for(A)).rejects.toMatchObject({ code: 'REWARDS_NOT_CONNECTED' });
    expect(
      (await postWebhook(`/webhooks/rewards/${a.id}`, { challengeToken: 'x' }, 'emulator-signing-secret')).status,
    ).toBe(404);
    const again = await e2e.stack.app.rewardsConnections!.save(
      A,
      { clientId: 'production-client', clientSecret: 'production-secret', webhookSecret: 'emulator-signing-secret' },
      'U_ADMIN',
    );
    // The same webhook URL comes back.
    expect(again.id).toBe(a.id);
    const after = await e2e.stack.app.rewardsAccounts.for(A);
    expect(after).not.toBe(before);
    expect((await after.balance.get()).availableBalance.amount).toBe('10000.00');
  });

  it("connecting another Rewards account forgets the workspace's address-book mappings (their ids belong to the old account)", async () => {
    await connectBoth();
    await recordSend(A, 2500);
    expect(await e2e.db.select().from(recipientMappings).where(eq(recipientMappings.teamId, A.teamId))).toHaveLength(1);
    await control('/orgs', 'POST', {
      orgId: 'gamma',
      productionClientId: 'gamma-client',
      productionClientSecret: 'gamma-secret',
      signingSecret: 'gamma-signing-secret',
    });
    const outcome = await e2e.stack.app.rewardsSetup!.connect(
      A,
      { clientId: 'gamma-client', clientSecret: 'gamma-secret', webhookSecret: 'gamma-signing-secret' },
      'U_ADMIN',
    );
    expect(outcome).toMatchObject({ ok: true, replacedAccount: true });
    expect(await e2e.db.select().from(recipientMappings).where(eq(recipientMappings.teamId, A.teamId))).toEqual([]);
    expect(await e2e.db.select().from(recipientMappings).where(eq(recipientMappings.teamId, B.teamId))).toEqual([]);
    // The next send to the same person creates them in the new account.
    const sent = await recordSend(A, 1000);
    const gamma = await e2e.stack.app.rewardsAccounts.for(A);
    expect((await gamma.orders.get(sent.orderId!)).orderId).toBe(sent.orderId);
    const [mapping] = await e2e.db.select().from(recipientMappings).where(eq(recipientMappings.teamId, A.teamId));
    expect((await gamma.recipients.get(mapping!.recipientId)).email).toBe('eli@example.com');
  });
});
