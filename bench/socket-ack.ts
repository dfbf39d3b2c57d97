// The ack path over Socket Mode beside HTTP, in the same run and against the same app process: the
// app holds a Socket Mode connection to the simulator and also keeps POST /slack/events (signing
// secret set); the simulator's driver sends each `/kudos` either as a signed HTTP request or as an
// envelope on the socket, alternating per rate so the machine's noise hits both alike. Latency is
// from the driver sending the request to its ack (the modal is opened after it). `npm run bench --
// socket` runs only this section.
import { benchUserId, startAppStack } from './app-stack.js';
import { createBenchDatabase, databasesToRun } from './databases.js';
import { runOpenLoop } from './open-loop.js';
import type { BenchRow } from './report.js';
import { round } from './stats.js';

const quick = process.argv.includes('--quick');
const RATES = [50, 200];
const SECONDS = quick ? 5 : 15;
const USERS = 200;

export async function benchSocketAck(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const kind = databasesToRun()[0]!;
  const db = await createBenchDatabase(kind);
  const stack = await startAppStack(db, { extraUsers: USERS, socketMode: true });
  const section = `slash command ack over Socket Mode (${kind})`;
  const baselineName = 'the same app over HTTP';
  try {
    const call = async (i: number) =>
      (await stack.sim.slashCommand(benchUserId(i % USERS), '', 'C_GENERAL')).status === 200;
    const over = async (transport: 'http' | 'socket', rate: number, seconds: number) => {
      stack.sim.socketMode.setTransport(transport);
      return runOpenLoop({ rate, seconds, call });
    };
    // Warm-up of both paths, not measured.
    await over('socket', 20, 2);
    await over('http', 20, 2);
    for (const rate of RATES) {
      console.error(`bench: socket vs http ack at ${rate}/s for ${SECONDS} s each`);
      const socket = await over('socket', rate, SECONDS);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const http = await over('http', rate, SECONDS);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      console.error(
        `bench:   socket p50 ${round(socket.p50, 1)} p99 ${round(socket.p99, 1)} failed ${socket.failed}; http p50 ${round(http.p50, 1)} p99 ${round(http.p99, 1)} failed ${http.failed}`,
      );
      const at = `at ${rate} req/s`;
      rows.push(
        {
          section,
          metric: `p50 ${at}`,
          value: round(socket.p50, 1),
          unit: 'ms',
          baseline: round(http.p50, 1),
          baselineName,
        },
        {
          section,
          metric: `p99 ${at}`,
          value: round(socket.p99, 1),
          unit: 'ms',
          baseline: round(http.p99, 1),
          baselineName,
          target: '< 3000 ms',
          meetsTarget: socket.p99 < 3000 && socket.failed === 0,
        },
        { section, metric: `failed ${at}`, value: socket.failed, unit: 'req', baseline: http.failed, baselineName },
        {
          section,
          metric: `load generator stalled (max) ${at}`,
          value: round(socket.generatorStallMaxMs, 0),
          unit: 'ms',
          baseline: round(http.generatorStallMaxMs, 0),
          baselineName,
        },
      );
    }
  } finally {
    await stack.close();
    await db.dispose();
  }
  return rows;
}
