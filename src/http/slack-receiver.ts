// A Bolt Receiver for our own node:http server. Compared with Bolt's HTTPReceiver it caps the body
// BEFORE verifying, refuses timestamps more than 5 minutes off in either direction, parses forms
// whatever their charset parameter, and answers malformed payloads with 400 without disturbing the app.
import type { IncomingMessage, ServerResponse } from 'node:http';

import type { App, Receiver, ReceiverEvent } from '@slack/bolt';

import type { Logger } from '../config/logger.js';
import { answerListenerFailure, type FailureAnswer, requestKind } from '../slack/listening/listener-failure.js';
import { ignoredKindLog, slackPayloadProblem, unusedSlackKind } from '../slack/listening/payload-shape.js';
import { BodyTooLargeError, DEFAULT_BODY_LIMIT_BYTES, readBody, sendJson } from './body.js';
import { verifySlackSignature } from './slack-signature.js';

export interface SlackReceiverOptions {
  signingSecret: string;
  logger: Logger;
  bodyLimitBytes?: number;
  /** Seconds since the epoch; tests may move it. */
  nowSeconds?: () => number;
  /** How long a listener has to call ack() before we answer for it (Slack gives up at 3 s). */
  ackTimeoutMs?: number;
  /**
   * Called with the app's public base URL as a verified Slack request reached it (X-Forwarded-Proto/Host
   * behind a proxy, else Host): where Slack, and so the Rewards API, can reach the app.
   */
  onPublicUrl?: (url: string) => void;
}

export class MalformedPayloadError extends Error {
  override readonly name = 'MalformedPayloadError';
  readonly code = 'MALFORMED_PAYLOAD';
}

export class SlackReceiver implements Receiver {
  private app: App | undefined;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly ignoredKind: (kind: string) => void;

  constructor(private readonly opts: SlackReceiverOptions) {
    this.ignoredKind = ignoredKindLog(opts.logger);
  }

  init(app: App): void {
    this.app = app;
  }

  // The HTTP server is owned by src/http/server.ts; start/stop only exist for Bolt's interface.
  async start(): Promise<void> {}

  /** Waits for requests already handed to Bolt. */
  async stop(): Promise<void> {
    await Promise.allSettled([...this.inFlight]);
  }

  /** Handles one POST /slack/events. */
  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const log = this.opts.logger;
    let rawBody: Buffer;
    try {
      rawBody = await readBody(req, this.opts.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES);
    } catch (error) {
      if (error instanceof BodyTooLargeError) {
        log.warn('slack request refused: body too large', { path: req.url });
        res.setHeader('Connection', 'close');
        return sendJson(res, 413, { error: { code: 'PAYLOAD_TOO_LARGE' } });
      }
      throw error;
    }

    const check = verifySlackSignature({
      secret: this.opts.signingSecret,
      rawBody,
      timestampHeader: header(req, 'x-slack-request-timestamp'),
      signatureHeader: header(req, 'x-slack-signature'),
      nowSeconds: this.opts.nowSeconds?.() ?? Math.floor(Date.now() / 1000),
    });
    if (!check.ok) {
      log.warn('slack request refused: signature check failed', { reason: check.reason });
      res.writeHead(401).end();
      return;
    }

    this.opts.onPublicUrl?.(publicUrlOf(req));
    let body: Record<string, unknown>;
    try {
      body = parseSlackBody(rawBody, header(req, 'content-type'));
    } catch (error) {
      log.warn('slack request refused: malformed payload', { error });
      return sendJson(res, 400, { error: { code: 'MALFORMED_PAYLOAD' } });
    }

    if (body.ssl_check === '1') return void res.writeHead(200).end();
    if (body.type === 'url_verification') return sendJson(res, 200, { challenge: body.challenge });
    const unused = unusedSlackKind(body);
    if (unused) {
      this.ignoredKind(unused);
      return void res.writeHead(200).end();
    }
    if (!this.app) return sendJson(res, 503, { error: { code: 'NOT_READY' } });

    const work = this.dispatch(req, res, body);
    this.inFlight.add(work);
    try {
      await work;
    } finally {
      this.inFlight.delete(work);
    }
  }

  private async dispatch(req: IncomingMessage, res: ServerResponse, body: Record<string, unknown>): Promise<void> {
    const log = this.opts.logger;
    let acked = false;
    const timer = setTimeout(() => {
      if (acked) return;
      acked = true;
      // The listener is still at work (a busy moment): an answer Slack takes, never a 5xx, which
      // Slack shows as an error (a person then submits again) or redelivers (an event handled twice).
      // The listener goes on; what it acknowledges later is logged and dropped.
      log.warn('slack request not acknowledged in time: answered for it', { kind: requestKind(body) });
      writeAck(res, body.type === 'block_suggestion' ? { options: [] } : undefined);
    }, this.opts.ackTimeoutMs ?? 2900);
    const ack: ReceiverEvent['ack'] = async (response?: unknown) => {
      if (acked) {
        // Late or second ack: Slack has its answer already; log rather than throw into the listener.
        log.warn('ack() after the request was answered', { kind: requestKind(body) });
        return;
      }
      acked = true;
      clearTimeout(timer);
      writeAck(res, response);
    };
    const retryNum = Number(header(req, 'x-slack-retry-num'));
    const event: ReceiverEvent = {
      body,
      ack,
      ...(Number.isInteger(retryNum) ? { retryNum } : {}),
      ...(header(req, 'x-slack-retry-reason') ? { retryReason: header(req, 'x-slack-retry-reason')! } : {}),
    };
    try {
      await this.app!.processEvent(event);
    } catch (error) {
      // The same decision as over Socket Mode (slack/listening/listener-failure.ts); here it is written as HTTP.
      const answer = await answerListenerFailure(log, error, body, acked);
      if (answer && !acked) {
        acked = true;
        clearTimeout(timer);
        writeFailure(res, answer);
      }
    } finally {
      // A request no listener acknowledged (e.g. an action we do not handle) is answered at once.
      if (!acked) {
        acked = true;
        clearTimeout(timer);
        res.writeHead(200).end();
      }
    }
  }
}

/** A listener's failure (slack/listening/listener-failure.ts) as HTTP: 400 for a shape Slack never sends, 500 for Slack to deliver again. */
function writeFailure(res: ServerResponse, answer: FailureAnswer): void {
  if (answer.kind === 'malformed') return sendJson(res, 400, { error: { code: 'MALFORMED_PAYLOAD' } });
  if (answer.kind === 'redeliver') return sendJson(res, 500, { error: { code: 'LISTENER_FAILED' } });
  if (answer.body) return sendJson(res, 200, answer.body);
  res.writeHead(200).end();
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function writeAck(res: ServerResponse, response: unknown): void {
  if (res.headersSent) return;
  if (response === undefined || response === null || response === '') return void res.writeHead(200).end();
  if (typeof response === 'string') {
    res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' });
    return void res.end(response);
  }
  sendJson(res, 200, response);
}

/** Slack sends forms (commands; interactivity as `payload=<json>`) and JSON (Events API). */
export function parseSlackBody(rawBody: Buffer, contentType: string | undefined): Record<string, unknown> {
  const mime = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  const text = rawBody.toString('utf8');
  let parsed: unknown;
  if (mime === 'application/x-www-form-urlencoded') {
    const form = new URLSearchParams(text);
    const payload = form.get('payload');
    if (payload !== null) {
      parsed = parseJson(payload);
    } else {
      parsed = Object.fromEntries(form.entries());
    }
  } else if (mime === 'application/json') {
    parsed = parseJson(text);
  } else {
    throw new MalformedPayloadError(`unsupported content type ${JSON.stringify(contentType ?? '')}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new MalformedPayloadError('payload is not an object');
  const record = parsed as Record<string, unknown>;
  if (record.ssl_check === '1') return record;
  const problem = slackPayloadProblem(record);
  if (problem) throw new MalformedPayloadError(`payload does not have the shape Slack sends: ${problem}`);
  return record;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new MalformedPayloadError('payload is not valid JSON');
  }
}

/** The base URL the request was sent to, as the sender saw it (first proxy hop's view when forwarded). */
export function publicUrlOf(req: IncomingMessage): string {
  const first = (name: string) => header(req, name)?.split(',')[0]?.trim() || undefined;
  const proto = first('x-forwarded-proto') ?? ((req.socket as { encrypted?: boolean }).encrypted ? 'https' : 'http');
  const candidate = first('x-forwarded-host') ?? first('host');
  const host = candidate && /^[A-Za-z0-9.:[\]-]{1,255}$/.test(candidate) ? candidate : 'localhost';
  return `${proto === 'https' ? 'https' : 'http'}://${host}`;
}
