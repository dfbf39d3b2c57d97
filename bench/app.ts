// App benchmarks, once per database (PGlite; PostgreSQL too when DATABASE_URL is set):
// - slash command acknowledgement (`/kudos` opening the modal through the simulator's Web API) at
//   fixed offered rates and stepped up to the highest rate held with p99 < 100 ms, beside a bare
//   node:http server that only verifies the Slack signature, driven the same way in the same run;
// - send throughput end to end: N modal submissions to N distinct recipients, until every order is
//   placed in the emulator and every announcement posted; calls per kudos; pickup latency;
// - memory: RSS of the app process idle and at its peak.
// `--quick` shortens every phase for a smoke run; `--kudos N` sets N (default 1000); `--db` picks one database;
// `--send-only` skips the slash-command rates.
import { inArray } from 'drizzle-orm';

import { kudos } from '../src/db/schema/index.js';
import { type SlackSimulator, startSlackSimulator } from '../src/simulator/slack.js';
import { startAppProcess } from '../test/chaos/app-process.js';
import { sendModalValues } from '../test/support/app.js';
import {
  type AppStack,
  BENCH_SIGNING_SECRET,
  benchUserId,
  benchWorkspace,
  NOTIFY_CHANNEL,
  startAppStack,
} from './app-stack.js';
import { type BenchDatabase, createBenchDatabase, databasesToRun } from './databases.js';
import { readCpuMs, readRssBytes, sampleRss, toMiB } from './memory.js';
import { mapLimit, type OpenLoopResult, runOpenLoop } from './open-loop.js';
import type { BenchRow } from './report.js';
import { round, summarize } from './stats.js';

const quick = process.argv.includes('--quick');
/** Skip the slash-command rates: idle memory, send throughput and pickup only (for iterating on the worker). */
const sendOnly = process.argv.includes('--send-only');
/** The slash-command rates only (for iterating on the `/kudos` path). */
const slashOnly = process.argv.includes('--slash-only');
const FIXED_RATES = [50, 200, 500];
const FIXED_SECONDS = quick ? 5 : 20;
const STEP_SECONDS = quick ? 2 : 5;
const STEP_LIMIT_RATE = 2000;
const HELD_P99_MS = 100;
const COOL_DOWN_MS = quick ? 5_000 : 15_000;

function argNumber(name: string, fallback: number): number {
  const i = process.argv.indexOf(name);
  const value = i >= 0 ? Number(process.argv[i + 1]) : NaN;
  return Number.isFinite(value) && value > 0 ? value : fallback;
}

const KUDOS = argNumber('--kudos', quick ? 200 : 1000);
/**
 * Pickup latency is also measured at a steady offered rate below the send capacity: in the burst
 * above, 1,000 submissions are accepted faster (~145/s) than any 2-core machine places them, so the
 * burst's pickup figure is the backlog's queueing time, not the worker's delay.
 */
const STEADY_RATE = argNumber('--steady-rate', 25);
const STEADY_KUDOS = quick ? 100 : STEADY_RATE * 10;

export async function benchApp(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  for (const kind of databasesToRun()) {
    const db = await createBenchDatabase(kind);
    try {
      rows.push(...(await benchOnDatabase(db)));
    } finally {
      await db.dispose();
    }
  }
  return rows;
}

type SlashCall = (i: number) => Promise<boolean>;

async function benchOnDatabase(db: BenchDatabase): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const tag = `(${db.kind})`;
  const concurrency = process.env.KUDOS_WORKER_CONCURRENCY;
  // BENCH_APP_NODE_ARGS, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof": profile the app under the benchmark's load.
  const nodeArgs = process.env.BENCH_APP_NODE_ARGS?.split(' ').filter(Boolean);
  const stack = await startAppStack(db, {
    extraUsers: KUDOS + STEADY_KUDOS,
    ...(concurrency ? { env: { KUDOS_WORKER_CONCURRENCY: concurrency } } : {}),
    ...(nodeArgs ? { nodeArgs } : {}),
  });
  const rss = sampleRss(stack.app.pid);
  try {
    // Idle: started, migrated, nothing asked of it yet.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const idle = readRssBytes(stack.app.pid) ?? 0;
    rows.push({
      section: `memory ${tag}`,
      metric: 'app RSS idle',
      value: toMiB(idle),
      unit: 'MiB',
      target: '< 150 MiB',
      meetsTarget: toMiB(idle) < 150,
    });

    if (!sendOnly) rows.push(...(await benchSlashAck(stack, tag)));
    if (!slashOnly) {
      rows.push(...(await benchSendThroughput(stack, db, tag)));
      await benchSteadySends(stack, tag);
    }

    rows.push({
      section: `memory ${tag}`,
      metric: 'app RSS peak (all runs above)',
      value: toMiB(rss.peakBytes()),
      unit: 'MiB',
    });
  } finally {
    rss.stop();
    await stack.close();
  }
  rows.push(...(await pickupLatencyRows(stack, db, tag)));
  return rows;
}

async function benchSlashAck(stack: AppStack, tag: string): Promise<BenchRow[]> {
  const section = `slash command ack ${tag}`;
  const baselineName = 'bare node:http + signature check';
  const baseline = await startAppProcess(
    { SLACK_SIGNING_SECRET: BENCH_SIGNING_SECRET },
    { script: 'bench/baseline-slack-server.ts' },
  );
  const baseSim = await startSlackSimulator({
    signingSecret: BENCH_SIGNING_SECRET,
    workspace: benchWorkspace(KUDOS),
    appUrl: baseline.url,
    rateLimits: false,
  });
  // Both are driven by the simulator's own signed-request driver: same payload, same client code.
  const users = Math.max(1, KUDOS);
  const appCall: SlashCall = async (i) =>
    (await stack.sim.slashCommand(benchUserId(i % users), '', 'C_GENERAL')).status === 200;
  const baseCall: SlashCall = async (i) =>
    (await baseSim.slashCommand(benchUserId(i % users), '', 'C_GENERAL')).status === 200;
  const rows: BenchRow[] = [];
  try {
    // Warm-up (JIT, Slack identity, settings cache), not measured.
    await runOpenLoop({ rate: 20, seconds: 2, call: appCall });
    await runOpenLoop({ rate: 20, seconds: 2, call: baseCall });
    for (const rate of FIXED_RATES) {
      // Interleaved so that the machine's noise (other engineers' tests) hits both alike.
      console.error(`bench: slash ack ${tag} at ${rate}/s for ${FIXED_SECONDS} s`);
      const cpuBefore = readCpuMs(stack.app.pid) ?? 0;
      const app = await runOpenLoop({ rate, seconds: FIXED_SECONDS, call: appCall });
      // Work left after the last ack (views.open of the last commands) counts too.
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const cpuPerCommand = ((readCpuMs(stack.app.pid) ?? 0) - cpuBefore) / Math.max(1, app.count);
      const base = await runOpenLoop({ rate, seconds: FIXED_SECONDS, call: baseCall });
      console.error(
        `bench:   app p50 ${round(app.p50, 1)} p99 ${round(app.p99, 1)} max ${round(app.max, 1)} failed ${app.failed} (generator stalled up to ${round(app.generatorStallMaxMs, 0)} ms); baseline p50 ${round(base.p50, 1)} p99 ${round(base.p99, 1)} max ${round(base.max, 1)} (${round(base.generatorStallMaxMs, 0)} ms)`,
      );
      const at = `at ${rate} req/s`;
      const p99Target = rate === 200 ? { target: '< 50 ms', meetsTarget: app.p99 < 50 && app.failed === 0 } : {};
      rows.push(
        {
          section,
          metric: `p50 ${at}`,
          value: round(app.p50, 1),
          unit: 'ms',
          baseline: round(base.p50, 1),
          baselineName,
        },
        {
          section,
          metric: `p99 ${at}`,
          value: round(app.p99, 1),
          unit: 'ms',
          baseline: round(base.p99, 1),
          baselineName,
          ...p99Target,
        },
        {
          section,
          metric: `max ${at}`,
          value: round(app.max, 1),
          unit: 'ms',
          baseline: round(base.max, 1),
          baselineName,
        },
        { section, metric: `failed ${at}`, value: app.failed, unit: 'req', baseline: base.failed, baselineName },
        // A check on the figures above: a latency spike this large may be the generator's own stall.
        {
          section,
          metric: `load generator stalled (max) ${at}`,
          value: round(app.generatorStallMaxMs, 0),
          unit: 'ms',
          baseline: round(base.generatorStallMaxMs, 0),
          baselineName,
        },
        // Steadier than the latencies on a shared machine: what one `/kudos` costs the app, modal included.
        {
          section,
          metric: `app CPU per /kudos ${at} (ack + users.info + views.open)`,
          value: round(cpuPerCommand, 2),
          unit: 'ms',
        },
      );
    }
    // The 500/s run leaves the app working off its backlog (modals still being opened after the
    // acks): let it go idle first, or the first step measures the previous overload.
    await new Promise((resolve) => setTimeout(resolve, COOL_DOWN_MS));
    const appHeld = await highestRateHeld(appCall, `app ${tag}`);
    const baseHeld = await highestRateHeld(baseCall, `baseline ${tag}`);
    rows.push({
      section,
      metric: `highest rate held with p99 < ${HELD_P99_MS} ms (steps of ${STEP_SECONDS} s)`,
      value: appHeld.rate,
      unit: 'req/s',
      baseline: baseHeld.rate,
      baselineName: baseHeld.rate >= STEP_LIMIT_RATE ? `${baselineName}; load generator limit` : baselineName,
    });
  } finally {
    await baseSim.close();
    baseline.kill('SIGTERM');
    await baseline.exited;
  }
  return rows;
}

/** Steps the offered rate up by half each time until p99 reaches the bound or requests fail. */
async function highestRateHeld(call: SlashCall, label: string): Promise<{ rate: number; last?: OpenLoopResult }> {
  let held = 0;
  let last: OpenLoopResult | undefined;
  for (let rate = 50; rate <= STEP_LIMIT_RATE; rate = Math.round(rate * 1.5)) {
    last = await runOpenLoop({ rate, seconds: STEP_SECONDS, call });
    console.error(
      `bench: step-up ${label} ${rate}/s: p99 ${round(last.p99, 1)} ms, failed ${last.failed}, load generator stalled up to ${round(last.generatorStallMaxMs, 0)} ms`,
    );
    if (last.p99 >= HELD_P99_MS || last.failed > last.count * 0.005) break;
    held = rate;
    // Let queues drain between steps.
    await new Promise((resolve) => setTimeout(resolve, 2000));
  }
  return { rate: held, ...(last ? { last } : {}) };
}

/** Stacks whose send run completed (pickup latency is read from their database afterwards). */
const sendRuns = new WeakSet<AppStack>();
/** When each stack's steady-rate run began (wall clock): kudos recorded from then on are its own. */
const steadyRuns = new WeakMap<AppStack, { startedAtMs: number; rate: number; kudos: number }>();

/** Not timed: every sender opens the modal (a trigger_id lives 3 s, so in small batches). */
async function openSendModals(sim: SlackSimulator, senders: string[]) {
  return mapLimit(senders, 16, async (sender) => {
    const previous = sim.openViews(sender).at(-1)?.id;
    const answer = await sim.slashCommand(sender, '', 'C_GENERAL');
    if (answer.status !== 200) throw new Error(`/kudos for ${sender} answered ${answer.status}`);
    // The modal opens after the ack (views.open), replacing the one the ack benchmark left open.
    return sim.waitFor(() => {
      const top = sim.openViews(sender).at(-1);
      return top && top.id !== previous ? top : undefined;
    }, 10_000);
  });
}

/**
 * STEADY_KUDOS submissions at a fixed offered rate (open loop), each to a recipient new to the address
 * book, after the burst has been worked off: their pickup latency is the worker's own delay.
 */
async function benchSteadySends(stack: AppStack, tag: string): Promise<void> {
  const { sim, proxy } = stack;
  const first = KUDOS;
  const senders = Array.from({ length: STEADY_KUDOS }, (_, j) => benchUserId(first + j));
  console.error(`bench: steady sends ${tag}: ${STEADY_KUDOS} at ${STEADY_RATE}/s`);
  const views = await openSendModals(sim, senders);
  // Let the completion checks and notices of the burst finish: this run measures an idle worker's pickup.
  await new Promise((resolve) => setTimeout(resolve, COOL_DOWN_MS));
  const ordersBefore = proxy.orders.size;
  const startedAtMs = Date.now();
  const result = await runOpenLoop({
    rate: STEADY_RATE,
    seconds: STEADY_KUDOS / STEADY_RATE,
    call: async (j) => {
      const recipient = benchUserId(first + ((j + 1) % STEADY_KUDOS));
      return (
        (
          await sim.submitView(
            views[j]!.id,
            sendModalValues({ users: [recipient], design: 'CC-THANK-YOU', amount: '5' }),
            senders[j]!,
          )
        ).status === 200
      );
    },
  });
  if (result.failed > 0) throw new Error(`steady sends: ${result.failed} submissions failed`);
  const deadline = Date.now() + 60_000;
  while (proxy.orders.size - ordersBefore < STEADY_KUDOS) {
    if (Date.now() > deadline)
      throw new Error(`steady sends: only ${proxy.orders.size - ordersBefore} orders after a minute`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  steadyRuns.set(stack, { startedAtMs, rate: STEADY_RATE, kudos: STEADY_KUDOS });
}

export async function benchSendThroughput(stack: AppStack, db: BenchDatabase, tag: string): Promise<BenchRow[]> {
  const section = `send throughput ${tag}`;
  const { sim, proxy } = stack;
  const n = KUDOS;
  console.error(`bench: send throughput ${tag}: opening ${n} modals`);
  const views = await openSendModals(
    sim,
    Array.from({ length: n }, (_, i) => benchUserId(i)),
  );

  const callsBefore = proxy.calls.length;
  const slackBefore = sim.calls.length;
  const ordersBefore = proxy.orders.size;
  // Counted incrementally: this polls every 20 ms in the process that also runs the simulator.
  let announcedCount = 0;
  let scanned = slackBefore;
  const announced = () => {
    for (; scanned < sim.calls.length; scanned++) {
      const c = sim.calls[scanned]!;
      if (c.method === 'chat.postMessage' && c.ok && c.args.channel === NOTIFY_CHANNEL) announcedCount++;
    }
    return announcedCount;
  };
  const placed = () => [...proxy.orders.values()].filter((o) => o.status < 300).length - ordersBefore;

  console.error(`bench: send throughput ${tag}: submitting ${n} kudos`);
  const submitLatencies: number[] = [];
  const appCpuBefore = readCpuMs(stack.app.pid) ?? 0;
  const benchCpuBefore = process.cpuUsage();
  const startedAt = performance.now();
  await mapLimit(views, 32, async (view, i) => {
    const t = performance.now();
    const answer = await sim.submitView(
      view.id,
      sendModalValues({ users: [benchUserId((i + 1) % n)], design: 'CC-THANK-YOU', amount: '5' }),
      benchUserId(i),
    );
    submitLatencies.push(performance.now() - t);
    if (answer.status !== 200) throw new Error(`submission ${i} answered ${answer.status}`);
  });
  const submittedAt = performance.now();
  const deadline = Date.now() + (Number(process.env.BENCH_SEND_DEADLINE_S) || 600) * 1000;
  while (placed() < n || announced() < n) {
    if (Date.now() > deadline)
      throw new Error(`send throughput: only ${placed()} orders and ${announced()} announcements after 10 minutes`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const doneAt = performance.now();
  const seconds = (doneAt - startedAt) / 1000;
  const appCpuMs = (readCpuMs(stack.app.pid) ?? 0) - appCpuBefore;
  const benchCpu = process.cpuUsage(benchCpuBefore);
  const benchCpuMs = (benchCpu.user + benchCpu.system) / 1000;
  // Completion checks follow the orders; give them a moment so that they are counted too.
  await new Promise((resolve) => setTimeout(resolve, 5000));
  const rewardsCalls = proxy.calls.slice(callsBefore);
  const orderCalls = rewardsCalls.filter(
    (c) => c.method === 'POST' && /^\/api\/v1\/orders\/choice-cards$/.test(c.path),
  ).length;
  const slackCalls = sim.calls.slice(slackBefore).filter((c) => c.method !== 'response_url').length;
  const byPath = new Map<string, number>();
  for (const c of rewardsCalls) {
    const key = `${c.method} ${c.path.replace(/\/(RC|OR|LO|[A-Z]{2,3})[-_A-Za-z0-9]+$/, '/{id}')}`;
    byPath.set(key, (byPath.get(key) ?? 0) + 1);
  }
  console.error(`bench: Rewards API calls during the send run: ${JSON.stringify(Object.fromEntries(byPath))}`);
  const slackByMethod = new Map<string, number>();
  for (const c of sim.calls.slice(slackBefore)) slackByMethod.set(c.method, (slackByMethod.get(c.method) ?? 0) + 1);
  console.error(`bench: Slack API calls during the send run: ${JSON.stringify(Object.fromEntries(slackByMethod))}`);
  sendRuns.add(stack);
  const beyondOrder = (rewardsCalls.length - orderCalls) / n;
  const submit = summarize(submitLatencies);
  return [
    {
      section,
      metric: `kudos/s (${n} submissions -> orders placed and announced)`,
      value: round(n / seconds, 1),
      unit: 'kudos/s',
      ...(db.kind === 'postgresql' ? { target: '>= 50', meetsTarget: n / seconds >= 50 } : {}),
    },
    { section, metric: 'time to accept all submissions', value: round((submittedAt - startedAt) / 1000, 2), unit: 's' },
    { section, metric: 'view_submission ack p99 (32 in flight)', value: round(submit.p99, 1), unit: 'ms' },
    { section, metric: 'Rewards API calls per kudos (all)', value: round(rewardsCalls.length / n, 2), unit: 'calls' },
    {
      section,
      metric: 'Rewards API calls per kudos beyond the order',
      value: round(beyondOrder, 2),
      unit: 'calls',
      target: '<= 2',
      meetsTarget: beyondOrder <= 2,
    },
    { section, metric: 'Slack API calls per kudos', value: round(slackCalls / n, 2), unit: 'calls' },
    // Where the 2 cores went: the app, and the benchmark process (emulator, simulator, driver).
    {
      section,
      metric: `app CPU per kudos (busy ${Math.round((appCpuMs / (doneAt - startedAt)) * 100)}% of one core)`,
      value: round(appCpuMs / n, 2),
      unit: 'ms',
    },
    {
      section,
      metric: `emulator + simulator + driver CPU per kudos (busy ${Math.round((benchCpuMs / (doneAt - startedAt)) * 100)}%)`,
      value: round(benchCpuMs / n, 2),
      unit: 'ms',
    },
  ];
}

/** Recorded (database created_at) -> order request reaching the emulator (the proxy's arrival time). */
async function pickupLatencyRows(stack: AppStack, db: BenchDatabase, tag: string): Promise<BenchRow[]> {
  const section = `send throughput ${tag}`;
  const arrivals = stack.proxy.orders;
  if (!sendRuns.has(stack) || arrivals.size === 0) return [];
  const conn = await db.connect();
  try {
    const keys = [...arrivals.keys()];
    const steady = steadyRuns.get(stack);
    const burst: number[] = [];
    const steadySamples: number[] = [];
    for (let i = 0; i < keys.length; i += 500) {
      const rows = await conn.db
        .select({ key: kudos.idempotencyKey, createdAt: kudos.createdAt })
        .from(kudos)
        .where(inArray(kudos.idempotencyKey, keys.slice(i, i + 500)));
      for (const row of rows) {
        const sample = arrivals.get(row.key)!.at - row.createdAt.getTime();
        (steady && row.createdAt.getTime() >= steady.startedAtMs ? steadySamples : burst).push(sample);
      }
    }
    const b = summarize(burst);
    const rows: BenchRow[] = [
      {
        section,
        metric: `pickup latency p50, burst of ${KUDOS} (recorded -> order request at the API; includes the backlog)`,
        value: round(b.p50, 1),
        unit: 'ms',
      },
      { section, metric: `pickup latency p99, burst of ${KUDOS}`, value: round(b.p99, 1), unit: 'ms' },
    ];
    if (steady && steadySamples.length > 0) {
      const st = summarize(steadySamples);
      rows.push(
        {
          section,
          metric: `pickup latency p50, steady ${steady.rate} submissions/s (${steadySamples.length} kudos, new recipients)`,
          value: round(st.p50, 1),
          unit: 'ms',
        },
        {
          section,
          metric: `pickup latency p99, steady ${steady.rate} submissions/s`,
          value: round(st.p99, 1),
          unit: 'ms',
          target: '< 100 ms',
          meetsTarget: st.p99 < 100,
        },
      );
    }
    return rows;
  } finally {
    await conn.close();
  }
}
