// Slack's Socket Mode server, played by the simulator: `apps.connections.open` (app-level token)
// answers a one-time WebSocket URL served here; a connection gets `hello`, then envelopes
// `{envelope_id, type, payload, accepts_response_payload[, retry_attempt, retry_reason]}`, and the
// app acknowledges each with `{envelope_id, payload?}` on the same socket.
//
// What Slack does that the app must survive, reproduced on demand:
// - `disconnect` messages (`refresh_requested`, `warning`, `link_disabled`);
// - sockets dropped without a close handshake, after an envelope was written or in the middle of
//   its frame;
// - an app token revoked, or Socket Mode turned off for the app (`link_disabled`).
// Delivery rules (Slack's, as far as its documentation goes; choices marked):
// - each envelope goes to one open connection (round robin when the app holds several);
// - Slack waits 3 s for an ack. An Events API envelope not acknowledged in time, or whose connection
//   closed first, is delivered again with a new envelope_id, the same event_id, `retry_attempt` + 1
//   and `retry_reason` (at most 3 retries), on whichever connection is open then;
// - a slash command or interaction has no retry: without an ack within 3 s its user sees Slack's
//   error. Choice: one sent while no connection is open waits for one, within those 3 s.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';

import { type WebSocket, WebSocketServer } from 'ws';

export type EnvelopeType = 'events_api' | 'slash_commands' | 'interactive';
type Json = Record<string, unknown>;

export const SOCKET_ACK_DEADLINE_MS = 3000;
const MAX_EVENT_RETRIES = 3;
export const LINK_PATH = '/socket-mode/link/';

export interface SocketAnswer {
  acknowledged: boolean;
  /** The ack's payload ('' when empty or absent). */
  payload: unknown;
  ms: number;
}

/** One message the simulator wrote to the app, or one the app sent back, in order. */
export interface SocketTrafficEntry {
  direction: 'to-app' | 'from-app';
  connection: number;
  message: Json;
}

interface Connection {
  id: number;
  ws: WebSocket;
  raw: Duplex;
  ready: boolean;
}

interface Pending {
  envelopeId: string;
  type: EnvelopeType;
  payload: Json;
  retryAttempt: number;
  connection: number;
  started: number;
  timer: NodeJS.Timeout;
  resolve: (answer: SocketAnswer) => void;
}

export interface SocketModeServerOptions {
  appToken: string;
  appId: string;
  /** `ws://host:port` of the simulator. */
  baseWsUrl: () => string;
  onChange: () => void;
}

export class SocketModeServer {
  private readonly wss = new WebSocketServer({ noServer: true });
  private readonly tickets = new Set<string>();
  private readonly connections = new Map<number, Connection>();
  private readonly pending = new Map<string, Pending>();
  private nextConnectionId = 1;
  private roundRobin = 0;
  private revoked = false;
  private linkDisabled = false;
  private dropNext: 'after-write' | 'mid-frame' | undefined;
  private waitingForConnection: Array<() => void> = [];
  /** Every message both ways (tests read it). */
  readonly traffic: SocketTrafficEntry[] = [];
  /** Acks for an envelope already acknowledged, or unknown: Slack ignores them; counted here. */
  ignoredAcks = 0;
  /** How many times apps.connections.open was answered with a URL. */
  opened = 0;

  constructor(private readonly opts: SocketModeServerOptions) {}

  /** `apps.connections.open`: Slack's Web API answer for this token. */
  open(token: string | undefined): Json {
    if (!token) return { ok: false, error: 'not_authed' };
    if (token.startsWith('xox')) return { ok: false, error: 'not_allowed_token_type' };
    if (token !== this.opts.appToken) return { ok: false, error: 'invalid_auth' };
    if (this.revoked) return { ok: false, error: 'token_revoked' };
    const ticket = randomUUID();
    this.tickets.add(ticket);
    this.opened++;
    return { ok: true, url: `${this.opts.baseWsUrl()}${LINK_PATH}?ticket=${ticket}&app_id=${this.opts.appId}` };
  }

  /** The HTTP server's `upgrade` event; false when the path is not ours. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): boolean {
    const url = new URL(req.url ?? '/', 'http://simulator.invalid');
    if (url.pathname !== LINK_PATH) return false;
    const ticket = url.searchParams.get('ticket') ?? '';
    if (!this.tickets.delete(ticket)) {
      socket.end('HTTP/1.1 401 Unauthorized\r\nConnection: close\r\n\r\n');
      return true;
    }
    this.wss.handleUpgrade(req, socket, head, (ws) => this.accept(ws, socket));
    return true;
  }

  private accept(ws: WebSocket, raw: Duplex): void {
    const conn: Connection = { id: this.nextConnectionId++, ws, raw, ready: false };
    this.connections.set(conn.id, conn);
    ws.on('message', (data) => this.onAppMessage(conn, String(data)));
    ws.on('close', () => this.closed(conn));
    ws.on('error', () => this.closed(conn));
    if (this.linkDisabled) {
      this.write(conn, { type: 'disconnect', reason: 'link_disabled', debug_info: { host: 'applink-simulator' } });
      ws.close(1000);
      return;
    }
    this.write(conn, {
      type: 'hello',
      num_connections: this.readyConnections().length + 1,
      debug_info: { host: 'applink-simulator', build_number: 1, approximate_connection_time: 18060 },
      connection_info: { app_id: this.opts.appId },
    });
    conn.ready = true;
    this.opts.onChange();
    for (const wake of this.waitingForConnection.splice(0)) wake();
  }

  private write(conn: Connection, message: Json): void {
    this.traffic.push({ direction: 'to-app', connection: conn.id, message });
    conn.ws.send(JSON.stringify(message));
  }

  private readyConnections(): Connection[] {
    return [...this.connections.values()].filter((c) => c.ready && c.ws.readyState === c.ws.OPEN);
  }

  /** Connections that said hello and are open. */
  get openConnections(): number {
    return this.readyConnections().length;
  }

  private onAppMessage(conn: Connection, text: string): void {
    let message: Json;
    try {
      message = JSON.parse(text) as Json;
    } catch {
      this.ignoredAcks++;
      return;
    }
    this.traffic.push({ direction: 'from-app', connection: conn.id, message });
    const envelopeId = typeof message.envelope_id === 'string' ? message.envelope_id : '';
    const p = this.pending.get(envelopeId);
    if (!p) {
      this.ignoredAcks++;
      return;
    }
    this.pending.delete(envelopeId);
    clearTimeout(p.timer);
    const payload = message.payload;
    const empty =
      payload === undefined || payload === null || (typeof payload === 'object' && Object.keys(payload).length === 0);
    p.resolve({ acknowledged: true, payload: empty ? '' : payload, ms: Date.now() - p.started });
    this.opts.onChange();
  }

  private closed(conn: Connection): void {
    if (!this.connections.delete(conn.id)) return;
    // Envelopes written to this connection and not acknowledged: events are retried, the rest fail.
    for (const p of [...this.pending.values()]) {
      if (p.connection === conn.id) this.unacknowledged(p, 'connection_closed');
    }
    this.opts.onChange();
  }

  private unacknowledged(p: Pending, why: 'timeout' | 'connection_closed'): void {
    if (!this.pending.delete(p.envelopeId)) return;
    clearTimeout(p.timer);
    if (p.type === 'events_api' && p.retryAttempt < MAX_EVENT_RETRIES) {
      void this.send(p.type, p.payload, {
        retryAttempt: p.retryAttempt + 1,
        retryReason: why === 'timeout' ? 'timeout' : 'connection_failed',
        started: p.started,
      }).then(p.resolve);
      return;
    }
    p.resolve({ acknowledged: false, payload: '', ms: Math.max(Date.now() - p.started, SOCKET_ACK_DEADLINE_MS + 1) });
  }

  /**
   * Delivers one envelope and resolves with the app's ack (or its absence). Events are retried as
   * Slack does; the answer is the one that finally came.
   */
  send(
    type: EnvelopeType,
    payload: Json,
    retry: { retryAttempt: number; retryReason?: string; started?: number } = { retryAttempt: 0 },
  ): Promise<SocketAnswer> {
    const started = retry.started ?? Date.now();
    return new Promise<SocketAnswer>((resolve) => {
      const attempt = () => {
        const ready = this.readyConnections();
        const conn = ready[this.roundRobin++ % Math.max(ready.length, 1)];
        if (!conn) return false;
        const envelopeId = randomUUID();
        const message: Json = {
          envelope_id: envelopeId,
          type,
          payload,
          accepts_response_payload: acceptsResponsePayload(type, payload),
          ...(type === 'events_api'
            ? { retry_attempt: retry.retryAttempt, retry_reason: retry.retryReason ?? '' }
            : {}),
        };
        const p: Pending = {
          envelopeId,
          type,
          payload,
          retryAttempt: retry.retryAttempt,
          connection: conn.id,
          started,
          resolve,
          timer: setTimeout(() => this.unacknowledged(p, 'timeout'), SOCKET_ACK_DEADLINE_MS),
        };
        this.pending.set(envelopeId, p);
        const drop = this.dropNext;
        this.dropNext = undefined;
        if (drop === 'mid-frame') {
          // Half of the frame, then the TCP connection is gone: the app never sees this envelope.
          this.traffic.push({ direction: 'to-app', connection: conn.id, message });
          const frame = unmaskedTextFrame(JSON.stringify(message));
          conn.raw.write(frame.subarray(0, Math.floor(frame.length / 2)));
          conn.raw.destroy();
          this.closed(conn);
        } else {
          this.write(conn, message);
          if (drop === 'after-write') {
            conn.raw.destroy();
            this.closed(conn);
          }
        }
        return true;
      };
      if (attempt()) return;
      // No connection open. Events wait for one (Slack retries them); interactions wait within the deadline.
      const deadline =
        type === 'events_api'
          ? undefined
          : setTimeout(
              () => {
                this.waitingForConnection = this.waitingForConnection.filter((w) => w !== wake);
                resolve({ acknowledged: false, payload: '', ms: SOCKET_ACK_DEADLINE_MS + 1 });
              },
              Math.max(0, SOCKET_ACK_DEADLINE_MS - (Date.now() - started)),
            );
      const wake = () => {
        if (deadline) clearTimeout(deadline);
        if (!attempt()) this.waitingForConnection.push(wake);
      };
      this.waitingForConnection.push(wake);
    });
  }

  /** Writes any message as is (tests: unknown envelope types, duplicates). */
  sendRaw(message: Json): void {
    const conn = this.readyConnections()[0];
    if (!conn) throw new Error('simulator: no Socket Mode connection is open');
    this.write(conn, message);
  }

  /** Slack's `disconnect` message on every open connection; Slack closes them 10 s later if the app does not. */
  disconnect(reason: 'refresh_requested' | 'warning' | 'link_disabled' = 'refresh_requested'): void {
    for (const conn of this.readyConnections()) {
      this.write(conn, { type: 'disconnect', reason, debug_info: { host: 'applink-simulator' } });
      const timer = setTimeout(() => conn.ws.terminate(), 10_000);
      timer.unref();
    }
  }

  /** Every open connection dropped without a close frame (a network cut). */
  dropConnections(): void {
    for (const conn of [...this.connections.values()]) {
      conn.raw.destroy();
      this.closed(conn);
    }
  }

  /** The next envelope's connection is dropped right after writing it, or in the middle of its frame. */
  dropOnNextEnvelope(how: 'after-write' | 'mid-frame'): void {
    this.dropNext = how;
  }

  /** Turns Socket Mode off for the app: `link_disabled` now and on every new connection. */
  disableLink(): void {
    this.linkDisabled = true;
    this.disconnect('link_disabled');
  }

  enableLink(): void {
    this.linkDisabled = false;
  }

  /** The app token stops working: apps.connections.open answers token_revoked; open sockets close. */
  revokeAppToken(): void {
    this.revoked = true;
    for (const conn of this.readyConnections()) conn.ws.close(1000);
  }

  close(): void {
    for (const p of [...this.pending.values()]) {
      clearTimeout(p.timer);
      p.resolve({ acknowledged: false, payload: '', ms: 0 });
    }
    this.pending.clear();
    for (const conn of this.connections.values()) conn.ws.terminate();
    this.connections.clear();
    this.wss.close();
  }
}

/** Slack expects an answer payload for slash commands, view submissions and options loads. */
function acceptsResponsePayload(type: EnvelopeType, payload: Json): boolean {
  if (type === 'slash_commands') return true;
  return type === 'interactive' && (payload.type === 'view_submission' || payload.type === 'block_suggestion');
}

/** A WebSocket text frame as a server sends it (FIN, no mask). */
function unmaskedTextFrame(text: string): Buffer {
  const body = Buffer.from(text, 'utf8');
  let header: Buffer;
  if (body.length < 126) header = Buffer.from([0x81, body.length]);
  else if (body.length < 65_536) {
    header = Buffer.alloc(4);
    header[0] = 0x81;
    header[1] = 126;
    header.writeUInt16BE(body.length, 2);
  } else {
    header = Buffer.alloc(10);
    header[0] = 0x81;
    header[1] = 127;
    header.writeBigUInt64BE(BigInt(body.length), 2);
  }
  return Buffer.concat([header, body]);
}

/** The simulated app's app-level token (connections:write). */
export const SIMULATOR_APP_TOKEN = 'xapp-1-A0KUDOS-1-kudos-simulator';
