// startSlackSimulator: one HTTP server on 127.0.0.1 that is the Slack the app sees.
//   POST /api/<method>     the Web API (SLACK_API_URL = `${url}/api/`)
//   POST /response/<id>    response_url posts
//   GET  /                 the workspace web UI, with its JSON API under /_ui/ (ui-routes.ts)
// plus a driver (signed requests into the app's /slack/events) for tests and for the UI.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';

import { z } from 'zod';

import { type AppAnswer, type ClickTarget, SlackDriver } from './driver.js';
import { serveUpload } from './files.js';
import { defaultTeams, SimInstalls, type SimOAuthOptions, type SimTeam } from './installs.js';
import { authorizePage, handleAuthorize } from './oauth-routes.js';
import { persistTo } from './persistence.js';
import { type RateLimitCounts, type RateLimitSettings, SimulatorRateLimits, type StormOptions } from './rate-limits.js';
import { seedWorkspace, type Workspace } from './seed.js';
import { SIMULATOR_APP_TOKEN, SocketModeServer } from './socket-mode.js';
import { type ApiCall, type Message, SimulatorState, type View, type WorkflowStepRun } from './state.js';
import { handleUiRequest } from './ui-routes.js';
import { callWebApi } from './web-api.js';

export type { ApiCall, Message, View, WorkflowStepRun } from './state.js';
export type { Workspace } from './seed.js';
export type { SimOAuthOptions, SimTeam } from './installs.js';
export type { AppAnswer, ClickTarget } from './driver.js';
export type { RateLimitCounts, RateLimitSettings, StormOptions } from './rate-limits.js';

export interface SlackSimulatorOptions {
  port?: number;
  host?: string;
  /** The app's base URL; requests go to `${appUrl}/slack/events`. Can be set later with setAppUrl. */
  appUrl?: string;
  signingSecret: string;
  /** Default: the seed (seed.ts). */
  workspace?: Workspace;
  /** Default `xoxb-kudos-simulator`. Any other token gets `invalid_auth`. */
  botToken?: string;
  /** The slash command the driver sends; default `/kudos`. */
  command?: string;
  /** Clock for trigger_id / response_url lifetimes and message ts; default Date.now. */
  now?: () => number;
  /** Rewards emulator base URL, for the web UI's inbox and clock controls. */
  emulatorUrl?: string;
  /** How long a trigger_id stays valid; default Slack's 3000 ms. */
  triggerTtlMs?: number;
  /** Keep messages and Home tabs in this JSON file across restarts (npm run dev). Default: memory only. */
  persistFile?: string;
  /**
   * Socket Mode: requests reach the app as envelopes over the WebSocket it opened with
   * apps.connections.open (app token `appToken`), not as HTTP POSTs to the app URL.
   */
  socketMode?: boolean;
  /** The app-level token apps.connections.open accepts; default `xapp-1-A0KUDOS-1-kudos-simulator`. */
  appToken?: string;
  /**
   * Distribution mode (the README's installation modes): Slack's OAuth for this client id and secret, the
   * authorize page at /oauth/v2/authorize, and tokens per installation (installs.ts).
   */
  oauth?: SimOAuthOptions;
  /** The workspaces of distribution mode; default: the seed's, a second one and a Grid org with two (installs.ts). */
  teams?: SimTeam[];
  /**
   * Slack's rate limits (rate-limits.ts): on by default, at Slack's documented floors. Settings scale
   * them (`{ scale: 10 }`); `false` turns them off (a unit test about something else). A forced storm
   * of 429s (`rateLimits.storm`) happens either way.
   */
  rateLimits?: RateLimitSettings | false;
}

/** Slack's rate limits: what the simulator refused, and controls (also at /_sim/rate-limits over HTTP). */
export interface SimulatorRateLimitControls {
  /** 429s answered so far: in all, by method, by channel (posts), by workspace. */
  counts(): RateLimitCounts;
  resetCounts(): void;
  /** The next `count` calls (of `methods`, else any) get 429 with `retryAfterSeconds`, limits or not. */
  storm(opts: StormOptions): void;
  /** New settings, or `false`: off. */
  configure(settings: RateLimitSettings | false): void;
}

/** Distribution mode's controls, for tests and the web UI. */
export interface SimulatorDistribution {
  installs: SimInstalls;
  /** Requests now come from this workspace (through its org's org-wide install when `orgWide`). */
  actAs(teamId: string, opts?: { orgWide?: boolean }): void;
  /**
   * The whole "Add to Slack" flow over HTTP, as a browser does it: GET the app's /slack/install (its
   * state cookie), this simulator's authorize page, the user's decision, then the app's
   * /slack/oauth_redirect with the cookie. Answers what the browser would show last.
   */
  install(choice: {
    teamId?: string;
    enterpriseId?: string;
    orgWide?: boolean;
    deny?: boolean;
    withoutCookie?: boolean;
    userId?: string;
  }): Promise<InstallFlowResult>;
  /** apps.uninstall: the tokens stop working at once; Slack sends tokens_revoked, then app_uninstalled. */
  uninstall(key: string): Promise<void>;
}

export interface InstallFlowResult {
  /** Status and HTML of the app's /slack/oauth_redirect answer. */
  status: number;
  html: string;
  /** The redirect URL the browser followed (to replay it). */
  redirectUrl: string;
  /** The state cookie the install page set (`name=value`). */
  cookie: string | undefined;
}

/** Slack's Socket Mode server side, for tests: what went over the sockets, and Slack's faults. */
export interface SimulatorSocketMode {
  appToken: string;
  /** Connections that received `hello` and are open. */
  readonly openConnections: number;
  /** Times apps.connections.open handed out a URL. */
  readonly opened: number;
  /** Every message both ways. */
  traffic: SocketModeServer['traffic'];
  /** Acks for envelopes already acknowledged (or unknown), which Slack ignores. */
  readonly ignoredAcks: number;
  /** Resolves once at least `count` connections are open. */
  waitForConnections(count?: number, timeoutMs?: number): Promise<void>;
  disconnect(reason?: 'refresh_requested' | 'warning' | 'link_disabled'): void;
  dropConnections(): void;
  dropOnNextEnvelope(how: 'after-write' | 'mid-frame'): void;
  disableLink(): void;
  enableLink(): void;
  revokeAppToken(): void;
  /** Writes any message to the first open connection (unknown types, repeated envelope ids). */
  sendRaw(message: Record<string, unknown>): void;
  /** Switches how the driver reaches the app (benchmarks compare both against one app). */
  setTransport(transport: 'http' | 'socket'): void;
}

export interface SlackSimulator {
  url: string;
  /** `${url}/api/`, for SLACK_API_URL. */
  apiUrl: string;
  botToken: string;
  setAppUrl(url: string): void;
  setEmulatorUrl(url: string): void;
  /** Every Web API call (and response_url post, method `response_url`), in order. */
  calls: ApiCall[];
  slashCommand(userId: string, text: string, channelId?: string): Promise<AppAnswer>;
  /** A person uploads a file (as a modal's file_input does); its id goes in the submitted state. */
  uploadFile(userId: string, name: string, content: string | Buffer): string;
  /** A file's name, title and text (the app's uploads: shared with a message's `files`); undefined if unknown. */
  fileText(fileId: string): { name: string; title: string; text: string } | undefined;
  /** The modal stack currently open for a user (bottom first), or every open modal. */
  openViews(userId?: string): View[];
  /** The Home tab published for a user, if any. */
  homeView(userId: string): View | undefined;
  /** Inline errors currently shown on a view (from response_action errors); '' keys a general error. */
  viewErrors(viewId: string): Record<string, string>;
  submitView(viewId: string, values: Record<string, Record<string, unknown>>, userId: string): Promise<AppAnswer>;
  /** The user closes the top modal (or all with `all`); sends view_closed when notify_on_close. */
  closeView(viewId: string, userId: string, all?: boolean): Promise<AppAnswer | undefined>;
  clickButton(where: ClickTarget, actionId: string, userId: string, value?: string): Promise<AppAnswer>;
  loadOptions(viewId: string, actionId: string, blockId: string, query: string, userId: string): Promise<AppAnswer>;
  globalShortcut(userId: string, callbackId: string): Promise<AppAnswer>;
  messageShortcut(userId: string, where: { channel: string; ts: string }, callbackId: string): Promise<AppAnswer>;
  /** A person clicks a reaction on a message: adds theirs (reaction_added), or takes it back (reaction_removed). */
  react(userId: string, where: { channel: string; ts: string }, name: string): Promise<AppAnswer & { added: boolean }>;
  /** A person posts a message (as in the composer). */
  postAs(userId: string, channel: string, text: string): Message;
  /** Messages of a channel (a user id means the IM with that user), or all; updates applied; ephemerals flagged. */
  messages(channel?: string): Message[];
  sendEvent(event: Record<string, unknown>): Promise<AppAnswer>;
  /**
   * A workflow reaches one of the app's custom steps: sends `function_executed` (signed, with a fresh
   * workflow token). Passing an earlier run's functionExecutionId re-delivers that event (a retry).
   */
  runWorkflowStep(step: {
    callbackId: string;
    inputs: Record<string, unknown>;
    title?: string;
    requiredOutputs?: string[];
    functionExecutionId?: string;
  }): Promise<{ run: WorkflowStepRun; answer: AppAnswer }>;
  /** A workflow step run: `running` until the app completes or fails it. */
  workflowStep(functionExecutionId: string): WorkflowStepRun | undefined;
  /**
   * Resolves with the first truthy value of `probe`, re-checked on every change in the workspace
   * (the app answers first and calls the Web API after its ack, as in Slack). Rejects after `timeoutMs` (default 5000).
   */
  waitFor<T>(probe: () => T | undefined | null | false, timeoutMs?: number): Promise<T>;
  workspace: Workspace;
  /** Socket Mode controls (the server is always there; requests use it when `socketMode` is set). */
  socketMode: SimulatorSocketMode;
  /** Distribution mode (with `oauth`), undefined otherwise. */
  distribution: SimulatorDistribution | undefined;
  rateLimits: SimulatorRateLimitControls;
  /**
   * How long each Web API method takes to answer, in ms (Slack's own answers take a few hundred ms a
   * page: users.list about 250); methods not named answer at once. Replaces the previous setting.
   */
  setLatency(latencyMs: Record<string, number>): void;
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 1024 * 1024;

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new Error('body too large');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function parseArgs(body: string, contentType: string, query: URLSearchParams): Record<string, unknown> {
  const args: Record<string, unknown> = Object.fromEntries(query);
  if (body === '') return args;
  if (contentType.includes('application/json')) {
    const parsed: unknown = JSON.parse(body);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) Object.assign(args, parsed);
    return args;
  }
  for (const [k, v] of new URLSearchParams(body)) args[k] = v;
  return args;
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
  });
  res.end(text);
}

function waitForChange<T>(
  state: SimulatorState,
  probe: () => T | undefined | null | false,
  timeoutMs: number,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const first = probe();
    if (first) return resolve(first);
    const timer = setTimeout(() => {
      off();
      reject(new Error(`simulator.waitFor: nothing matched within ${timeoutMs} ms`));
    }, timeoutMs);
    const off = state.onChange(() => {
      const value = probe();
      if (value) {
        clearTimeout(timer);
        off();
        resolve(value);
      }
    });
  });
}

/** What changes after start: where the app and the Rewards emulator are, this server's URL, the driver's transport. */
interface LiveSettings {
  appUrl: string | undefined;
  emulatorUrl: string | undefined;
  baseUrl: string;
  overSocket: boolean;
}

/** What the HTTP server and the controls share. */
interface SimulatorParts {
  state: SimulatorState;
  driver: SlackDriver;
  socketServer: SocketModeServer;
  botToken: string;
  live: LiveSettings;
  /** How long each Web API method takes to answer (setLatency). */
  latencyMs: Map<string, number>;
}

function createState(opts: SlackSimulatorOptions, workspace: Workspace): SimulatorState {
  const state = new SimulatorState(workspace, opts.now ?? Date.now, opts.triggerTtlMs);
  state.rateLimits = new SimulatorRateLimits(opts.rateLimits ?? {});
  if (opts.oauth)
    state.installs = new SimInstalls(
      opts.teams ?? defaultTeams(workspace.team),
      opts.oauth,
      workspace.app,
      opts.now ?? Date.now,
    );
  return state;
}

/** One HTTP request to the simulator; any fault becomes a 500 (or a cut-off answer once headers went out). */
async function handleHttp(parts: SimulatorParts, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://simulator.invalid');
  try {
    await route(parts, req, res, url);
  } catch (err) {
    if (!res.headersSent) sendJson(res, 500, { ok: false, error: 'simulator_error', message: (err as Error).message });
    else res.end();
  }
}

async function route(parts: SimulatorParts, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
  const { state, driver, live } = parts;
  if (url.pathname.startsWith('/api/')) return await serveWebApi(parts, req, res, url);
  const file = /^\/files-pri\/[^/]+-(F[A-Z0-9]+)\/download\//.exec(url.pathname);
  if (file && req.method === 'GET') return serveFileDownload(state, parts.botToken, req, res, file[1]!);
  const upload = /^\/upload\/v1\/(F[A-Z0-9]+)\/([a-z0-9]+)$/.exec(url.pathname);
  if (upload && req.method === 'POST') return await serveUpload(state, req, res, upload[1]!, upload[2]!);
  const response = /^\/response\/([0-9a-f]+)$/.exec(url.pathname);
  if (response && req.method === 'POST') return await serveResponseUrl(driver, req, res, response[1]!);
  if (url.pathname === '/oauth/v2/authorize' && state.installs) {
    if (req.method === 'GET') return authorizePage(res, state.installs, url.searchParams, state.actingTeam().id);
    if (req.method === 'POST')
      return handleAuthorize(res, state.installs, new URLSearchParams(await readBody(req)), live.appUrl);
  }
  if (url.pathname.startsWith('/_sim/rate-limits'))
    return await rateLimitRoute(req, res, url.pathname, state.rateLimits);
  const handled = await handleUiRequest(req, res, url, {
    state,
    driver,
    emulatorUrl: () => live.emulatorUrl,
    appUrl: () => live.appUrl,
  });
  if (!handled) sendJson(res, 404, { ok: false, error: 'not_found' });
}

/** Credentials of a Web API call: a bot/user token (Bearer), or a client id and secret (Basic, oauth.v2.access). */
function webApiAuth(auth: string | undefined) {
  const token = auth?.startsWith('Bearer ') ? auth.slice('Bearer '.length).trim() : undefined;
  const basic = auth?.startsWith('Basic ')
    ? Buffer.from(auth.slice('Basic '.length).trim(), 'base64').toString('utf8').split(':')
    : undefined;
  const basicAuth = basic && basic.length >= 2 ? { id: basic[0]!, secret: basic.slice(1).join(':') } : undefined;
  return { token, basicAuth };
}

async function serveWebApi(parts: SimulatorParts, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
  const { state, socketServer } = parts;
  const method = decodeURIComponent(url.pathname.slice('/api/'.length));
  let args: Record<string, unknown>;
  try {
    args = parseArgs(await readBody(req), req.headers['content-type'] ?? '', url.searchParams);
  } catch {
    return sendJson(res, 200, { ok: false, error: 'invalid_form_data' });
  }
  const { token, basicAuth } = webApiAuth(req.headers.authorization);
  if (method === 'apps.connections.open') {
    const answer = socketServer.open(token ?? (typeof args.token === 'string' ? args.token : undefined));
    state.calls.push({
      method,
      args: {},
      ok: answer.ok === true,
      ...(typeof answer.error === 'string' ? { error: answer.error } : {}),
    });
    return sendJson(res, 200, answer);
  }
  const latency = parts.latencyMs.get(method);
  if (latency) await delay(latency);
  const answer = callWebApi(state, method, args, token, parts.botToken, basicAuth);
  if (answer.retryAfterSeconds !== undefined) {
    // Slack's answer past a rate limit: HTTP 429, Retry-After in whole seconds, and an error body.
    res.setHeader('Retry-After', String(answer.retryAfterSeconds));
    return sendJson(res, 429, answer.body);
  }
  return sendJson(res, 200, answer.body);
}

/** A file's content (url_private_download): only with the app's token, as Slack. */
function serveFileDownload(
  state: SimulatorState,
  botToken: string,
  req: IncomingMessage,
  res: ServerResponse,
  fileId: string,
): void {
  const f = state.files.get(fileId);
  const auth = req.headers.authorization;
  if (!f) return sendJson(res, 404, { ok: false, error: 'file_not_found' });
  if (auth !== `Bearer ${botToken}`) return sendJson(res, 403, { ok: false, error: 'not_authed' });
  res.writeHead(200, {
    'content-type': 'application/octet-stream',
    'content-length': String(f.content.length),
  });
  res.end(f.content);
}

/** A post to a response_url: JSON, or a form with a `payload` field. */
async function serveResponseUrl(
  driver: SlackDriver,
  req: IncomingMessage,
  res: ServerResponse,
  responseId: string,
): Promise<void> {
  let content: Record<string, unknown>;
  try {
    const body = await readBody(req);
    const ct = req.headers['content-type'] ?? '';
    content = ct.includes('application/json')
      ? (JSON.parse(body) as Record<string, unknown>)
      : (JSON.parse(new URLSearchParams(body).get('payload') ?? '{}') as Record<string, unknown>);
  } catch {
    return sendJson(res, 400, { ok: false, error: 'invalid_payload' });
  }
  const out = driver.postToResponseUrl(responseId, content);
  return sendJson(res, out.status, out.body);
}

async function listen(server: Server, port: number, host: string): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return (server.address() as AddressInfo).port;
}

export async function startSlackSimulator(opts: SlackSimulatorOptions): Promise<SlackSimulator> {
  const workspace = opts.workspace ?? seedWorkspace();
  const state = createState(opts, workspace);
  const persistence = opts.persistFile ? persistTo(state, opts.persistFile) : undefined;
  const live: LiveSettings = {
    appUrl: opts.appUrl,
    emulatorUrl: opts.emulatorUrl,
    baseUrl: '',
    overSocket: opts.socketMode ?? false,
  };
  const appToken = opts.appToken ?? SIMULATOR_APP_TOKEN;
  const socketServer = new SocketModeServer({
    appToken,
    appId: workspace.app.appId,
    baseWsUrl: () => live.baseUrl.replace(/^http/, 'ws'),
    onChange: () => state.changed(),
  });
  const driver = new SlackDriver(state, {
    signingSecret: opts.signingSecret,
    appUrl: () => live.appUrl,
    simulatorUrl: () => live.baseUrl,
    command: opts.command ?? '/kudos',
    socket: () => (live.overSocket ? socketServer : undefined),
  });
  const botToken = opts.botToken ?? 'xoxb-kudos-simulator';
  const parts: SimulatorParts = { state, driver, socketServer, botToken, live, latencyMs: new Map() };

  const server = createServer((req, res) => void handleHttp(parts, req, res));
  server.on('upgrade', (req, socket, head) => {
    if (!socketServer.handleUpgrade(req, socket, head)) socket.destroy();
  });
  const port = await listen(server, opts.port ?? 0, opts.host ?? '127.0.0.1');
  live.baseUrl = `http://${opts.host ?? '127.0.0.1'}:${port}`;
  state.baseUrl = live.baseUrl;

  return {
    url: live.baseUrl,
    apiUrl: `${live.baseUrl}/api/`,
    botToken,
    workspace,
    setAppUrl: (u) => {
      live.appUrl = u;
    },
    setEmulatorUrl: (u) => {
      live.emulatorUrl = u;
    },
    ...workspaceControls(state, driver),
    socketMode: socketModeControls(parts, appToken),
    setLatency: (latency) => {
      parts.latencyMs.clear();
      for (const [method, ms] of Object.entries(latency)) parts.latencyMs.set(method, ms);
    },
    rateLimits: rateLimitControls(state),
    distribution: state.installs
      ? distributionControls(
          state,
          state.installs,
          driver,
          () => live.appUrl,
          () => live.baseUrl,
        )
      : undefined,
    close: () =>
      new Promise<void>((resolve, reject) => {
        persistence?.stop();
        socketServer.close();
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}

/** What people do in the workspace (through the driver) and what tests read of it. */
function workspaceControls(
  state: SimulatorState,
  driver: SlackDriver,
): Omit<
  SlackSimulator,
  | 'url'
  | 'apiUrl'
  | 'botToken'
  | 'workspace'
  | 'setAppUrl'
  | 'setEmulatorUrl'
  | 'socketMode'
  | 'setLatency'
  | 'rateLimits'
  | 'distribution'
  | 'close'
> {
  return {
    calls: state.calls,
    slashCommand: (userId, text, channelId) => driver.slashCommand(userId, text, channelId),
    openViews: (userId) => state.openViews(userId),
    homeView: (userId) => {
      const id = state.homeOf(userId);
      return id ? state.views.get(id) : undefined;
    },
    viewErrors: (viewId) => ({ ...(state.viewErrors.get(viewId) ?? {}) }),
    submitView: (viewId, values, userId) => driver.submitView(viewId, values, userId),
    closeView: (viewId, userId, all) => driver.closeView(viewId, userId, all),
    clickButton: (where, actionId, userId, value) => driver.clickButton(where, actionId, userId, value),
    loadOptions: (viewId, actionId, blockId, query, userId) =>
      driver.loadOptions(viewId, actionId, blockId, query, userId),
    globalShortcut: (userId, callbackId) => driver.globalShortcut(userId, callbackId),
    messageShortcut: (userId, where, callbackId) => driver.messageShortcut(userId, where, callbackId),
    react: (userId, where, name) => driver.react(userId, where, name),
    postAs: (userId, channel, text) =>
      state.postMessage({
        channel: state.user(channel) ? state.imFor(channel) : channel,
        user: userId,
        text,
        ephemeral: false,
      }),
    messages: (channel) => state.messagesIn(channel),
    sendEvent: (event) => driver.sendEvent(event),
    runWorkflowStep: (step) => driver.runWorkflowStep(step),
    uploadFile: (userId, name, content) => uploadFile(state, userId, name, content),
    fileText: (fileId) => {
      const f = state.files.get(fileId);
      return f ? { name: f.name, title: f.title ?? f.name, text: f.content.toString('utf8') } : undefined;
    },
    workflowStep: (id) => {
      const run = state.workflowSteps.get(id);
      return run ? { ...run } : undefined;
    },
    waitFor: (probe, timeoutMs = 5000) => waitForChange(state, probe, timeoutMs),
  };
}

function uploadFile(state: SimulatorState, userId: string, name: string, content: string | Buffer): string {
  const id = `F${String(state.files.size + 1).padStart(8, '0')}`;
  state.files.set(id, {
    id,
    name,
    filetype: name.split('.').pop()?.toLowerCase() ?? 'text',
    userId,
    content: Buffer.from(content),
    created: state.now(),
  });
  return id;
}

function socketModeControls(parts: SimulatorParts, appToken: string): SimulatorSocketMode {
  const { socketServer, state, live } = parts;
  return {
    appToken,
    get openConnections() {
      return socketServer.openConnections;
    },
    get opened() {
      return socketServer.opened;
    },
    traffic: socketServer.traffic,
    get ignoredAcks() {
      return socketServer.ignoredAcks;
    },
    waitForConnections: async (count = 1, timeoutMs = 10_000) => {
      await waitForChange(state, () => socketServer.openConnections >= count, timeoutMs);
    },
    disconnect: (reason) => socketServer.disconnect(reason),
    dropConnections: () => socketServer.dropConnections(),
    dropOnNextEnvelope: (how) => socketServer.dropOnNextEnvelope(how),
    disableLink: () => socketServer.disableLink(),
    enableLink: () => socketServer.enableLink(),
    revokeAppToken: () => socketServer.revokeAppToken(),
    sendRaw: (message) => socketServer.sendRaw(message),
    setTransport: (transport) => {
      live.overSocket = transport === 'socket';
    },
  };
}

function rateLimitControls(state: SimulatorState): SimulatorRateLimitControls {
  return {
    counts: () => structuredClone(state.rateLimits.counts),
    resetCounts: () => state.rateLimits.resetCounts(),
    storm: (o) => state.rateLimits.storm(o),
    configure: (settings) => state.rateLimits.configure(settings),
  };
}

const stormSchema = z.object({
  count: z.number().int().min(1).max(100_000),
  retryAfterSeconds: z.number().int().min(1).max(3600).optional(),
  methods: z.array(z.string()).optional(),
});
const settingsSchema = z.union([
  z.literal(false),
  z.object({
    scale: z.number().positive().optional(),
    postBurst: z.number().int().min(1).optional(),
    postsPerMinute: z.number().int().min(1).optional(),
  }),
]);

/**
 * The rate limits' control route, for tests and the bench over HTTP: `GET /_sim/rate-limits` (the
 * 429s answered: total, byMethod, byChannel, byTeam), `POST /_sim/rate-limits/storm` ({ count,
 * retryAfterSeconds?, methods? }), `POST /_sim/rate-limits/settings` (settings or false),
 * `POST /_sim/rate-limits/reset` (counts back to zero).
 */
async function rateLimitRoute(
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  limits: SimulatorRateLimits,
): Promise<void> {
  const route = `${req.method} ${path}`;
  if (route === 'GET /_sim/rate-limits') return sendJson(res, 200, { enabled: limits.enabled, ...limits.counts });
  if (route === 'POST /_sim/rate-limits/reset') {
    limits.resetCounts();
    return sendJson(res, 200, { ok: true });
  }
  if (route === 'POST /_sim/rate-limits/storm' || route === 'POST /_sim/rate-limits/settings') {
    let body: unknown;
    try {
      body = JSON.parse(await readBody(req));
    } catch {
      return sendJson(res, 400, { ok: false, error: 'invalid_json' });
    }
    if (route === 'POST /_sim/rate-limits/storm') {
      const storm = stormSchema.safeParse(body);
      if (!storm.success)
        return sendJson(res, 400, { ok: false, error: 'invalid_arguments', message: storm.error.message });
      limits.storm(storm.data);
    } else {
      const settings = settingsSchema.safeParse(body);
      if (!settings.success)
        return sendJson(res, 400, { ok: false, error: 'invalid_arguments', message: settings.error.message });
      limits.configure(settings.data);
    }
    return sendJson(res, 200, { ok: true });
  }
  return sendJson(res, 404, { ok: false, error: 'not_found' });
}

function distributionControls(
  state: SimulatorState,
  installs: SimInstalls,
  driver: SlackDriver,
  appUrl: () => string | undefined,
  baseUrl: () => string,
): SimulatorDistribution {
  return {
    installs,
    actAs(teamId, o = {}) {
      const team = installs.team(teamId);
      if (!team) throw new Error(`simulator: no workspace ${teamId}`);
      state.acting = { id: team.id, domain: team.domain, enterpriseId: team.enterpriseId, orgWide: Boolean(o.orgWide) };
      state.changed();
    },
    async install(choice) {
      const app = appUrl();
      if (!app) throw new Error('simulator: setAppUrl first');
      const page = await fetch(`${app}/slack/install`);
      const html = await page.text();
      const cookie = page.headers.get('set-cookie')?.split(';')[0];
      const href = /id="add-to-slack" href="([^"]+)"/.exec(html)?.[1]?.replace(/&amp;/g, '&');
      if (!href) throw new Error(`simulator: no "Add to Slack" link on the install page (${page.status})`);
      const authorize = new URL(href);
      const decision = new URLSearchParams({
        client_id: authorize.searchParams.get('client_id') ?? '',
        scope: authorize.searchParams.get('scope') ?? '',
        state: authorize.searchParams.get('state') ?? '',
        ...(authorize.searchParams.get('redirect_uri')
          ? { redirect_uri: authorize.searchParams.get('redirect_uri')! }
          : {}),
        team: choice.orgWide ? `org:${choice.enterpriseId ?? ''}` : (choice.teamId ?? ''),
        user: choice.userId ?? 'U_ADMIN',
        decision: choice.deny ? 'deny' : 'allow',
      });
      const approved = await fetch(`${baseUrl()}/oauth/v2/authorize`, {
        method: 'POST',
        body: decision,
        redirect: 'manual',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      });
      const location = approved.headers.get('location');
      await approved.body?.cancel();
      if (!location) throw new Error(`simulator: the authorize page did not redirect (${approved.status})`);
      const done = await fetch(location, {
        headers: cookie && !choice.withoutCookie ? { cookie } : {},
        redirect: 'manual',
      });
      return { status: done.status, html: await done.text(), redirectUrl: location, cookie };
    },
    async uninstall(key) {
      const installation = installs.uninstall(key);
      if (!installation) return;
      state.changed();
      const previous = state.acting;
      const team = installation.teamId
        ? installs.team(installation.teamId)
        : installs.teams.find((t) => t.enterpriseId === installation.enterpriseId);
      if (team)
        state.acting = {
          id: team.id,
          domain: team.domain,
          enterpriseId: installation.enterpriseId,
          orgWide: installation.orgWide,
        };
      try {
        await driver.sendEvent({ type: 'tokens_revoked', tokens: { bot: [state.workspace.app.botUserId] } });
        await driver.sendEvent({ type: 'app_uninstalled' });
      } finally {
        state.acting = previous;
      }
    },
  };
}
