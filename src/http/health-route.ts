// GET /healthz: 200 {ok: true, db: "ok"} when the database answers `select 1`, else 503.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { pingDatabase } from '../db/client.js';
import { sendJson } from './body.js';
import type { RouteDeps } from './routes.js';

const PING_TIMEOUT_MS = 2000;

export function createHealthRoute(deps: RouteDeps): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  return async (_req, res) => {
    const answered = await Promise.race([
      pingDatabase(deps.db),
      new Promise<boolean>((resolve) => setTimeout(() => resolve(false), PING_TIMEOUT_MS).unref()),
    ]);
    if (answered) sendJson(res, 200, { ok: true, db: 'ok' });
    else sendJson(res, 503, { ok: false, db: 'unavailable' });
  };
}
