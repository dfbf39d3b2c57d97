// The chaos run shared by test/chaos/chaos.test.ts (300 kudos, 20% faults) and `npm run chaos`
// (any size): N kudos through signed Slack requests, spread by a load balancer over two app
// instances (`src/main.ts` child processes) on one PostgreSQL database, while the Rewards emulator
// faults a share of the requests (429 with headers, 500, 503, dropped connections, 3 s delays) and
// one instance is SIGKILLed mid-run and started again. Then it checks what must hold whatever
// happened: one order per kudos, keys never shared, each announcement and completion notice posted
// once, the balance moved by exactly the total, nothing stuck.
import { eq } from 'drizzle-orm';
import { kudos, notifications } from '../../src/db/schema/index.js';
import { startEmulator } from '../../src/emulator/server.js';
import { startSlackSimulator, type View } from '../../src/simulator/slack.js';
import { benchUserId, benchWorkspace } from '../../bench/app-stack.js';
import { sendModalValues } from '../support/app.js';
import { createTestDatabase } from '../support/db.js';
import { appEnv, startAppProcess, type AppProcess } from './app-process.js';
import { startLoadBalancer } from './load-balancer.js';

export interface ChaosOptions {
  kudos: number;
  /** Share of Rewards API requests faulted, 0..1. */
  faults: number;
  seed?: number;
  /** Submissions in flight at once. */
  concurrency?: number;
  /** Give up waiting for everything to settle after this long. */
  settleTimeoutMs?: number;
  log?: (message: string) => void;
}

export interface ChaosResult {
  kudos: number;
  placed: number;
  failed: number;
  orders: number;
  distinctOrderKeys: number;
  keysSharedAcrossKudos: number;
  /** Announcements posted (one per sender in this run: each sender sends one kudos). */
  announcements: number;
  duplicateAnnouncements: number;
  /** Placed kudos without an announcement. */
  missingAnnouncements: number;
  completionNotices: number;
  duplicateCompletionNotices: number;
  missingCompletionNotices: number;
  balanceMovedCents: number;
  expectedBalanceMoveCents: number;
  stuck: Array<{ id: string; status: string }>;
  failedWithoutNotice: number;
  faultsInjected: Record<string, number>;
  rewardsRequestsSeen: number;
  userRetries: number;
  seconds: number;
}

const SIGNING_SECRET = 'chaos-signing-secret';
const CHANNEL = 'C_KUDOS';
const AMOUNT_CENTS = 500;

async function control(url: string, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${url}/_emulator${path}`, { method, headers: body === undefined ? {} : { 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const text = await res.text();
  if (!res.ok) throw new Error(`emulator ${method} ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

async function apiGet(url: string, path: string, token: string): Promise<any> {
  const res = await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${token}` } });
  if (!res.ok) throw new Error(`GET ${path}: ${res.status}`);
  return res.json();
}

async function token(url: string): Promise<string> {
  const res = await fetch(`${url}/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: 'production-client', client_secret: 'production-secret' }),
  });
  return ((await res.json()) as { access_token: string }).access_token;
}

function countBy(keys: Array<string | undefined>): Map<string, number> {
  const counts = new Map<string, number>();
  for (const key of keys) if (key) counts.set(key, (counts.get(key) ?? 0) + 1);
  return counts;
}
const sum = (counts: Map<string, number>) => [...counts.values()].reduce((a, b) => a + b, 0);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function runChaos(opts: ChaosOptions): Promise<ChaosResult> {
  if (!process.env.DATABASE_URL) throw new Error('the chaos run needs DATABASE_URL (two instances on one PostgreSQL)');
  const log = opts.log ?? (() => {});
  const n = opts.kudos;
  const started = performance.now();
  const db = await createTestDatabase();
  const emulator = await startEmulator({ port: 0, host: '127.0.0.1' });
  const apps: AppProcess[] = [];
  let sim: Awaited<ReturnType<typeof startSlackSimulator>> | undefined;
  let lb: Awaited<ReturnType<typeof startLoadBalancer>> | undefined;
  try {
    await control(emulator.url, 'POST', '/limits', { dailyLimitUsd: 10_000_000, monthlyLimitUsd: 100_000_000, environment: 'production' });
    await control(emulator.url, 'POST', '/balance', { amount: 1_000_000, environment: 'production' });
    const apiToken = await token(emulator.url);
    const balanceBefore = await apiGet(emulator.url, '/api/v1/balance', apiToken);

    sim = await startSlackSimulator({ signingSecret: SIGNING_SECRET, workspace: benchWorkspace(n) });
    const env = appEnv({
      emulatorUrl: emulator.url,
      slackApiUrl: sim.apiUrl,
      botToken: sim.botToken,
      signingSecret: SIGNING_SECRET,
      databaseUrl: db.url!,
      extra: { KUDOS_NOTIFY_CHANNEL: CHANNEL },
    });
    // The first instance migrates; the second starts on the migrated database.
    apps.push(await startAppProcess(env, { quietAfterStart: true }));
    apps.push(await startAppProcess(env, { quietAfterStart: true }));
    lb = await startLoadBalancer(apps.map((a) => a.url));
    sim.setAppUrl(lb.url);
    // Webhooks go through the load balancer too, as in production.
    await control(emulator.url, 'PUT', '/webhook', { url: `${lb.url}/webhooks/rewards` });

    await control(emulator.url, 'PUT', '/faults/random', { probability: opts.faults, ...(opts.seed !== undefined ? { seed: opts.seed } : {}) });
    log(`chaos: ${n} kudos, ${Math.round(opts.faults * 100)}% of Rewards API requests faulted, instances ${apps.map((a) => a.pid).join(', ')}`);

    let userRetries = 0;
    const theSim = sim;
    const openModal = async (sender: string): Promise<View> => {
      for (let attempt = 0; ; attempt++) {
        const previous = theSim.openViews(sender).at(-1)?.id;
        const answer = await theSim.slashCommand(sender, '', 'C_GENERAL').catch(() => ({ status: 0 }));
        if (answer.status === 200) {
          const view = await theSim
            .waitFor(() => {
              const top = theSim.openViews(sender).at(-1);
              return top && top.id !== previous ? top : undefined;
            }, 6000)
            .catch(() => undefined);
          if (view) return view;
        }
        if (attempt >= 20) throw new Error(`could not open the modal for ${sender}`);
        userRetries++;
        await sleep(300);
      }
    };
    const submit = async (i: number): Promise<void> => {
      const sender = benchUserId(i);
      const view = await openModal(sender);
      const values = sendModalValues({ users: [benchUserId((i + 1) % n)], design: 'CC-THANK-YOU', amount: String(AMOUNT_CENTS / 100) });
      for (let attempt = 0; ; attempt++) {
        // The user presses Send again until Slack closes the modal (a lost answer shows an error).
        if (!theSim.openViews(sender).some((v) => v.id === view.id)) return;
        const answer = await theSim.submitView(view.id, values, sender).catch(() => ({ status: 0 }));
        if (answer.status === 200 && !theSim.openViews(sender).some((v) => v.id === view.id)) return;
        if (attempt >= 20) throw new Error(`submission of ${sender} kept failing (${answer.status})`);
        userRetries++;
        await sleep(300);
      }
    };

    // Kill one instance a third of the way in, start it again shortly after.
    let submitted = 0;
    const killAt = Math.floor(n / 3);
    let killed: Promise<void> | undefined;
    const concurrency = opts.concurrency ?? 8;
    let next = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < n) {
          const i = next++;
          await submit(i);
          submitted++;
          if (submitted === killAt && !killed) {
            killed = (async () => {
              const victim = apps[0]!;
              log(`chaos: SIGKILL instance ${victim.pid} after ${submitted} submissions`);
              victim.kill('SIGKILL');
              await victim.exited;
              await sleep(1000);
              const restarted = await startAppProcess(env, { quietAfterStart: true });
              apps[0] = restarted;
              lb!.backends = apps.map((a) => a.url);
              log(`chaos: instance restarted as ${restarted.pid}`);
            })();
          }
        }
      }),
    );
    await killed;
    log(`chaos: all ${n} submissions accepted (${userRetries} user retries); waiting for orders and notices`);

    // Settle: every kudos placed or failed and told, every placed order's completion notice posted.
    // Faults stay on: the app has to get there through them.
    const deadline = Date.now() + (opts.settleTimeoutMs ?? 240_000);
    for (;;) {
      const rows = await db.db.select({ status: kudos.status, notifiedAt: kudos.notifiedAt }).from(kudos);
      const settled = rows.filter((r) => (r.status === 'placed' || r.status === 'failed') && r.notifiedAt).length;
      const completions = (await db.db.select({ id: notifications.id }).from(notifications).where(eq(notifications.kind, 'order.completed'))).length;
      const placed = rows.filter((r) => r.status === 'placed').length;
      if (rows.length === n && settled === n && completions >= placed) break;
      if (Date.now() > deadline) {
        log(`chaos: not settled after the timeout: ${settled}/${n} settled, ${completions}/${placed} completion notices`);
        break;
      }
      await sleep(500);
    }
    const faultState = await control(emulator.url, 'DELETE', '/faults/random');

    // What must hold.
    const rows = await db.db.select().from(kudos);
    const orders: Array<{ orderId: string; clientOrderId?: string; idempotencyKey?: string }> = [];
    for (let page = 1; ; page++) {
      const answer = await apiGet(emulator.url, `/api/v1/orders?page=${page}&pageSize=100`, apiToken);
      orders.push(...answer.data);
      if (answer.data.length < 100) break;
    }
    const keyOf = (o: { clientOrderId?: string; idempotencyKey?: string }) => o.clientOrderId ?? o.idempotencyKey ?? '';
    const kudosByKey = new Map(rows.map((r) => [r.idempotencyKey, r]));
    const orderKeys = orders.map(keyOf);
    const keysSharedAcrossKudos = orderKeys.length - new Set(orderKeys).size + orderKeys.filter((k) => !kudosByKey.has(k)).length;
    // Who an announcement is from (`<@U…> sent kudos`), which order a completion notice is about (`Order \`…\``).
    const posts = sim.calls.filter((c) => c.method === 'chat.postMessage' && c.ok && c.args.channel === CHANNEL).map((c) => JSON.stringify(c.args));
    const announcementsBySender = countBy(posts.map((p) => /<@(U_[A-Z0-9_]+)> sent kudos/.exec(p)?.[1]));
    const noticesByOrder = countBy(posts.filter((p) => p.includes('· complete')).map((p) => /Order `([^`]+)`/.exec(p)?.[1]));
    const balanceAfter = await apiGet(emulator.url, '/api/v1/balance', apiToken);
    const cents = (b: any) => Math.round(Number((b.availableBalance ?? b.data?.availableBalance).amount) * 100);
    const failedRows = rows.filter((r) => r.status === 'failed');
    const placedRows = rows.filter((r) => r.status === 'placed');
    return {
      kudos: rows.length,
      placed: placedRows.length,
      failed: failedRows.length,
      orders: orders.length,
      distinctOrderKeys: new Set(orderKeys).size,
      keysSharedAcrossKudos,
      announcements: sum(announcementsBySender),
      duplicateAnnouncements: sum(announcementsBySender) - announcementsBySender.size,
      missingAnnouncements: placedRows.filter((r) => !announcementsBySender.has(r.senderUserId)).length,
      completionNotices: sum(noticesByOrder),
      duplicateCompletionNotices: sum(noticesByOrder) - noticesByOrder.size,
      missingCompletionNotices: placedRows.filter((r) => !noticesByOrder.has(r.orderId ?? '')).length,
      balanceMovedCents: cents(balanceBefore) - cents(balanceAfter),
      expectedBalanceMoveCents: placedRows.reduce((sum, r) => sum + (r.costCents ?? r.totalCents), 0),
      stuck: rows.filter((r) => !((r.status === 'placed' || r.status === 'failed') && r.notifiedAt)).map((r) => ({ id: r.id, status: r.status })),
      failedWithoutNotice: failedRows.filter((r) => !r.notifiedAt || !r.errorMessage).length,
      faultsInjected: faultState.injected,
      rewardsRequestsSeen: faultState.seen,
      userRetries,
      seconds: Math.round((performance.now() - started) / 100) / 10,
    };
  } finally {
    for (const app of apps) {
      app.kill('SIGTERM');
      await app.exited;
    }
    await lb?.close();
    await sim?.close();
    await emulator.close();
    await db.close();
  }
}
