// A round-robin HTTP load balancer in front of several app instances, as operators would run them.
// A backend that refuses the connection is skipped (a health check would do the same); a request
// lost mid-flight (the instance was killed) gets 502, and the Slack user retries.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

import { Agent, request } from 'undici';

export interface LoadBalancer {
  url: string;
  /** Replaced wholesale when an instance restarts on a new port. */
  backends: string[];
  /** Called for every request once answered: which backend took it (undefined: none, 502) and its status. */
  onForward?: (info: {
    backend: string | undefined;
    url: string;
    body: Buffer;
    status: number;
    /** performance.now() when the request was sent on to the backend. */ forwardedAt: number;
  }) => void;
  close(): Promise<void>;
}

async function readAll(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export async function startLoadBalancer(backends: string[]): Promise<LoadBalancer> {
  const agent = new Agent({ connections: 64 });
  const lb: LoadBalancer = { url: '', backends: [...backends], close: async () => {} };
  let next = 0;
  const server = createServer((req, res) => {
    void (async () => {
      const body = await readAll(req);
      const headers = { ...req.headers };
      delete headers.host;
      delete headers.connection;
      const tried = new Set<string>();
      while (tried.size < lb.backends.length) {
        const backend = lb.backends[next++ % lb.backends.length]!;
        if (tried.has(backend)) continue;
        tried.add(backend);
        const forwardedAt = performance.now();
        try {
          const answer = await request(`${backend}${req.url ?? '/'}`, {
            method: req.method as 'POST',
            headers,
            body,
            dispatcher: agent,
            headersTimeout: 15_000,
            bodyTimeout: 15_000,
          });
          const payload = Buffer.from(await answer.body.arrayBuffer());
          const out: Record<string, string | string[]> = {};
          for (const [k, v] of Object.entries(answer.headers))
            if (v !== undefined && k !== 'connection' && k !== 'transfer-encoding' && k !== 'keep-alive') out[k] = v;
          out['content-length'] = String(payload.length);
          res.writeHead(answer.statusCode, out).end(payload);
          lb.onForward?.({ backend, url: req.url ?? '/', body, status: answer.statusCode, forwardedAt });
          return;
        } catch (error) {
          // Refused: the instance is down; try the next one. Anything else: the request may have
          // been applied, so it is not replayed (like a real load balancer for POSTs).
          if ((error as { code?: string }).code !== 'ECONNREFUSED') break;
        }
      }
      res.writeHead(502, { 'content-type': 'application/json' }).end('{"error":"bad_gateway"}');
      lb.onForward?.({ backend: undefined, url: req.url ?? '/', body, status: 502, forwardedAt: performance.now() });
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  lb.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  lb.close = async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await agent.close();
  };
  return lb;
}
