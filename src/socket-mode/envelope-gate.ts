// Sits between the WebSocket and @slack/socket-mode's message handler (its `ws_message` listener,
// which it registers on itself) and sees every acknowledgement (its `send`). Decides per message:
// - `hello`: passed on (the client then reports `connected`);
// - `disconnect`: Slack wants this connection gone (refresh, too many sockets, link_disabled). The
//   envelopes being handled are acknowledged on this socket first (at most Slack's ack deadline),
//   then it is passed on and the connection loop opens a new one: nothing in hand is lost;
// - an envelope delivered again with an envelope_id already answered: sent the same answer, not
//   handled again; one still being handled: dropped (its answer is coming);
// - an envelope of a type the app does not know, or without the payload Slack sends for its type:
//   acknowledged (so Slack does not redeliver it forever), one log line, never handed to Bolt (whose
//   handler would throw on a missing `payload.event`);
// - an interactive payload of a kind the app does not use (a legacy `interactive_message`, a dialog):
//   acknowledged, logged once per kind at debug, never handed to Bolt (as over HTTP);
// - anything else: remembered as "in hand" until acknowledged, and handed to the client as is.
import type { SocketModeClient } from '@slack/socket-mode';

import type { Logger } from '../config/logger.js';
import { ignoredKindLog, slackPayloadProblem, unusedSlackKind } from '../slack/listening/payload-shape.js';

type MessageHandler = (data: unknown, isBinary: boolean) => Promise<void> | void;
type AckBody = Record<string, unknown> | string | undefined;

/** Envelope types Slack sends over Socket Mode that carry work for Bolt. */
const WORK_TYPES = new Set(['events_api', 'slash_commands', 'interactive']);
/** Answers kept to re-send to a redelivered envelope_id. */
const ANSWERS_KEPT = 5000;

export interface EnvelopeGateOptions {
  logger: Logger;
  /** Slack's ack deadline: an envelope in hand longer than this is logged once. */
  ackDeadlineMs: number;
  onLinkDisabled: () => void;
}

export class EnvelopeGate {
  /** Envelopes handed to Bolt and not acknowledged yet, with their deadline timers. */
  private readonly inHand = new Map<string, { kind: string; timer: NodeJS.Timeout }>();
  private readonly answers = new Map<string, AckBody>();
  private drained: Array<() => void> = [];
  private readonly ignoredKind: (kind: string) => void;

  constructor(
    private readonly client: SocketModeClient,
    private readonly opts: EnvelopeGateOptions,
  ) {
    this.ignoredKind = ignoredKindLog(opts.logger);
    const [original] = client.listeners('ws_message') as MessageHandler[];
    if (!original)
      throw new Error(
        '@slack/socket-mode registers no ws_message handler: the envelope gate needs updating for this SDK version',
      );
    client.removeAllListeners('ws_message');
    client.on('ws_message', (data: unknown, isBinary: boolean) => {
      this.onMessage(data, isBinary, original).catch((error: unknown) =>
        opts.logger.error('slack socket message failed', { error }),
      );
    });
    // `send` is private in the SDK's types, but it is what the client's ack() calls.
    const raw = client as unknown as { send(envelopeId: string, body?: AckBody): Promise<void> };
    const send = raw.send.bind(client);
    raw.send = (envelopeId: string, body?: AckBody) => {
      this.answered(envelopeId, body);
      return send(envelopeId, body).catch((error: unknown) => {
        // The socket closed under the ack. Slack redelivers events it did not get an ack for; an
        // interactive request shows its user Slack's error, as an HTTP request cut short would.
        opts.logger.warn('slack envelope acknowledgement lost: the socket closed before it was sent', {
          envelopeId,
          error,
        });
      });
    };
  }

  private ack(envelopeId: string, body?: AckBody): Promise<void> {
    return (this.client as unknown as { send(envelopeId: string, body?: AckBody): Promise<void> }).send(
      envelopeId,
      body,
    );
  }

  /** Whether this envelope has been acknowledged (or answered by the gate). */
  wasAcknowledged(envelopeId: string): boolean {
    return this.answers.has(envelopeId);
  }

  /** Resolves once no envelope is in hand, or after `timeoutMs`. */
  drain(timeoutMs: number): Promise<void> {
    if (this.inHand.size === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      this.drained.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /** The socket closed: envelopes still in hand will have their acks lost (and logged). */
  connectionClosed(): void {
    if (this.inHand.size > 0)
      this.opts.logger.warn('slack socket closed with envelopes not yet acknowledged', { envelopes: this.inHand.size });
  }

  private answered(envelopeId: string, body: AckBody): void {
    const held = this.inHand.get(envelopeId);
    if (held) {
      clearTimeout(held.timer);
      this.inHand.delete(envelopeId);
    }
    this.answers.set(envelopeId, body);
    if (this.answers.size > ANSWERS_KEPT) this.answers.delete(this.answers.keys().next().value!);
    if (this.inHand.size === 0) {
      for (const resolve of this.drained.splice(0)) resolve();
    }
  }

  private async onMessage(data: unknown, isBinary: boolean, original: MessageHandler): Promise<void> {
    const log = this.opts.logger;
    if (isBinary) return original(data, isBinary);
    let message: { type?: unknown; reason?: unknown; envelope_id?: unknown; payload?: unknown };
    try {
      message = JSON.parse(String(data)) as typeof message;
    } catch {
      log.warn('slack socket message that is not JSON ignored');
      return;
    }
    if (typeof message !== 'object' || message === null)
      return void log.warn('slack socket message that is not an object ignored');
    const type = typeof message.type === 'string' ? message.type : '';
    if (type === 'hello') return original(data, isBinary);
    if (type === 'disconnect') {
      if (message.reason === 'link_disabled') {
        this.opts.onLinkDisabled();
      } else {
        log.info('slack asked for a new connection', { reason: message.reason, envelopesInHand: this.inHand.size });
        await this.drain(this.opts.ackDeadlineMs);
      }
      return original(data, isBinary);
    }
    const envelopeId = message.envelope_id;
    if (typeof envelopeId !== 'string' || envelopeId === '')
      return void log.warn('slack socket message without an envelope_id ignored', { type });
    if (!WORK_TYPES.has(type)) {
      log.warn('slack envelope of a type the app does not handle: acknowledged and ignored', { type, envelopeId });
      return this.ack(envelopeId);
    }
    const problem = payloadProblem(type, message.payload);
    if (problem) {
      log.warn('malformed slack envelope: acknowledged and ignored', { type, envelopeId, problem });
      return this.ack(envelopeId);
    }
    const unused = type === 'interactive' ? unusedSlackKind(message.payload as Record<string, unknown>) : undefined;
    if (unused) {
      this.ignoredKind(unused);
      return this.ack(envelopeId);
    }
    if (this.answers.has(envelopeId)) {
      log.info('slack envelope delivered again: answered as before, not handled again', { type, envelopeId });
      return this.ack(envelopeId, this.answers.get(envelopeId));
    }
    if (this.inHand.has(envelopeId))
      return void log.info('slack envelope delivered again while being handled: ignored', { type, envelopeId });
    const kind = `${type} ${kindOfPayload(message.payload)}`;
    const timer = setTimeout(
      () => log.error('slack envelope not acknowledged in time', { kind, envelopeId }),
      this.opts.ackDeadlineMs,
    );
    timer.unref();
    this.inHand.set(envelopeId, { kind, timer });
    return original(data, isBinary);
  }
}

function payloadProblem(type: string, payload: unknown): string | undefined {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return 'payload is not an object';
  const problem = slackPayloadProblem(payload);
  if (problem) return problem;
  const p = payload as { type?: unknown; command?: unknown };
  if (type === 'events_api' && p.type !== 'event_callback') return 'events_api payload is not an event_callback';
  if (type === 'slash_commands' && typeof p.command !== 'string') return 'slash_commands payload has no command';
  if (type === 'interactive' && (typeof p.type !== 'string' || p.type === 'event_callback'))
    return 'interactive payload has no interaction type';
  return undefined;
}

function kindOfPayload(payload: unknown): string {
  const p = payload as { command?: unknown; type?: unknown; event?: { type?: unknown } };
  if (typeof p.command === 'string') return p.command;
  if (typeof p.event?.type === 'string') return p.event.type;
  return typeof p.type === 'string' ? p.type : '';
}
