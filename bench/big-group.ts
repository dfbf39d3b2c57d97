// A kudos to a 1,000-member user group end to end, in process: the app (src/app.ts) on a
// fresh database, the Rewards emulator at its default rate limit (1,000 requests per 10 s) behind a
// recording proxy, the Slack simulator with the group seeded. Submitted through the send modal
// (signed requests), placed, every order brought to COMPLETE with the emulator's clock, every
// completion told. Figures: wall time, Rewards requests, Slack calls by method, Slack 429s (the
// simulator's answers), DMs and announcements, card e-mails. Baseline in the same run: the same
// 1,000 people as ten 100-member groups, ten sends. `--quick`: 300 people (three groups of 100).
import { count, isNull } from 'drizzle-orm';

import { startApp } from '../src/app.js';
import { loadConfig } from '../src/config/index.js';
import { createLogger } from '../src/config/logger.js';
import { connectDatabase, type DatabaseConnection } from '../src/db/client.js';
import { migrateDatabase } from '../src/db/migrate.js';
import { kudos, orderChecks } from '../src/db/schema/index.js';
import { createScratchDatabase } from '../src/db/scratch.js';
import { startEmulator } from '../src/emulator/server.js';
import { startSlackSimulator } from '../src/simulator/slack.js';
import { benchUserId, benchWorkspace } from './app-stack.js';
import type { BenchRow } from './report.js';
import { startRewardsProxy } from './rewards-proxy.js';

const SECTION = 'big group';
const PEOPLE = process.argv.includes('--quick') ? 300 : 1000;
const TIME_LIMIT_MS = 240_000;

interface RunResult {
  seconds: number;
  rewardsRequests: number;
  orders: number;
  slackCalls: Map<string, number>;
  slack429s: number;
  dms: number;
  announcements: number;
  completions: number;
  cardEmails: number;
  finished: boolean;
  /** Presses of Send, and answers "Slack is busy ... Press Send again in N s" among them. */
  presses: number;
  busy: number;
  /** Sends recorded (each group's modal accepted). */
  recorded: number;
}

async function openDatabase(): Promise<{ conn: DatabaseConnection; drop(): Promise<void> }> {
  if (process.env.DATABASE_URL) {
    const scratch = await createScratchDatabase(process.env.DATABASE_URL, 'kudos_bench_biggroup');
    const conn = await connectDatabase({ databaseUrl: scratch.url, maxConnections: 20 });
    await migrateDatabase(conn);
    return { conn, drop: () => scratch.drop() };
  }
  const conn = await connectDatabase({ pgliteDir: 'memory://' });
  await migrateDatabase(conn);
  return { conn, drop: async () => undefined };
}

async function until(probe: () => Promise<boolean>, deadline: number): Promise<boolean> {
  while (Date.now() < deadline) {
    if (await probe()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}

/** One run: the PEOPLE split into `groups` user groups, one send each (one group: one big send). */
async function run(groups: number): Promise<RunResult> {
  const opened = await openDatabase();
  const db = opened.conn.db;
  const emulator = await startEmulator({ port: 0, host: '127.0.0.1', env: {} });
  const control = (path: string, body: unknown) =>
    fetch(`${emulator.url}/_emulator${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  // $5 x 1,000 is the emulator's whole daily limit: room for both runs' sends.
  await control('/limits', { dailyLimitUsd: 1_000_000, monthlyLimitUsd: 10_000_000, environment: 'production' });
  await control('/balance', { amount: 1_000_000, environment: 'production' });
  const proxy = await startRewardsProxy(emulator.url);
  const workspace = benchWorkspace(PEOPLE);
  const size = PEOPLE / groups;
  for (let g = 0; g < groups; g++) {
    workspace.usergroups.push({
      id: `S_BENCH${g}`,
      handle: `bench-${g}`,
      name: `Bench ${g}`,
      users: Array.from({ length: size }, (_, i) => benchUserId(g * size + i)),
    });
  }
  const sim = await startSlackSimulator({ signingSecret: 'bench', workspace, emulatorUrl: emulator.url });
  const config = loadConfig({
    SLACK_SIGNING_SECRET: 'bench',
    SLACK_BOT_TOKEN: sim.botToken,
    SLACK_API_URL: sim.apiUrl,
    REWARDS_API_URL: proxy.url,
    REWARDS_CLIENT_ID: 'production-client',
    REWARDS_CLIENT_SECRET: 'production-secret',
    REWARDS_WEBHOOK_SECRET: 'emulator-signing-secret',
    REWARDS_WEBHOOKS: 'off',
    KUDOS_NOTIFY_CHANNEL: 'C_KUDOS',
    KUDOS_APPROVAL_THRESHOLD: '10000000',
  });
  const app = await startApp({
    config,
    port: 0,
    metricsPort: 0,
    host: '127.0.0.1',
    db,
    logger: createLogger({ level: 'silent' }),
    tuning: { worker: { pollIntervalMs: 100 }, webhooks: { pollIntervalMs: 200 } },
  });
  sim.setAppUrl(app.url);
  const deadline = Date.now() + TIME_LIMIT_MS;
  let presses = 0;
  let busy = 0;
  try {
    const started = Date.now();
    for (let g = 0; g < groups; g++) {
      // A modal that does not open (its trigger expired on a loaded machine) is asked for again, as a
      // person would; one that never opens is a send not recorded, counted below.
      let view;
      for (let open = 0; open < 3 && !view; open++) {
        await sim.slashCommand('U_MANAGER', '', 'C_GENERAL');
        view = await sim
          .waitFor(() => sim.openViews('U_MANAGER').find((v) => v.callback_id === 'kudos_send'), 15_000)
          .catch(() => undefined);
      }
      if (!view) continue;
      const values = {
        send_recipients: { recipients: { type: 'multi_users_select', selected_users: [] } },
        send_group: {
          group: {
            type: 'external_select',
            selected_option: { text: { type: 'plain_text', text: `@bench-${g}` }, value: `slack:S_BENCH${g}` },
          },
        },
        send_design: {
          design: {
            type: 'external_select',
            selected_option: { text: { type: 'plain_text', text: 'CC-THANK-YOU' }, value: 'CC-THANK-YOU' },
          },
        },
        send_amount: { amount: { type: 'number_input', value: '5' } },
        send_message: { message: { type: 'plain_text_input', value: 'Thank you all!' } },
        send_timing: {
          timing: {
            type: 'radio_buttons',
            selected_option: { text: { type: 'plain_text', text: 'now' }, value: 'now' },
          },
        },
      };
      // A submission may be told to come back (Slack's rate limit: "Press Send again in N s") or that
      // checking took too long: like a person, wait as told and press Send again.
      for (
        let attempt = 0;
        attempt < 30 && Date.now() < deadline && sim.openViews('U_MANAGER').some((v) => v.id === view.id);
        attempt++
      ) {
        await sim.submitView(view.id, values, 'U_MANAGER');
        presses++;
        const told = /Press Send again in (\d+) s/.exec(Object.values(sim.viewErrors(view.id)).join(' '));
        if (told && sim.openViews('U_MANAGER').some((v) => v.id === view.id)) {
          busy++;
          await new Promise((r) => setTimeout(r, Number(told[1]) * 1000));
        }
      }
    }
    const told = await until(async () => {
      const [open] = await db.select({ n: count() }).from(kudos).where(isNull(kudos.notifiedAt));
      const [all] = await db.select({ n: count() }).from(kudos);
      return all!.n === groups && open!.n === 0;
    }, deadline);
    const seconds = (Date.now() - started) / 1000;
    // Completion: every order to COMPLETE on the emulator's clock, every check run, every notice told.
    await control('/clock/advance', { seconds: 120 });
    const completed = await until(async () => {
      await db
        .update(orderChecks)
        .set({ nextCheckAt: new Date(0) })
        .where(isNull(orderChecks.doneAt));
      const [open] = await db.select({ n: count() }).from(orderChecks).where(isNull(orderChecks.doneAt));
      return open!.n === 0 && sim.messages('C_KUDOS').filter((m) => m.text.startsWith('Kudos:')).length >= groups;
    }, deadline);
    const [recorded] = await db.select({ n: count() }).from(kudos);
    const slackCalls = new Map<string, number>();
    for (const call of sim.calls) slackCalls.set(call.method, (slackCalls.get(call.method) ?? 0) + 1);
    const emails = (await (await fetch(`${emulator.url}/_emulator/emails`)).json()) as {
      emails: Array<{ kind: string }>;
    };
    return {
      seconds: Math.round(seconds * 10) / 10,
      rewardsRequests: proxy.calls.filter((c) => c.path.startsWith('/api/')).length,
      orders: proxy.orders.size,
      slackCalls,
      slack429s: sim.calls.filter((c) => c.error === 'ratelimited' || c.error === 'rate_limited').length,
      dms: sim.messages().filter((m) => m.channel.startsWith('D')).length,
      announcements: sim.messages('C_KUDOS').filter((m) => m.text.startsWith('Kudos from')).length,
      completions: sim.messages('C_KUDOS').filter((m) => m.text.startsWith('Kudos:')).length,
      cardEmails: emails.emails.filter((e) => e.kind === 'card').length,
      finished: told && completed,
      presses,
      busy,
      recorded: recorded!.n,
    };
  } finally {
    await app.close();
    await sim.close();
    await proxy.close();
    await emulator.close();
    await opened.conn.close();
    await opened.drop();
  }
}

export async function benchBigGroup(): Promise<BenchRow[]> {
  const big = await run(1);
  const split = await run(PEOPLE / 100);
  const baselineName = `${PEOPLE / 100} sends of 100`;
  if (!big.finished || !split.finished)
    console.error(
      `big group: a run did not finish within ${TIME_LIMIT_MS / 1000} s (big: ${big.finished}, baseline: ${split.finished})`,
    );
  const rows: BenchRow[] = [
    {
      section: SECTION,
      metric: `one ${PEOPLE}-member group kudos: wall time, submit to everyone told`,
      value: big.seconds,
      unit: 's',
      baseline: split.seconds,
      baselineName,
    },
    {
      section: SECTION,
      metric: 'Rewards requests (recipients created, orders, balance, completion checks)',
      value: big.rewardsRequests,
      unit: 'requests',
      baseline: split.rewardsRequests,
      baselineName,
    },
    {
      section: SECTION,
      metric: 'sends recorded (modals accepted)',
      value: big.recorded,
      unit: 'sends',
      baseline: split.recorded,
      baselineName,
      target: 'every one',
      meetsTarget: big.recorded === 1 && split.recorded === PEOPLE / 100,
    },
    {
      section: SECTION,
      metric: 'presses of Send',
      value: big.presses,
      unit: 'presses',
      baseline: split.presses,
      baselineName,
    },
    {
      section: SECTION,
      metric: 'answers "Slack is busy ... Press Send again in N s" (waited as told)',
      value: big.busy,
      unit: 'answers',
      baseline: split.busy,
      baselineName,
    },
    { section: SECTION, metric: 'orders', value: big.orders, unit: 'orders', baseline: split.orders, baselineName },
    {
      section: SECTION,
      metric: 'card e-mails (each member once)',
      value: big.cardEmails,
      unit: 'e-mails',
      baseline: split.cardEmails,
      baselineName,
      target: `= ${PEOPLE}`,
      meetsTarget: big.cardEmails === PEOPLE,
    },
    {
      section: SECTION,
      metric: 'Slack 429s',
      value: big.slack429s,
      unit: '429s',
      baseline: split.slack429s,
      baselineName,
      target: '0',
      meetsTarget: big.slack429s === 0,
    },
    {
      section: SECTION,
      metric: 'DMs posted (to the sender: confirmation, delivered)',
      value: big.dms,
      unit: 'DMs',
      baseline: split.dms,
      baselineName,
      target: '2',
      meetsTarget: big.dms === 2,
    },
    {
      section: SECTION,
      metric: 'announcements in the channel',
      value: big.announcements,
      unit: 'posts',
      baseline: split.announcements,
      baselineName,
      target: '1',
      meetsTarget: big.announcements === 1,
    },
    {
      section: SECTION,
      metric: 'completion notices in the channel',
      value: big.completions,
      unit: 'posts',
      baseline: split.completions,
      baselineName,
      target: '1',
      meetsTarget: big.completions === 1,
    },
  ];
  const methods = new Set([...big.slackCalls.keys(), ...split.slackCalls.keys()]);
  for (const method of [...methods].sort()) {
    rows.push({
      section: SECTION,
      metric: `Slack calls: ${method}`,
      value: big.slackCalls.get(method) ?? 0,
      unit: 'calls',
      baseline: split.slackCalls.get(method) ?? 0,
      baselineName,
    });
  }
  return rows;
}
