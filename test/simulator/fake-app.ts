// A bare HTTP server standing in for the app: records the raw requests the simulator sends and answers
// whatever the test queues (default 200 with an empty body).
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface FakeApp {
  url: string;
  requests: RecordedRequest[];
  /** The next answers, in order; when empty the app answers 200 with an empty body. */
  answers: Array<{ status?: number; json?: unknown; text?: string }>;
  close(): Promise<void>;
}

export async function startFakeApp(): Promise<FakeApp> {
  const requests: RecordedRequest[] = [];
  const answers: FakeApp['answers'] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      requests.push({
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      const a = answers.shift() ?? {};
      if (a.json !== undefined) {
        res.writeHead(a.status ?? 200, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify(a.json));
      } else {
        res.writeHead(a.status ?? 200);
        res.end(a.text ?? '');
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    answers,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

/** The payload JSON of an interactivity request (`payload=<json>` form). */
export function payloadOf(r: RecordedRequest): Record<string, unknown> {
  return JSON.parse(new URLSearchParams(r.body).get('payload') ?? 'null') as Record<string, unknown>;
}
