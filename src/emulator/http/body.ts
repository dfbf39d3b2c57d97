import type { Context } from 'hono';
import type { z } from 'zod';

import { ApiError } from '../errors.js';

/** Reads the raw body with a byte cap (413 beyond it). */
export async function readRawBody(c: Context, limitBytes: number): Promise<string> {
  const declared = Number(c.req.header('content-length') ?? '0');
  if (declared > limitBytes) throw tooLarge(limitBytes);
  const stream = c.req.raw.body;
  if (!stream) return '';
  const reader = (stream as ReadableStream<Uint8Array>).getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limitBytes) {
      await reader.cancel().catch(() => {});
      throw tooLarge(limitBytes);
    }
    chunks.push(value);
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks));
  } catch {
    throw new ApiError('INVALID_JSON', 'Request body is not valid UTF-8');
  }
}

function tooLarge(limit: number): ApiError {
  return new ApiError('PAYLOAD_TOO_LARGE', `Request body exceeds ${limit} bytes`);
}

function mediaType(c: Context): string {
  return (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
}

/** Parses a JSON body (415 for another content type, 400 INVALID_JSON if malformed). */
export async function readJson(c: Context, limitBytes: number): Promise<unknown> {
  if (mediaType(c) !== 'application/json') {
    throw new ApiError('UNSUPPORTED_MEDIA_TYPE', 'Content-Type must be application/json');
  }
  const raw = await readRawBody(c, limitBytes);
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    throw new ApiError('INVALID_JSON', 'Request body is not valid JSON');
  }
}

/** Parses a form body (the token endpoint). */
export async function readForm(c: Context, limitBytes: number): Promise<URLSearchParams> {
  if (mediaType(c) !== 'application/x-www-form-urlencoded') {
    throw new ApiError('UNSUPPORTED_MEDIA_TYPE', 'Content-Type must be application/x-www-form-urlencoded');
  }
  return new URLSearchParams(await readRawBody(c, limitBytes));
}

export function validate<S extends z.ZodType>(schema: S, value: unknown, what = 'Request body'): z.infer<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => ({ path: i.path.map(String).join('.'), message: i.message }));
    const first = issues[0];
    throw new ApiError(
      'VALIDATION_ERROR',
      `${what} is invalid${first ? `: ${first.path ? `${first.path}: ` : ''}${first.message}` : ''}`,
      { issues },
    );
  }
  return parsed.data;
}

/** Reads a JSON body and validates it. */
export async function readBody<S extends z.ZodType>(c: Context, limitBytes: number, schema: S): Promise<z.infer<S>> {
  return validate(schema, await readJson(c, limitBytes));
}
