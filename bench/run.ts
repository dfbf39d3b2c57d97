// `npm run bench`: every benchmark section, each figure beside a baseline measured in the same run.
// Prints one table and writes it as JSON under bench/results/.
import { benchAckPath } from './ack-path.js';
import { benchApp } from './app.js';
import { benchBigGroup } from './big-group.js';
import { benchClientOverhead } from './client-overhead.js';
import { benchIdleMemory } from './idle-memory.js';
import { benchInstallations } from './installations.js';
import { type BenchRow, printTable, writeResults } from './report.js';
import { benchScale } from './scale.js';
import { benchSocketAck } from './socket-ack.js';
import { benchWebhookIngestion } from './webhook-ingestion.js';

const sections: Array<{ name: string; run: () => Promise<BenchRow[]> }> = [
  { name: 'client overhead', run: benchClientOverhead },
  // Slash command ack, send throughput, pickup latency and memory, per database (bench/app.ts).
  { name: 'app: slash ack, send throughput, memory', run: benchApp },
  // `/kudos` (ack, then views.open) in distribution mode beside a minimal Bolt app doing the same (bench/ack-path.ts).
  { name: 'ack-path: /kudos beside a minimal Bolt app', run: benchAckPath },
  // The same ack path over Socket Mode beside HTTP, one app (bench/socket-ack.ts).
  { name: 'socket mode ack', run: benchSocketAck },
  { name: 'webhook ingestion', run: benchWebhookIngestion },
  // Idle RSS of `npm start` beside the former `tsx src/main.ts` (bench/idle-memory.ts).
  { name: 'idle memory', run: benchIdleMemory },
  // 3 instances x 50 workspaces on one account with a backlog; 2 instances sharing a low limit (bench/scale.ts).
  { name: 'scale', run: benchScale },
  // Distribution mode with 1, 1,000 and 10,000 installations: ack latency and memory (bench/installations.ts).
  { name: 'installations', run: benchInstallations },
  // One 1,000-member user group kudos end to end beside the same people as ten sends of 100 (bench/big-group.ts).
  { name: 'biggroup', run: benchBigGroup },
];

// Positional arguments pick sections by name; flags (`--quick`, `--kudos N`, `--steady-rate R`, `--backlog N`, `--db NAME`, `--send-only`, `--slash-only`, `--idle-flags "..."`) are read by the sections.
const FLAGS_WITH_VALUE = new Set(['--kudos', '--db', '--idle-flags', '--steady-rate', '--backlog', '--limit']);
const only = process.argv
  .slice(2)
  .filter((arg, i, args) => !arg.startsWith('-') && !FLAGS_WITH_VALUE.has(args[i - 1] ?? ''));
const rows: BenchRow[] = [];
for (const section of sections) {
  if (only.length > 0 && !only.some((name) => section.name.includes(name))) continue;
  console.error(`bench: ${section.name}...`);
  rows.push(...(await section.run()));
}
printTable(rows);
const file = writeResults(rows, {
  at: new Date().toISOString(),
  node: process.version,
  database: process.env.DATABASE_URL ? 'postgresql' : 'pglite',
});
console.log(`\nresults written to ${file}`);
