// The app as operators run it (`npm start`): the compiled build, `node dist/main.js`, in a child
// process configured from the environment, with its JSON log lines collected. Used by the SIGTERM
// test, the chaos test and the benchmarks. dist/ is (re)built once per process before the first start.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

import { buildApp, DIST_MAIN } from '../../scripts/build.js';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface LogLine {
  level?: string;
  msg?: string;
  [field: string]: unknown;
}

export interface AppProcess {
  url: string;
  /** GET /metrics lives here (METRICS_PORT), not on `url`. */
  metricsUrl: string;
  pid: number;
  child: ChildProcess;
  logs: LogLine[];
  /** Resolves with the first log line (already seen or future) matching `predicate`. */
  waitForLog(predicate: (line: LogLine) => boolean, timeoutMs?: number): Promise<LogLine>;
  /** Exit code and signal, with the time (performance.now()) it happened. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
  kill(signal: NodeJS.Signals): void;
}

/** Node flags of `npm start` (`[exec] node <flags> dist/main.js` in package.json), so that children run with the same ones. */
export const START_NODE_FLAGS: string[] = (() => {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    scripts?: { start?: string };
  };
  const words = (pkg.scripts?.start ?? '').trim().split(/\s+/);
  if (words[0] === 'exec') words.shift();
  return words[0] === 'node' ? words.slice(1, -1).filter((w) => w.startsWith('-')) : [];
})();

let built: Promise<unknown> | undefined;

/** Builds dist/ as `npm start` does (prestart), once per process; concurrent builds are safe. */
export function ensureBuilt(): Promise<unknown> {
  built ??= buildApp().catch((error: unknown) => {
    built = undefined;
    throw error;
  });
  return built;
}

/** Environment for the app (src/main.ts) against a started emulator and simulator (production credentials). */
export function appEnv(opts: {
  emulatorUrl: string;
  slackApiUrl: string;
  botToken: string;
  signingSecret: string;
  databaseUrl?: string;
  pgliteDir?: string;
  extra?: Record<string, string>;
}): Record<string, string> {
  return {
    PORT: '0',
    METRICS_PORT: '0',
    SLACK_SIGNING_SECRET: opts.signingSecret,
    SLACK_BOT_TOKEN: opts.botToken,
    SLACK_API_URL: opts.slackApiUrl,
    REWARDS_API_URL: opts.emulatorUrl,
    REWARDS_CLIENT_ID: 'production-client',
    REWARDS_CLIENT_SECRET: 'production-secret',
    REWARDS_WEBHOOK_SECRET: 'emulator-signing-secret',
    LOG_LEVEL: 'info',
    ...(opts.databaseUrl ? { DATABASE_URL: opts.databaseUrl } : { PGLITE_DIR: opts.pgliteDir ?? 'memory://' }),
    ...opts.extra,
  };
}

export interface StartAppProcessOptions {
  startTimeoutMs?: number;
  onLine?: (line: LogLine) => void;
  /**
   * Script to run instead of the compiled app (benchmark baselines), relative to the repository
   * root; TypeScript (`.ts`) runs through tsx (`node --import tsx`), e.g. `src/main.ts` to compare
   * with the uncompiled app.
   */
  script?: string;
  /**
   * Keep only warnings and errors once listening (benchmarks: parsing every info line would load
   * the measuring process). Default: keep every line.
   */
  quietAfterStart?: boolean;
  /** Extra node flags, e.g. `--cpu-prof` for profiling a benchmark run. */
  nodeArgs?: string[];
}

export async function startAppProcess(
  env: Record<string, string>,
  opts: StartAppProcessOptions = {},
): Promise<AppProcess> {
  // `node` itself rather than npm or the tsx CLI: signals reach the app, not a wrapper.
  let entry: string[];
  if (opts.script) {
    entry = opts.script.endsWith('.ts') ? ['--import', 'tsx', opts.script] : [opts.script];
  } else {
    await ensureBuilt();
    entry = [...START_NODE_FLAGS, DIST_MAIN];
  }
  const child = spawn(process.execPath, [...(opts.nodeArgs ?? []), ...entry], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: LogLine[] = [];
  const waiters = new Set<{ predicate: (line: LogLine) => boolean; resolve: (line: LogLine) => void }>();
  let listening = false;
  const onLine = (text: string) => {
    if (listening && opts.quietAfterStart && !/"level":"(warn|error|stderr)"/.test(text)) return;
    let line: LogLine;
    try {
      line = JSON.parse(text) as LogLine;
    } catch {
      line = { level: 'raw', msg: text };
    }
    logs.push(line);
    opts.onLine?.(line);
    for (const w of waiters) {
      if (w.predicate(line)) {
        waiters.delete(w);
        w.resolve(line);
      }
    }
  };
  createInterface({ input: child.stdout }).on('line', onLine);
  createInterface({ input: child.stderr }).on('line', (text) => onLine(JSON.stringify({ level: 'stderr', msg: text })));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal, at: performance.now() }));
  });

  const waitForLog = (predicate: (line: LogLine) => boolean, timeoutMs = 20_000) =>
    new Promise<LogLine>((resolve, reject) => {
      const seen = logs.find(predicate);
      if (seen) return resolve(seen);
      const waiter = {
        predicate,
        resolve: (line: LogLine) => {
          clearTimeout(timer);
          resolve(line);
        },
      };
      const timer = setTimeout(() => {
        waiters.delete(waiter);
        reject(
          new Error(
            `app process ${child.pid}: no matching log line within ${timeoutMs} ms; last lines:\n${logs
              .slice(-8)
              .map((l) => JSON.stringify(l))
              .join('\n')}`,
          ),
        );
      }, timeoutMs);
      waiters.add(waiter);
    });

  const started = await Promise.race([
    waitForLog((line) => line.msg === 'kudos app listening', opts.startTimeoutMs ?? 60_000),
    exited.then(({ code }) => {
      throw new Error(
        `app process exited with ${code} before listening:\n${logs
          .slice(-10)
          .map((l) => JSON.stringify(l))
          .join('\n')}`,
      );
    }),
  ]);
  listening = true;
  return {
    url: String(started.url),
    metricsUrl: String(started.metricsUrl),
    pid: child.pid!,
    child,
    logs,
    waitForLog,
    exited,
    kill: (signal) => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    },
  };
}
