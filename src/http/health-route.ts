// GET /healthz: 200 {ok: true, db: "ok"} when the database answers `select 1`, else 503. In Socket
// Mode it adds `slack: "connected" | "connecting"`, and answers 503 while Slack refuses the app token
// or has disabled Socket Mode (`slackError` says which).
import type { IncomingMessage, ServerResponse } from 'node:http';

import { pingDatabase } from '../db/client.js';
import type { SocketState } from '../socket-mode/connection.js';
import { sendJson } from './body.js';
import type { RouteDeps } from './routes.js';

const PING_TIMEOUT_MS = 2000;

/** `select 1` answered within PING_TIMEOUT_MS (a stalled database is as unhealthy as a refusing one). */
export function databaseAnswers(db: RouteDeps['db']): Promise<boolean> {
  return Promise.race([
    pingDatabase(db),
    new Promise<boolean>((resolve) => setTimeout(() => resolve(false), PING_TIMEOUT_MS).unref()),
  ]);
}

export function createHealthRoute(
  deps: RouteDeps,
  socket?: { readonly state: SocketState; readonly failure: string | undefined },
): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  return async (_req, res) => {
    const answered = await databaseAnswers(deps.db);
    const db = answered ? 'ok' : 'unavailable';
    const state = socket?.state;
    const slack =
      state === undefined
        ? {}
        : {
            slack: state === 'connected' ? 'connected' : 'connecting',
            ...(state === 'failed' ? { slackError: socket?.failure } : {}),
          };
    const ok = answered && state !== 'failed';
    sendJson(res, ok ? 200 : 503, { ok, db, ...slack });
  };
}
