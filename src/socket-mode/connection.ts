// Socket Mode (the README's installation modes): Bolt's SocketModeReceiver, kept connected by us.
//
// Bolt's receiver and @slack/socket-mode's client do the protocol (apps.connections.open, hello,
// envelopes, acks over the socket). Around them this module adds what "lose nothing, do nothing
// twice" needs and the client leaves out:
// - reconnecting ourselves (the client's own auto-reconnect is off): at once after a `disconnect`
//   message or a dropped socket, with a backoff after failures, and without the client's
//   unhandled rejection when apps.connections.open fails during a reconnect;
// - `link_disabled` and a refused app token (revoked, wrong) are one error line and the state
//   `failed` (/healthz 503); the app keeps asking, slowly, so re-enabling Socket Mode heals it;
// - an envelope gate in front of the client's message handler (envelope-gate.ts): a `disconnect`
//   waits for the envelopes being handled to be acknowledged, an envelope delivered twice is
//   answered with the first answer and not handled again, unknown or malformed envelopes are
//   acknowledged and logged once instead of crashing or being redelivered forever;
// - an ack that can no longer be sent (the socket went away) is one warning, not a listener error:
//   Slack redelivers what it did not get, as over HTTP.
import { type Logger as BoltLogger, LogLevel, SocketModeReceiver } from '@slack/bolt';
import type { SocketModeClient } from '@slack/socket-mode';

import type { Logger } from '../config/logger.js';
import { answerListenerFailure } from '../slack/listening/listener-failure.js';
import { EnvelopeGate } from './envelope-gate.js';

/** `failed`: Slack refused the app token or disabled Socket Mode; still retried, slowly. */
export type SocketState = 'connecting' | 'connected' | 'failed' | 'stopped';

export interface SocketModeConnectionOptions {
  appToken: string;
  /** Base URL of the Web API (apps.connections.open goes there). */
  slackApiUrl: string;
  logger: Logger;
  onStateChange?: (state: SocketState) => void;
  /** Delays between failed connection attempts; the last one repeats. */
  retryDelaysMs?: number[];
  /** Delay between attempts once Slack refused the token or disabled the link. Default 60 s. */
  failedRetryMs?: number;
  /** How long a `disconnect` waits for envelopes in hand to be acknowledged; Slack's ack deadline. */
  ackDeadlineMs?: number;
}

/** apps.connections.open errors that no retry will fix: the token itself is refused. */
const REFUSED_TOKEN = new Set([
  'not_authed',
  'invalid_auth',
  'account_inactive',
  'token_revoked',
  'token_expired',
  'team_disabled',
  'user_removed_from_team',
  'not_allowed_token_type',
  'missing_scope',
  'app_uninstalled',
]);

export class SocketModeConnection {
  readonly receiver: SocketModeReceiver;
  readonly gate: EnvelopeGate;
  private readonly client: SocketModeClient;
  private current: SocketState = 'connecting';
  private stopping = false;
  private loop: Promise<void> | undefined;
  private wakeLoop: (() => void) | undefined;
  /** The error already reported by one line (not repeated while it lasts). */
  private reportedFailure: string | undefined;
  private connects = 0;

  constructor(private readonly opts: SocketModeConnectionOptions) {
    const log = opts.logger;
    this.receiver = new SocketModeReceiver({
      appToken: opts.appToken,
      // Our reconnect loop instead of the client's (see the header).
      autoReconnectEnabled: false,
      // The SDK's own lines are details; the lines that matter are ours (one per problem).
      logger: quietLogger(log),
      installerOptions: {
        clientOptions: {
          slackApiUrl: opts.slackApiUrl,
          // The loop retries; the client's default is 100 retries inside one attempt.
          retryConfig: { retries: 0 },
          timeout: 10_000,
        },
      },
      // Listeners see which envelope they answer (context.socketEnvelopeId); the gate knows whether it was acknowledged.
      customPropertiesExtractor: (args: { envelope_id?: string }) => ({ socketEnvelopeId: args.envelope_id }),
      // A listener that failed is answered as over HTTP, by the same decision (slack/listening/listener-failure.ts):
      // a shape Slack never sends is acknowledged once with nothing in it (HTTP: 400), any other failure
      // before the ack answers the user (a command's text, a modal's inline error, no options), an event
      // is left unacknowledged so that Slack delivers it again (HTTP: 500); after the ack, the
      // response_url tells the user.
      processEventErrorHandler: async ({ error, event }) => {
        const envelopeId = (event.customProperties as { socketEnvelopeId?: unknown } | undefined)?.socketEnvelopeId;
        const acked = typeof envelopeId === 'string' && this.gate.wasAcknowledged(envelopeId);
        const answer = await answerListenerFailure(log, error, event.body, acked);
        if (!answer || answer.kind === 'redeliver') return false;
        await event.ack(answer.kind === 'answer' ? answer.body : undefined);
        return false;
      },
    });
    this.client = this.receiver.client;
    this.gate = new EnvelopeGate(this.client, {
      logger: log,
      ackDeadlineMs: opts.ackDeadlineMs ?? 3000,
      onLinkDisabled: () => this.fail('link_disabled'),
    });
    this.client.on('connected', () => {
      this.connects++;
      this.reportedFailure = undefined;
      this.setState('connected');
      log.info('slack socket connected', { connection: this.connects });
    });
    this.client.on('disconnected', () => {
      this.gate.connectionClosed();
      if (this.stopping) return;
      if (this.current === 'connected') {
        this.setState('connecting');
        log.info('slack socket closed; reconnecting');
      }
      this.ensureLoop();
    });
  }

  get state(): SocketState {
    return this.current;
  }

  /** While `failed`: what Slack refused (`link_disabled`, `invalid_auth`, `token_revoked`, ...). */
  get failure(): string | undefined {
    return this.current === 'failed' ? this.reportedFailure : undefined;
  }

  /** Starts connecting in the background; `connected()` resolves once the first `hello` arrived. */
  start(): void {
    this.stopping = false;
    this.ensureLoop();
  }

  /** Resolves when the socket is connected (tests, dev). */
  connected(timeoutMs = 10_000): Promise<void> {
    if (this.current === 'connected') return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.client.off('connected', done);
        reject(new Error(`slack socket not connected within ${timeoutMs} ms (state ${this.current})`));
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        resolve();
      };
      this.client.once('connected', done);
    });
  }

  /** Stops reconnecting, waits (briefly) for envelopes in hand, closes the socket. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.wakeLoop?.();
    await this.gate.drain(1000);
    const closed = new Promise<void>((resolve) => this.client.once('disconnected', () => resolve()));
    await this.receiver.stop().catch(() => {});
    // A peer that never completes the close handshake must not hold shutdown.
    await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 1000).unref())]);
    await this.loop;
    this.setState('stopped');
  }

  private setState(next: SocketState): void {
    if (next === this.current) return;
    this.current = next;
    this.opts.onStateChange?.(next);
  }

  private fail(code: string): void {
    if (this.reportedFailure !== code) {
      this.reportedFailure = code;
      const why =
        code === 'link_disabled'
          ? 'Socket Mode is disabled for this app (turn it on under Settings > Socket Mode)'
          : 'Slack refused the app token SLACK_APP_TOKEN (revoked, or not an app-level token with connections:write)';
      this.opts.logger.error(`slack socket: ${why}`, { code });
    }
    this.setState('failed');
  }

  private ensureLoop(): void {
    this.loop ??= this.connectLoop().finally(() => {
      this.loop = undefined;
    });
  }

  private async connectLoop(): Promise<void> {
    const delays = this.opts.retryDelaysMs ?? [0, 1000, 2000, 5000, 10_000, 30_000];
    for (let attempt = 0; !this.stopping; attempt++) {
      const failed = this.current === 'failed';
      const delay = failed ? (this.opts.failedRetryMs ?? 60_000) : (delays[Math.min(attempt, delays.length - 1)] ?? 0);
      if (delay > 0) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, delay);
          this.wakeLoop = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        this.wakeLoop = undefined;
        if (this.stopping) return;
      }
      if (!failed) this.setState('connecting');
      try {
        // apps.connections.open for a fresh URL, then the socket until Slack's `hello`.
        await this.client.start();
        return;
      } catch (error) {
        if (this.stopping) return;
        const code = slackErrorCode(error);
        if (code && REFUSED_TOKEN.has(code)) {
          this.fail(code);
        } else if (this.current !== 'failed') {
          this.opts.logger.warn('slack socket: connecting failed; retrying', {
            attempt: attempt + 1,
            code: code ?? 'connection_failed',
            error,
          });
        }
      }
    }
  }
}

function slackErrorCode(error: unknown): string | undefined {
  const data = (error as { data?: { error?: unknown } } | undefined)?.data;
  return typeof data?.error === 'string' ? data.error : undefined;
}

/** Bolt's and the SDK's log lines at debug level under ours. */
function quietLogger(log: Logger): BoltLogger {
  // INFO, so that the SDK does not stringify every envelope for a debug line on the ack path.
  let level = LogLevel.INFO;
  const join = (msgs: unknown[]) =>
    msgs.map((m) => (typeof m === 'string' ? m : m instanceof Error ? m.message : JSON.stringify(m))).join(' ');
  const debug = (...msgs: unknown[]) => log.debug(join(msgs), { part: 'socket-mode' });
  return {
    debug,
    info: debug,
    warn: debug,
    error: debug,
    setLevel: (l) => {
      level = l;
    },
    getLevel: () => level,
    setName: () => {},
  };
}
