// A recording proxy in front of the Rewards emulator: counts every request the app makes (by method
// and path) and notes when each order request arrives, keyed by its idempotency key, so the
// benchmark can compute calls per kudos and pickup latency without touching the app.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

import { Pool } from 'undici';

export interface ProxiedCall {
  method: string;
  path: string;
  status: number;
  /** Date.now() when the request arrived. */
  at: number;
}

export interface RewardsProxy {
  url: string;
  calls: ProxiedCall[];
  /** First arrival (Date.now()) of each order creation, by idempotency key, with its answer. */
  orders: Map<string, { at: number; status: number }>;
  close(): Promise<void>;
}

const ORDER_CREATION = /^\/api\/v1\/orders\/(choice|branded)-cards$/;

async function readAll(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export async function startRewardsProxy(targetUrl: string): Promise<RewardsProxy> {
  const pool = new Pool(targetUrl, { connections: 64 });
  const calls: ProxiedCall[] = [];
  const orders = new Map<string, { at: number; status: number }>();
  const server = createServer((req, res) => {
    const at = Date.now();
    void (async () => {
      const body = await readAll(req);
      const path = (req.url ?? '/').split('?')[0]!;
      const headers = { ...req.headers };
      delete headers.host;
      delete headers.connection;
      try {
        const answer = await pool.request({
          method: req.method as 'GET',
          path: req.url ?? '/',
          headers,
          body: body.length > 0 ? body : null,
        });
        const answerBody = Buffer.from(await answer.body.arrayBuffer());
        calls.push({ method: req.method ?? '', path, status: answer.statusCode, at });
        if (req.method === 'POST' && ORDER_CREATION.test(path)) {
          const key = (JSON.parse(body.toString('utf8')) as { idempotencyKey?: string }).idempotencyKey;
          if (key && (!orders.has(key) || orders.get(key)!.status >= 300))
            orders.set(key, { at: orders.get(key)?.at ?? at, status: answer.statusCode });
        }
        const out: Record<string, string | string[]> = {};
        for (const [k, v] of Object.entries(answer.headers))
          if (v !== undefined && k !== 'connection' && k !== 'transfer-encoding') out[k] = v;
        out['content-length'] = String(answerBody.length);
        res.writeHead(answer.statusCode, out).end(answerBody);
      } catch {
        calls.push({ method: req.method ?? '', path, status: 0, at });
        res.destroy();
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    orders,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await pool.close();
    },
  };
}
