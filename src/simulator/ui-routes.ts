// The web UI's server side: static page files, and a small JSON API under /_ui/ that renders the
// workspace for one user (messages, modal, Home tab as HTML from render.ts) and turns clicks and form
// input into the same driver calls tests use. Updates are pushed as server-sent events (/_ui/events).
import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';

import { z } from 'zod';

import type { SlackDriver } from './driver.js';
import type { Workspace } from './seed.js';
import type { Json, Message, SimulatorState } from './state.js';
import { stateFromRaw } from './view-state.js';
import { renderEmail } from './web/email.js';
import { REACTION_CHOICES, renderBlocks, type RenderContext, renderMessage, renderModal } from './web/render.js';

export interface UiContext {
  state: SimulatorState;
  driver: SlackDriver;
  emulatorUrl: () => string | undefined;
  /** The app's base URL (distribution mode: the switcher's "Add to Slack" goes to its /slack/install). */
  appUrl?: () => string | undefined;
}

const STATIC: Record<string, { file: string; type: string }> = {
  '/': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/app.js': { file: 'app.js', type: 'text/javascript; charset=utf-8' },
  '/style.css': { file: 'style.css', type: 'text/css; charset=utf-8' },
};

const UserId = z.string().min(1).max(64);
const RawValue = z.union([z.string(), z.array(z.string()), z.null()]);
const Bodies = {
  command: z.object({ as: UserId, channel: z.string().min(1), text: z.string().max(4000) }),
  click: z.object({
    as: UserId,
    actionId: z.string(),
    value: z.string().optional(),
    channel: z.string().optional(),
    ts: z.string().optional(),
    viewId: z.string().optional(),
    /** What the modal's inputs hold when a button in it is clicked (sent as view.state). */
    values: z.record(z.string(), z.record(z.string(), RawValue)).optional(),
  }),
  submit: z.object({ as: UserId, viewId: z.string(), values: z.record(z.string(), z.record(z.string(), RawValue)) }),
  close: z.object({ as: UserId, viewId: z.string(), all: z.boolean().optional() }),
  options: z.object({
    as: UserId,
    viewId: z.string(),
    actionId: z.string(),
    blockId: z.string(),
    query: z.string().max(200),
  }),
  home: z.object({ as: UserId }),
  /** A person writes a plain message in a conversation (no slash command). */
  message: z.object({ as: UserId, channel: z.string().min(1), text: z.string().min(1).max(4000) }),
  react: z.object({
    as: UserId,
    channel: z.string().min(1),
    ts: z.string().min(1),
    name: z.string().regex(/^[a-z0-9_+-]{1,64}$/),
  }),
  shortcut: z.object({ as: UserId, channel: z.string().min(1), ts: z.string().min(1), callbackId: z.string().min(1) }),
  /** "Run a workflow step": the step's inputs as Workflow Builder would fill them in. */
  workflow: z.object({
    as: UserId,
    callbackId: z.string().min(1),
    inputs: z.record(z.string(), z.union([z.string(), z.number(), z.array(z.string())])),
  }),
  /** Finishes a pending top-up as the provider's review would: the bank transfer arrived, or not. */
  funding: z.object({
    fundingNo: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/),
    org: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,40}$/)
      .optional(),
    outcome: z.enum(['approve', 'reject']),
  }),
  /** "Make balance low": the emulator's production available balance, in dollars (cents allowed). */
  balance: z.object({
    amount: z.number().min(0).max(1_000_000),
  }),
  advance: z.object({
    seconds: z
      .number()
      .positive()
      .max(400 * 24 * 3600),
  }),
};

/**
 * Encodes what a user types in the composer as Slack sends it: `@maya` -> `<@U_MANAGER|maya>`,
 * `@team` -> `<!subteam^S_TEAM|@team>`, `@here` -> `<!here>`, `#kudos` -> `<#C_KUDOS|kudos>`.
 */
export function encodeMentions(text: string, ws: Workspace): string {
  return text
    .replace(/(^|[\s(])@([A-Za-z0-9._-]+)/g, (whole, pre: string, handle: string) => {
      const h = handle.toLowerCase();
      if (h === 'here' || h === 'channel' || h === 'everyone') return `${pre}<!${h}>`;
      const user = ws.users.find((u) => !u.deleted && u.name.toLowerCase() === h);
      if (user) return `${pre}<@${user.id}|${user.name}>`;
      const group = ws.usergroups.find((g) => g.handle.toLowerCase() === h);
      if (group) return `${pre}<!subteam^${group.id}|@${group.handle}>`;
      return whole;
    })
    .replace(/(^|[\s(])#([a-z0-9._-]+)/g, (whole, pre: string, name: string) => {
      const ch = ws.channels.find((c) => c.name === name);
      return ch ? `${pre}<#${ch.id}|${ch.name}>` : whole;
    });
}

function renderContext(state: SimulatorState, userId: string, extra: Partial<RenderContext> = {}): RenderContext {
  const ws = state.workspace;
  return {
    users: ws.users.map((u) => ({ id: u.id, name: u.realName, deleted: u.deleted })),
    channels: ws.channels.map((c) => ({ id: c.id, name: c.name })),
    usergroups: ws.usergroups.map((g) => ({ id: g.id, handle: g.handle })),
    tz: state.user(userId)?.tz ?? 'UTC',
    viewer: userId,
    messageShortcuts: ws.app.messageShortcuts ?? [],
    ...extra,
  };
}

/** Conversations a user sees: channels they are in, and their DM with the app. */
function conversationsFor(state: SimulatorState, userId: string) {
  const channels = state.workspace.channels
    .filter((c) => c.members.includes(userId))
    .map((c) => ({ id: c.id, name: c.name, kind: 'channel' as const, isPrivate: c.isPrivate }));
  return [...channels, { id: state.imFor(userId), name: 'Kudos', kind: 'app' as const, isPrivate: true }];
}

/** What `userId` sees of a conversation, threads grouped under their parent. */
export function renderConversation(state: SimulatorState, userId: string, channel: string): string {
  const ctx = renderContext(state, userId);
  const visible = state.messagesIn(channel).filter((m) => !m.ephemeral || m.visible_to === userId);
  const replies = new Map<string, Message[]>();
  const top: Message[] = [];
  for (const m of visible) {
    if (m.thread_ts && m.thread_ts !== m.ts && visible.some((p) => p.ts === m.thread_ts)) {
      replies.set(m.thread_ts, [...(replies.get(m.thread_ts) ?? []), m]);
    } else top.push(m);
  }
  if (top.length === 0) return '<p class="empty">No messages yet.</p>';
  return top.map((m) => renderMessage(m, ctx, { replies: replies.get(m.ts) })).join('');
}

function uiState(state: SimulatorState, userId: string, conv: string | undefined) {
  const conversations = conversationsFor(state, userId);
  const current =
    conversations.find((c) => c.id === conv) ?? conversations.find((c) => c.id === 'C_KUDOS') ?? conversations[0]!;
  const stack = state.openViews(userId);
  const top = stack[stack.length - 1];
  const homeId = state.homeOf(userId);
  const home = homeId ? state.views.get(homeId) : undefined;
  const externalOptions = (viewId: string) => {
    const out: Record<string, Json[]> = {};
    for (const [key, opts] of state.loadedOptions) {
      const [vid, actionId] = key.split('/');
      if (vid === viewId && actionId) out[actionId] = opts;
    }
    return out;
  };
  return {
    version: state.version,
    /** Changes when the page's workspace or an installation changes: the page reloads its sidebar. */
    workspaceKey: state.installs ? JSON.stringify(workspaceSwitcher(state)) : '',
    /** What a message's ☺ and ⋮ menus offer: reactions, and the app's message shortcuts. */
    messageMenus: { reactions: REACTION_CHOICES, shortcuts: state.workspace.app.messageShortcuts ?? [] },
    workflow: {
      steps: state.workspace.app.workflowSteps ?? [],
      runs: [...state.workflowSteps.values()]
        .filter((r) => r.startedBy === userId)
        .reverse()
        .slice(0, 10)
        .map((r) => ({
          id: r.functionExecutionId,
          callbackId: r.callbackId,
          inputs: r.inputs,
          state: r.state,
          outputs: r.outputs ?? null,
          error: r.error ?? null,
        })),
    },
    me: userId,
    conversation: current,
    conversations,
    messagesHtml: renderConversation(state, userId, current.id),
    homeHtml: home ? renderBlocks(home.blocks, renderContext(state, userId)) : null,
    homeViewId: home?.id ?? null,
    modal: top
      ? {
          id: top.id,
          hash: top.hash,
          errors: state.viewErrors.get(top.id) ?? {},
          html: renderModal(
            top,
            renderContext(state, userId, {
              errors: state.viewErrors.get(top.id),
              externalOptions: externalOptions(top.id),
            }),
            { depth: stack.length },
          ),
        }
      : null,
  };
}

async function readJsonBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > 256 * 1024) throw new Error('body too large');
    chunks.push(c as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  return text === '' ? {} : JSON.parse(text);
}

function json(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' });
  res.end(text);
}

async function emulator(ctx: UiContext, path: string, init?: RequestInit): Promise<{ status: number; body: unknown }> {
  const base = ctx.emulatorUrl();
  if (!base) return { status: 503, body: { error: 'The Rewards emulator is not connected to this simulator.' } };
  try {
    const res = await fetch(`${base}${path}`, init);
    return { status: res.status, body: await res.json() };
  } catch (err) {
    return { status: 502, body: { error: `Rewards emulator unreachable: ${(err as Error).message}` } };
  }
}

function serveEvents(req: IncomingMessage, res: ServerResponse, state: SimulatorState): void {
  res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-store', Connection: 'keep-alive' });
  res.write(`data: ${state.version}\n\n`);
  let pending = false;
  const off = state.onChange(() => {
    // Coalesce bursts of changes into one event per tick.
    if (pending) return;
    pending = true;
    setImmediate(() => {
      pending = false;
      res.write(`data: ${state.version}\n\n`);
    });
  });
  const keepAlive = setInterval(() => res.write(': keep-alive\n\n'), 15_000);
  req.on('close', () => {
    off();
    clearInterval(keepAlive);
  });
}

/** One request to a /_ui/ route: what a route handler reads and answers. */
interface UiRequest {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  ctx: UiContext;
}

/** The request body checked against `schema`; undefined (and a 400 already sent) when it is not valid. */
async function parseBody<T extends z.ZodType>(
  req: IncomingMessage,
  res: ServerResponse,
  schema: T,
): Promise<z.infer<T> | undefined> {
  let raw: unknown;
  try {
    raw = await readJsonBody(req);
  } catch {
    json(res, 400, { error: 'invalid JSON' });
    return undefined;
  }
  const r = schema.safeParse(raw);
  if (!r.success) {
    json(res, 400, { error: r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ') });
    return undefined;
  }
  return r.data;
}

/** Whether `userId` is in the workspace; a 400 is sent when not. */
function knownUser(state: SimulatorState, res: ServerResponse, userId: string): boolean {
  if (state.user(userId)) return true;
  json(res, 400, { error: `unknown user ${userId}` });
  return false;
}

/**
 * Answers with what a driver call returns. Driver errors (a view no longer open, a message gone) are the
 * user's race, not a server fault.
 */
async function drive(res: ServerResponse, fn: () => Promise<unknown>): Promise<void> {
  try {
    json(res, 200, await fn());
  } catch (err) {
    json(res, 409, { error: (err as Error).message });
  }
}

/** A body parsed with `schema` whose `as` is a known user; undefined when a 400 was sent instead. */
async function userBody<T extends z.ZodType<{ as: string }>>(
  { req, res, ctx }: UiRequest,
  schema: T,
): Promise<z.infer<T> | undefined> {
  const b = await parseBody(req, res, schema);
  if (!b || !knownUser(ctx.state, res, b.as)) return undefined;
  return b;
}

/** Distribution mode's workspace switcher: which workspace the UI acts in, and how the app is installed there. */
function workspaceSwitcher(state: SimulatorState) {
  const installs = state.installs;
  if (!installs) return {};
  return {
    workspaces: installs.teams.map((t) => {
      const own = installs.installations.get(`team:${t.id}`);
      const org = t.enterpriseId ? installs.installations.get(`enterprise:${t.enterpriseId}`) : undefined;
      const via =
        own && !own.revoked
          ? 'workspace install'
          : org && !org.revoked
            ? `org-wide install (${t.enterpriseName ?? t.enterpriseId})`
            : 'not installed';
      return {
        id: t.id,
        name: t.name,
        enterpriseId: t.enterpriseId ?? null,
        installedVia: via,
        orgWide: !(own && !own.revoked) && Boolean(org && !org.revoked),
      };
    }),
    acting: state.actingTeam().id,
  };
}

function getWorkspace({ res, ctx }: UiRequest): void {
  const { state } = ctx;
  const ws = state.workspace;
  const acting = state.actingTeam();
  const installs = state.installs;
  json(res, 200, {
    team: installs ? (installs.team(acting.id) ?? ws.team) : ws.team,
    ...workspaceSwitcher(state),
    users: ws.users
      .filter((u) => !u.deleted && !u.isBot)
      .map((u) => ({
        id: u.id,
        name: u.name,
        realName: u.realName,
        role: u.role,
        tz: u.tz,
        email: u.email ?? null,
      })),
    handles: ws.users
      .filter((u) => !u.deleted)
      .map((u) => u.name)
      .concat(ws.usergroups.map((g) => g.handle)),
    emulator: ctx.emulatorUrl() !== undefined,
  });
}

async function switchWorkspace({ req, res, ctx }: UiRequest): Promise<void> {
  const { state } = ctx;
  const body = await parseBody(req, res, z.object({ teamId: z.string().min(1) }));
  if (!body) return;
  const installs = state.installs;
  const team = installs?.team(body.teamId);
  if (!installs || !team) {
    json(res, 400, { error: `unknown workspace ${body.teamId}` });
    return;
  }
  const own = installs.installations.get(`team:${team.id}`);
  const orgWide =
    !(own && !own.revoked) &&
    Boolean(team.enterpriseId && installs.installations.get(`enterprise:${team.enterpriseId}`));
  state.acting = { id: team.id, domain: team.domain, enterpriseId: team.enterpriseId, orgWide };
  state.changed();
  json(res, 200, { ok: true });
}

function redirectToInstall({ res, ctx }: UiRequest): void {
  const app = ctx.appUrl?.();
  if (!app) {
    json(res, 404, { error: 'no app to install' });
    return;
  }
  res.writeHead(302, { Location: `${app}/slack/install` });
  res.end();
}

function getState({ res, url, ctx }: UiRequest): void {
  const as = url.searchParams.get('as') ?? '';
  if (!knownUser(ctx.state, res, as)) return;
  json(res, 200, uiState(ctx.state, as, url.searchParams.get('conv') ?? undefined));
}

async function runCommand(r: UiRequest): Promise<void> {
  const b = await userBody(r, Bodies.command);
  if (!b) return;
  const text = b.text.trim();
  const m = /^(\/\S+)\s*([\s\S]*)$/.exec(text);
  if (!m || m[1] !== '/kudos') {
    json(r.res, 400, { error: 'Only the /kudos command is installed in this workspace.' });
    return;
  }
  const { state, driver } = r.ctx;
  await drive(r.res, () => driver.slashCommand(b.as, encodeMentions(m[2] ?? '', state.workspace), b.channel));
}

async function click(r: UiRequest): Promise<void> {
  const b = await userBody(r, Bodies.click);
  if (!b) return;
  const { state, driver } = r.ctx;
  const where = b.viewId ? { viewId: b.viewId } : b.channel && b.ts ? { channel: b.channel, ts: b.ts } : undefined;
  if (!where) {
    json(r.res, 400, { error: 'viewId, or channel and ts, required' });
    return;
  }
  const view = b.viewId ? state.views.get(b.viewId) : undefined;
  if (view && b.values) {
    view.state = {
      values: stateFromRaw(
        view.blocks,
        b.values,
        state.user(b.as)!.tz,
        (actionId) => state.loadedOptions.get(`${view.id}/${actionId}`) ?? [],
      ),
    };
  }
  await drive(r.res, () => driver.clickButton(where, b.actionId, b.as, b.value));
}

async function submit(r: UiRequest): Promise<void> {
  const b = await userBody(r, Bodies.submit);
  if (!b) return;
  const { state, driver } = r.ctx;
  const view = state.views.get(b.viewId);
  if (!view) {
    json(r.res, 409, { error: 'This view is no longer open.' });
    return;
  }
  const values = stateFromRaw(
    view.blocks,
    b.values,
    state.user(b.as)!.tz,
    (actionId) => state.loadedOptions.get(`${view.id}/${actionId}`) ?? [],
  );
  await drive(r.res, async () => ({
    ...(await driver.submitView(b.viewId, values, b.as)),
    errors: state.viewErrors.get(b.viewId) ?? {},
  }));
}

async function close(r: UiRequest): Promise<void> {
  const b = await userBody(r, Bodies.close);
  if (!b) return;
  const { driver } = r.ctx;
  await drive(r.res, async () => (await driver.closeView(b.viewId, b.as, b.all)) ?? { status: 0, body: '' });
}

async function loadOptions(r: UiRequest): Promise<void> {
  const b = await userBody(r, Bodies.options);
  if (!b) return;
  const { state, driver } = r.ctx;
  await drive(r.res, async () => {
    const result = await driver.loadOptions(b.viewId, b.actionId, b.blockId, b.query, b.as);
    const options = (state.loadedOptions.get(`${b.viewId}/${b.actionId}`) ?? []).map((o) => ({
      value: String(o.value ?? ''),
      text: String((o.text as Json | undefined)?.text ?? o.value ?? ''),
    }));
    return { status: result.status, options };
  });
}

async function openHome(r: UiRequest): Promise<void> {
  const b = await userBody(r, Bodies.home);
  if (!b) return;
  const { state, driver } = r.ctx;
  const homeId = state.homeOf(b.as);
  const view = homeId ? state.views.get(homeId) : undefined;
  await drive(r.res, () =>
    driver.sendEvent({
      type: 'app_home_opened',
      user: b.as,
      channel: state.imFor(b.as),
      tab: 'home',
      ...(view ? { view } : {}),
    }),
  );
}

async function postMessage(r: UiRequest): Promise<void> {
  const b = await userBody(r, Bodies.message);
  if (!b) return;
  const { state } = r.ctx;
  const conversation = conversationsFor(state, b.as).find((c) => c.id === b.channel);
  if (!conversation || conversation.kind === 'app') {
    json(r.res, 400, { error: 'Messages to the Kudos app are not read: try /kudos help.' });
    return;
  }
  const m = state.postMessage({
    channel: b.channel,
    user: b.as,
    text: encodeMentions(b.text, state.workspace),
    ephemeral: false,
  });
  json(r.res, 200, { ok: true, ts: m.ts });
}

async function react(r: UiRequest): Promise<void> {
  const b = await userBody(r, Bodies.react);
  if (!b) return;
  await drive(r.res, () => r.ctx.driver.react(b.as, { channel: b.channel, ts: b.ts }, b.name));
}

async function messageShortcut(r: UiRequest): Promise<void> {
  const b = await userBody(r, Bodies.shortcut);
  if (!b) return;
  await drive(r.res, () => r.ctx.driver.messageShortcut(b.as, { channel: b.channel, ts: b.ts }, b.callbackId));
}

/** "Run a workflow step": a workflow that `as` started reaches the app's step, with these inputs. */
async function runWorkflowStep(r: UiRequest): Promise<void> {
  const b = await userBody(r, Bodies.workflow);
  if (!b) return;
  const step = r.ctx.state.workspace.app.workflowSteps?.find((s) => s.callbackId === b.callbackId);
  if (!step) {
    json(r.res, 400, { error: `The app has no workflow step ${b.callbackId}.` });
    return;
  }
  const missing = step.inputs.filter((i) => {
    const v = b.inputs[i.name];
    return i.required && (v === undefined || v === '' || (Array.isArray(v) && v.length === 0));
  });
  if (missing.length > 0) {
    json(r.res, 400, { error: `Fill in ${missing.map((i) => i.title).join(', ')}.` });
    return;
  }
  const inputs = Object.fromEntries(
    Object.entries(b.inputs).filter(([, v]) => v !== '' && !(Array.isArray(v) && v.length === 0)),
  );
  await drive(r.res, async () => {
    const { run, answer } = await r.ctx.driver.runWorkflowStep({
      callbackId: step.callbackId,
      title: step.title,
      inputs,
      requiredOutputs: step.requiredOutputs,
      startedBy: b.as,
    });
    return { status: answer.status, id: run.functionExecutionId };
  });
}

/** The Rewards emulator's top-ups: its own organization's, then each added organization's (distribution mode). */
async function listFundings({ res, ctx }: UiRequest): Promise<void> {
  const main = await emulator(ctx, '/_emulator/fundings');
  if (main.status !== 200) return json(res, main.status, main.body);
  const orgs = await emulator(ctx, '/_emulator/orgs');
  const orgIds = orgs.status === 200 ? ((orgs.body as { orgs?: string[] }).orgs ?? []) : [];
  const fundings: Json[] = ((main.body as { fundings?: Json[] }).fundings ?? []).map((f) => ({ ...f, org: null }));
  for (const org of orgIds) {
    const r = await emulator(ctx, `/_emulator/orgs/${encodeURIComponent(org)}/fundings`);
    if (r.status === 200)
      fundings.push(...((r.body as { fundings?: Json[] }).fundings ?? []).map((f) => ({ ...f, org })));
  }
  json(res, 200, { fundings });
}

async function processFunding({ req, res, ctx }: UiRequest): Promise<void> {
  const b = await parseBody(req, res, Bodies.funding);
  if (!b) return;
  const prefix = b.org ? `/_emulator/orgs/${encodeURIComponent(b.org)}` : '/_emulator';
  const r = await emulator(ctx, `${prefix}/fundings/${encodeURIComponent(b.fundingNo)}/process`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ outcome: b.outcome }),
  });
  json(res, r.status, r.body);
}

/** The recipients' inbox: each e-mail the emulator "sent", with the e-mail as the recipient sees it. */
async function inbox({ res, ctx }: UiRequest): Promise<void> {
  const r = await emulator(ctx, '/_emulator/emails');
  if (r.status !== 200) return json(res, r.status, r.body);
  const emails = ((r.body as { emails?: Json[] }).emails ?? []).map((e) => ({ ...e, html: renderEmail(e) }));
  json(res, 200, { emails });
}

/** A GET answered with what the Rewards emulator answers at `path`. */
function fromEmulator(path: string) {
  return async ({ res, ctx }: UiRequest): Promise<void> => {
    const r = await emulator(ctx, path);
    json(res, r.status, r.body);
  };
}

/** A POST whose checked body the Rewards emulator gets at `path`, shaped by `toEmulator`. */
function toEmulator<T extends z.ZodType>(path: string, schema: T, emulatorBody: (body: z.infer<T>) => unknown) {
  return async ({ req, res, ctx }: UiRequest): Promise<void> => {
    const b = await parseBody(req, res, schema);
    if (!b) return;
    const r = await emulator(ctx, path, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(emulatorBody(b)),
    });
    json(res, r.status, r.body);
  };
}

const ROUTES: Record<string, (r: UiRequest) => void | Promise<void>> = {
  'GET /_ui/workspace': getWorkspace,
  'POST /_ui/workspace': switchWorkspace,
  'GET /_ui/install': redirectToInstall,
  'GET /_ui/state': getState,
  // A file the app shared (its uploads), to download from the page; the Web API's own download URL
  // asks for the bot token, which the page does not have.
  'GET /_ui/file': ({ res, url, ctx }) => {
    const file = ctx.state.files.get(url.searchParams.get('id') ?? '');
    if (!file || file.awaiting) return json(res, 404, { error: 'not found' });
    res.writeHead(200, {
      'Content-Type': file.filetype === 'csv' ? 'text/csv; charset=utf-8' : 'application/octet-stream',
      'Content-Disposition': `attachment; filename="${file.name.replace(/[^\w.-]/g, '_')}"`,
    });
    res.end(file.content);
  },
  'GET /_ui/events': ({ req, res, ctx }) => serveEvents(req, res, ctx.state),
  'POST /_ui/command': runCommand,
  'POST /_ui/click': click,
  'POST /_ui/submit': submit,
  'POST /_ui/close': close,
  'POST /_ui/options': loadOptions,
  'POST /_ui/home': openHome,
  'POST /_ui/message': postMessage,
  'POST /_ui/react': react,
  'POST /_ui/shortcut': messageShortcut,
  'POST /_ui/workflow': runWorkflowStep,
  'GET /_ui/fundings': listFundings,
  'POST /_ui/fundings/process': processFunding,
  'GET /_ui/inbox': inbox,
  'GET /_ui/clock': fromEmulator('/_emulator/clock'),
  // The simulator's "make balance low": sets the emulator's available balance (production, the
  // environment of npm run dev) so the low-balance alert can be shown; Kudos sees it at its next
  // order or periodic check.
  'POST /_ui/balance': toEmulator('/_emulator/balance', Bodies.balance, (b) => ({
    environment: 'production',
    amount: b.amount,
  })),
  'POST /_ui/clock/advance': toEmulator('/_emulator/clock/advance', Bodies.advance, (b) => ({ seconds: b.seconds })),
};

/** Handles the UI's routes; false when the path is not one of them. */
export async function handleUiRequest(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  ctx: UiContext,
): Promise<boolean> {
  const asset = req.method === 'GET' ? STATIC[url.pathname] : undefined;
  if (asset) {
    const body = await readFile(new URL(`./web/${asset.file}`, import.meta.url));
    res.writeHead(200, { 'Content-Type': asset.type, 'Cache-Control': 'no-store' });
    res.end(body);
    return true;
  }
  if (!url.pathname.startsWith('/_ui/')) return false;
  const route = ROUTES[`${req.method} ${url.pathname}`];
  if (route) await route({ req, res, url, ctx });
  else json(res, 404, { error: 'not found' });
  return true;
}
