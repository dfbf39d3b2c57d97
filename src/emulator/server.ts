import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { serve } from '@hono/node-server';

import { loadEmulatorConfig } from './config.js';
import { Organizations } from './organizations.js';
import { EmulatorCore } from './state/core.js';

export interface EmulatorOptions {
  port?: number;
  host?: string;
  /** EMULATOR_* overrides (docs/architecture/emulator.md). */
  env?: Record<string, string | undefined>;
}

export interface RunningEmulator {
  /** e.g. http://127.0.0.1:4010, no trailing slash */
  url: string;
  close(): Promise<void>;
}

/** Starts the Rewards API emulator on host:port (port 0 picks a free one). */
export async function startEmulator(opts: EmulatorOptions = {}): Promise<RunningEmulator> {
  const config = loadEmulatorConfig(opts.env ?? {});
  const core = new EmulatorCore(config);
  // The seeded organization, and any added with POST /_emulator/orgs (organizations.ts).
  const orgs = new Organizations(config, core);
  const host = opts.host ?? '127.0.0.1';
  const server = await new Promise<Server>((resolve, reject) => {
    const s = serve({ fetch: orgs.fetch, port: opts.port ?? 0, hostname: host }, () => resolve(s)) as Server;
    s.once('error', reject);
  });
  // A dropped connection (fault injection) must not take the process down.
  server.on('clientError', (_err, socket) => socket.destroy());
  if (config.backgroundTimer) core.jobs.startTimer();
  const { port } = server.address() as AddressInfo;
  let closed: Promise<void> | undefined;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    close() {
      closed ??= (async () => {
        for (const c of orgs.cores()) {
          c.jobs.stopTimer();
          c.jobs.clear();
        }
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
      })();
      return closed;
    },
  };
}
