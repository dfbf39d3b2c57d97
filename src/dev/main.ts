// `npm run dev`: the whole product offline. Prints one URL; Ctrl-C stops everything; data stays in ./.data.
// `npm run dev -- --socket-mode`: Slack reaches the app over Socket Mode instead of HTTP;
// `--no-webhooks`: REWARDS_WEBHOOKS=off, order outcomes by polling. Both: no inbound connection at all.
// `--distribution`: distribution mode (the README's installation modes): "Add to Slack", several workspaces and a
// Grid org in the simulator, with a workspace switcher.
// SIMULATOR_RATE_LIMITS=off (or a multiplier such as 10): the simulator's Slack rate limits (on by default).
import { mkdirSync } from 'node:fs';

import { rateLimitSettingsFrom } from '../simulator/rate-limits.js';
import { startDevStack } from './stack.js';

const port = Number(process.env.PORT ?? 3000);
// Distribution mode keeps its own database: its installations and workspaces are not single mode's.
const pgliteDir =
  process.env.PGLITE_DIR ??
  (process.argv.includes('--distribution') ? './.data/pglite-distribution' : './.data/pglite');
if (!pgliteDir.startsWith('memory:')) mkdirSync(pgliteDir, { recursive: true });

const args = new Set(process.argv.slice(2));
for (const arg of args) {
  if (arg !== '--socket-mode' && arg !== '--no-webhooks' && arg !== '--distribution') {
    process.stderr.write(`kudos dev: unknown option ${arg} (known: --socket-mode, --no-webhooks, --distribution)\n`);
    process.exit(1);
  }
}
const socketMode = args.has('--socket-mode');
const webhooks = !args.has('--no-webhooks');
const distribution = args.has('--distribution');

// The simulator enforces Slack's rate limits, as production would; SIMULATOR_RATE_LIMITS=off or a multiplier changes that.
const slackRateLimits = rateLimitSettingsFrom(process.env.SIMULATOR_RATE_LIMITS);
const stack = await startDevStack({ port, pgliteDir, socketMode, webhooks, distribution, slackRateLimits }).catch(
  (err: Error) => {
    const hint =
      (err as { code?: string }).code === 'EADDRINUSE'
        ? ` (port ${port} is taken: try PORT=${port + 1} npm run dev)`
        : '';
    process.stderr.write(`kudos dev: could not start: ${err.message}${hint}\n`);
    process.exit(1);
  },
);

process.stdout.write(`\n  Kudos is running offline. Open ${stack.url}\n`);
if (distribution) {
  process.stdout.write(
    '  Distribution mode: switch workspaces in the sidebar; Kudos Demo and the Grid Corp org are installed, "Add to Slack" installs Second Co.\n',
  );
  process.stdout.write(
    '  Each company has its own Rewards account in the emulator: as an admin, App Home → Connect Rewards account:\n',
  );
  for (const a of stack.rewardsAccounts)
    process.stdout.write(
      `    ${a.company.padEnd(22)} client ID ${a.clientId}  client secret ${a.clientSecret}  webhook secret ${a.webhookSecret}\n`,
    );
}
process.stdout.write(
  `  Slack reaches the app by ${socketMode ? 'Socket Mode (an outbound WebSocket)' : 'HTTP (POST /slack/events)'}; Rewards outcomes by ${webhooks ? 'webhooks' : 'polling'}.\n\n`,
);
if (webhooks && !stack.webhook.registered) {
  process.stderr.write(`  (Rewards webhooks not registered with the app: ${stack.webhook.detail})\n`);
}

let stopping = false;
const stop = (signal: string) => {
  if (stopping) return;
  stopping = true;
  process.stderr.write(`\n  ${signal}: stopping…\n`);
  const force = setTimeout(() => process.exit(1), 15_000);
  force.unref();
  stack.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.on('SIGINT', () => stop('SIGINT'));
process.on('SIGTERM', () => stop('SIGTERM'));
