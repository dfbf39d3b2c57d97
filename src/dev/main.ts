// `npm run dev`: the whole product offline. Prints one URL; Ctrl-C stops everything; data stays in ./.data.
// `npm run dev -- --socket-mode`: Slack reaches the app over Socket Mode instead of HTTP;
// `--no-webhooks`: REWARDS_WEBHOOKS=off, order outcomes by polling. Both: no inbound connection at all.
import { mkdirSync } from 'node:fs';
import { startDevStack } from './stack.js';

const port = Number(process.env.PORT ?? 3000);
const pgliteDir = process.env.PGLITE_DIR ?? './.data/pglite';
if (!pgliteDir.startsWith('memory:')) mkdirSync(pgliteDir, { recursive: true });

const args = new Set(process.argv.slice(2));
for (const arg of args) {
  if (arg !== '--socket-mode' && arg !== '--no-webhooks') {
    process.stderr.write(`kudos dev: unknown option ${arg} (known: --socket-mode, --no-webhooks)\n`);
    process.exit(1);
  }
}
const socketMode = args.has('--socket-mode');
const webhooks = !args.has('--no-webhooks');

const stack = await startDevStack({ port, pgliteDir, socketMode, webhooks }).catch((err: Error) => {
  const hint = (err as { code?: string }).code === 'EADDRINUSE' ? ` (port ${port} is taken: try PORT=${port + 1} npm run dev)` : '';
  process.stderr.write(`kudos dev: could not start: ${err.message}${hint}\n`);
  process.exit(1);
});

process.stdout.write(`\n  Kudos is running offline. Open ${stack.url}\n`);
process.stdout.write(`  Slack reaches the app by ${socketMode ? 'Socket Mode (an outbound WebSocket)' : 'HTTP (POST /slack/events)'}; Rewards outcomes by ${webhooks ? 'webhooks' : 'polling'}.\n\n`);
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
