// Baseline for the slash-command benchmark: a bare node:http server that reads the body, verifies
// the Slack signature (the same v0 HMAC, constant-time compare) and answers 200 with nothing else.
// Run as a child process, like the app, so both pay the same process and loopback costs.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const secret = process.env.SLACK_SIGNING_SECRET ?? '';
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const timestamp = String(req.headers['x-slack-request-timestamp'] ?? '');
    const given = Buffer.from(String(req.headers['x-slack-signature'] ?? ''));
    const expected = Buffer.from(
      `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:`).update(Buffer.concat(chunks)).digest('hex')}`,
    );
    const fresh = Math.abs(Date.now() / 1000 - Number(timestamp)) <= 300;
    const ok = fresh && given.length === expected.length && timingSafeEqual(given, expected);
    res.writeHead(ok ? 200 : 401).end();
  });
});
server.listen(0, '127.0.0.1', () => {
  console.log(
    JSON.stringify({ msg: 'kudos app listening', url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }),
  );
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
