// GET /readyz: whether a load balancer should send this instance new requests. 200 {ready: true,
// db: "ok"} when the database answers and the app is not stopping; 503 otherwise, with `draining:
// true` once SIGTERM has arrived. /healthz says whether the process works; /readyz says whether to
// route to it, and goes 503 first when the instance is on its way out.
import type { IncomingMessage, ServerResponse } from 'node:http';

import { sendJson } from './body.js';
import { databaseAnswers } from './health-route.js';
import type { RouteDeps } from './routes.js';

export function createReadyRoute(
  deps: Pick<RouteDeps, 'db'>,
  state: { readonly draining: () => boolean },
): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  return async (_req, res) => {
    if (state.draining()) {
      res.setHeader('Connection', 'close');
      return sendJson(res, 503, { ready: false, draining: true });
    }
    const answered = await databaseAnswers(deps.db);
    sendJson(res, answered ? 200 : 503, { ready: answered, db: answered ? 'ok' : 'unavailable' });
  };
}
