// `npm run dev`: the whole product offline. Prints one URL; Ctrl-C stops everything; data stays in ./.data.
import { mkdirSync } from 'node:fs';
import { startDevStack } from './stack.js';

const port = Number(process.env.PORT ?? 3000);
const pgliteDir = process.env.PGLITE_DIR ?? './.data/pglite';
if (!pgliteDir.startsWith('memory:')) mkdirSync(pgliteDir, { recursive: true });

const stack = await startDevStack({ port, pgliteDir }).catch((err: Error) => {
  const hint = (err as { code?: string }).code === 'EADDRINUSE' ? ` (port ${port} is taken: try PORT=${port + 1} npm run dev)` : '';
  process.stderr.write(`kudos dev: could not start: ${err.message}${hint}\n`);
  process.exit(1);
});

process.stdout.write(`\n  Kudos is running offline. Open ${stack.url}\n\n`);
if (!stack.webhook.registered) {
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
