// Reads a request body into memory with a hard cap, refusing early on a large Content-Length.
import type { IncomingMessage } from 'node:http';

export const DEFAULT_BODY_LIMIT_BYTES = 1024 * 1024;

export class BodyTooLargeError extends Error {
  override readonly name = 'BodyTooLargeError';
  readonly code = 'PAYLOAD_TOO_LARGE';
}

export async function readBody(req: IncomingMessage, limitBytes = DEFAULT_BODY_LIMIT_BYTES): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limitBytes) {
    req.resume(); // drain without buffering so the connection can answer
    throw new BodyTooLargeError(`body of ${declared} bytes exceeds ${limitBytes}`);
  }
  // Event listeners rather than for-await: leaving a for-await loop destroys the socket, and the
  // client would get a reset instead of our 413.
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (chunk: Buffer) => {
      if (tooLarge) return;
      size += chunk.length;
      if (size > limitBytes) {
        tooLarge = true;
        chunks.length = 0;
        reject(new BodyTooLargeError(`body exceeds ${limitBytes} bytes`));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (!tooLarge) resolve(Buffer.concat(chunks));
    });
    req.on('error', reject);
  });
}

export function sendJson(res: import('node:http').ServerResponse, status: number, body: unknown): void {
  if (res.headersSent) return;
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
  });
  res.end(text);
}
