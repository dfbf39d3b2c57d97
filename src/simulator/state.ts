// Everything the simulated Slack remembers: messages (with updates, threads, ephemerals), modal stacks
// per user, published Home tabs, trigger_ids, response_urls, and the log of Web API calls.
// Handlers (web-api.ts, driver.ts) parse and serialize; the rules live here.
import { randomBytes } from 'node:crypto';

import type { SimInstalls } from './installs.js';
import { SimulatorRateLimits } from './rate-limits.js';
import type { Workspace, WorkspaceUser } from './seed.js';

export type Json = Record<string, unknown>;
export type Block = Record<string, unknown>;

export interface Message {
  /** Channel id: C… for channels, D… for the IM with a user. */
  channel: string;
  ts: string;
  /** Poster: the app's bot user id for app messages. */
  user: string;
  bot_id?: string;
  text: string;
  blocks?: Block[];
  thread_ts?: string | undefined;
  /** Ephemeral messages are visible only to `visible_to`. */
  ephemeral: boolean;
  visible_to?: string;
  /** Set when chat.update or a replace_original changed it. */
  edited?: { ts: string };
  /** Message metadata (chat.postMessage `metadata`): not shown, returned by conversations.history. */
  metadata?: { event_type: string; event_payload: Json };
  /** Files shared with the message (files.completeUploadExternal): their ids, names and titles. */
  files?: Array<{ id: string; name: string; title: string }>;
  /** Emoji reactions, in the order first added: the name and who reacted (reactions.get's shape). */
  reactions?: Array<{ name: string; users: string[] }>;
  /** Distribution mode: the workspace the message is in (each has its own channels and DMs). */
  team?: string;
}

export interface View {
  id: string;
  team_id: string;
  type: 'modal' | 'home';
  title?: Json;
  submit?: Json | null;
  close?: Json | null;
  blocks: Block[];
  private_metadata: string;
  callback_id: string;
  external_id: string;
  state: { values: Record<string, Record<string, Json>> };
  hash: string;
  clear_on_close: boolean;
  notify_on_close: boolean;
  previous_view_id: string | null;
  root_view_id: string;
  app_id: string;
  app_installed_team_id: string;
  bot_id: string;
}

export interface ApiCall {
  method: string;
  args: Record<string, unknown>;
  ok: boolean;
  error?: string;
  /** The token the call carried (distribution mode: which installation's it was). */
  token?: string;
  /** The installation the token belongs to (`team:T…` or `enterprise:E…`), distribution mode only. */
  installation?: string;
}

/** Whom requests come from (the driver) and whom a Web API call acts for: a workspace, maybe in an org. */
export interface ActingTeam {
  id: string;
  domain: string;
  enterpriseId: string | undefined;
  /** The app reaches this workspace through an org-wide install. */
  orgWide: boolean;
}

/** A file uploaded to Slack: by a person (a modal's file_input), or by the app (files.getUploadURLExternal). */
export interface SimFile {
  id: string;
  name: string;
  filetype: string;
  userId: string;
  content: Buffer;
  created: number;
  /** The app's upload in progress: the length it announced, until its bytes arrive at the upload URL. */
  awaiting?: { length: number; token: string };
  /** Set once files.completeUploadExternal finished the upload. */
  title?: string;
}

/** One run of a Workflow Builder custom step (a `function_executed` event sent to the app). */
export interface WorkflowStepRun {
  functionExecutionId: string;
  workflowExecutionId: string;
  callbackId: string;
  /** The short-lived workflow token (`xwfp-…`) sent as the event's bot_access_token. */
  token: string;
  inputs: Json;
  /** Output names the step must return (the manifest's output_parameters.required). */
  requiredOutputs: string[];
  state: 'running' | 'completed' | 'failed';
  /** Who ran the workflow (the web UI's "Run a workflow step"); unset when a test ran it. */
  startedBy?: string;
  outputs?: Json;
  error?: string;
}

export interface Trigger {
  userId: string;
  issuedAt: number;
  used: boolean;
}

export interface ResponseUrl {
  id: string;
  userId: string;
  channel: string;
  /**
   * The message replace/delete_original act on: the message the interaction came from (block_actions),
   * else the last response posted through this URL (a slash command's earlier answer).
   */
  sourceTs?: string | undefined;
  issuedAt: number;
  uses: number;
  /** Distribution mode: the workspace it was issued in (its posts land there). */
  team?: string | undefined;
}

export interface PersistedState {
  version: 1;
  messages: Message[];
  homes: Array<{ userId: string; view: View }>;
  lastTsMicros: number;
  counter: number;
}

export const TRIGGER_TTL_MS = 3000;
export const RESPONSE_URL_MAX_USES = 5;
export const RESPONSE_URL_TTL_MS = 30 * 60 * 1000;
export const MAX_VIEW_STACK = 3;

export class SimulatorState {
  readonly calls: ApiCall[] = [];
  /** Every message in posting order; indexed by channel and ts below (a backlog posts thousands). */
  private readonly allMessages: Message[] = [];
  private readonly messageByKey = new Map<string, Message>();
  private readonly messagesByChannel = new Map<string, Message[]>();
  readonly views = new Map<string, View>();
  readonly viewOwner = new Map<string, string>();
  /** Inline errors from the last `response_action: errors`, per view id. */
  readonly viewErrors = new Map<string, Record<string, string>>();
  readonly stacks = new Map<string, string[]>();
  readonly homes = new Map<string, string>();
  readonly triggers = new Map<string, Trigger>();
  readonly responseUrls = new Map<string, ResponseUrl>();
  /** The last options the app answered for an external select, by view id + action id (for the UI). */
  readonly loadedOptions = new Map<string, Json[]>();
  /** Workflow step runs by function_execution_id. */
  readonly workflowSteps = new Map<string, WorkflowStepRun>();
  /** Files uploaded (a modal's file_input, the app's uploads), by id: files.info and their url_private_download. */
  readonly files = new Map<string, SimFile>();
  /** Slack's rate limits (rate-limits.ts): on unless the simulator was started with `rateLimits: false`. */
  rateLimits = new SimulatorRateLimits();
  /** The simulator's own address (for files' download URLs); set once it listens. */
  baseUrl = '';
  private lastTsMicros = 0;
  private counter = 0;
  private changeListeners = new Set<() => void>();
  version = 0;

  constructor(
    readonly workspace: Workspace,
    readonly now: () => number,
    /** Slack's 3 s; tests on a loaded machine may allow more. */
    readonly triggerTtlMs = TRIGGER_TTL_MS,
  ) {}

  /** Distribution mode: installations, OAuth and tokens per workspace (installs.ts); undefined otherwise. */
  installs: SimInstalls | undefined;

  private actingTeamNow: ActingTeam | undefined;
  /** The Grid org's workspace that last sent a request, by enterprise id (see orgTeam). */
  private readonly lastInOrg = new Map<string, string>();

  /** The workspace the driver's requests come from (distribution mode switches it); the seed's by default. */
  get acting(): ActingTeam | undefined {
    return this.actingTeamNow;
  }

  set acting(team: ActingTeam | undefined) {
    this.actingTeamNow = team;
    if (team?.enterpriseId) this.lastInOrg.set(team.enterpriseId, team.id);
  }

  /**
   * The workspace an org-wide install's call is for. Kudos' calls name no team_id and the simulator's
   * workspaces share channel ids, so it is the org's workspace that last sent the app a request (the
   * acting one, if it is in the org); else the org's first.
   */
  orgTeam(enterpriseId: string): string {
    const acting = this.actingTeam();
    if (acting.enterpriseId === enterpriseId) return acting.id;
    return (
      this.lastInOrg.get(enterpriseId) ??
      this.installs?.teams.find((t) => t.enterpriseId === enterpriseId)?.id ??
      enterpriseId
    );
  }
  /** The workspace the Web API call being answered acts for (its token's), else the acting one. */
  callTeam: { id: string; enterpriseId: string | undefined } | undefined;

  actingTeam(): ActingTeam {
    return (
      this.acting ?? {
        id: this.workspace.team.id,
        domain: this.workspace.team.domain,
        enterpriseId: undefined,
        orgWide: false,
      }
    );
  }

  /** team_id of users and messages in answers: the call's workspace. */
  teamIdOfCall(): string {
    return this.callTeam?.id ?? this.actingTeam().id;
  }

  /**
   * Distribution mode: the workspace whose messages and Home tabs a call or request sees (each workspace
   * has its own). Single-workspace mode: undefined, one workspace.
   */
  scopeTeam(): string | undefined {
    return this.installs ? this.teamIdOfCall() : undefined;
  }

  /** The Home tab view id of a user, in the current workspace. */
  homeOf(userId: string): string | undefined {
    return this.homes.get(this.homeKey(userId));
  }

  setHome(userId: string, viewId: string): void {
    this.homes.set(this.homeKey(userId), viewId);
  }

  private homeKey(userId: string): string {
    const team = this.scopeTeam();
    return team ? `${team}/${userId}` : userId;
  }

  onChange(listener: () => void): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  changed(): void {
    this.version++;
    for (const l of this.changeListeners) l();
  }

  user(id: string): WorkspaceUser | undefined {
    return this.workspace.users.find((u) => u.id === id);
  }

  channel(id: string) {
    return this.workspace.channels.find((c) => c.id === id);
  }

  /** The IM channel between the app and a user (conversations.open; Slack opens it on first DM). */
  imFor(userId: string): string {
    return `D_${userId}`;
  }

  imUser(channelId: string): string | undefined {
    if (!channelId.startsWith('D_')) return undefined;
    const userId = channelId.slice(2);
    return this.user(userId) ? userId : undefined;
  }

  /** A unique, increasing message ts (`seconds.micros`) as Slack's. */
  nextTs(): string {
    const micros = Math.max(this.now() * 1000, this.lastTsMicros + 1);
    this.lastTsMicros = micros;
    const s = Math.floor(micros / 1_000_000);
    const frac = String(Math.floor(micros % 1_000_000)).padStart(6, '0');
    return `${s}.${frac}`;
  }

  nextId(prefix: string): string {
    this.counter++;
    return `${prefix}${this.counter.toString(36).toUpperCase().padStart(8, '0')}`;
  }

  newHash(): string {
    return `${Math.floor(this.now() / 1000)}.${randomBytes(4).toString('hex')}`;
  }

  /** A workflow token still valid: the run it belongs to has not completed (Slack revokes it then). */
  workflowRunByToken(token: string): WorkflowStepRun | undefined {
    for (const run of this.workflowSteps.values()) if (run.token === token && run.state === 'running') return run;
    return undefined;
  }

  issueTrigger(userId: string): string {
    const id = `${Math.floor(this.now() / 1000)}.${Math.floor(Math.random() * 1e12)}.${randomBytes(16).toString('hex')}`;
    this.triggers.set(id, { userId, issuedAt: this.now(), used: false });
    return id;
  }

  /** Consumes a trigger_id: Slack's `invalid_trigger_id`, `exchanged_trigger_id`, `expired_trigger_id`. */
  useTrigger(id: unknown): { ok: true; userId: string } | { ok: false; error: string } {
    if (typeof id !== 'string' || id === '') return { ok: false, error: 'invalid_arguments' };
    const t = this.triggers.get(id);
    if (!t) return { ok: false, error: 'invalid_trigger_id' };
    if (t.used) return { ok: false, error: 'exchanged_trigger_id' };
    if (this.now() - t.issuedAt > this.triggerTtlMs) return { ok: false, error: 'expired_trigger_id' };
    t.used = true;
    return { ok: true, userId: t.userId };
  }

  issueResponseUrl(userId: string, channel: string, sourceTs?: string): ResponseUrl {
    const r: ResponseUrl = {
      id: randomBytes(12).toString('hex'),
      userId,
      channel,
      sourceTs,
      issuedAt: this.now(),
      uses: 0,
      team: this.scopeTeam(),
    };
    this.responseUrls.set(r.id, r);
    return r;
  }

  findMessage(channel: string, ts: string, team = this.scopeTeam()): Message | undefined {
    return this.messageByKey.get(messageKey(team, channel, ts));
  }

  postMessage(m: Omit<Message, 'ts'> & { ts?: string | undefined }): Message {
    const team = m.team ?? this.scopeTeam();
    const message: Message = { ...m, ts: m.ts ?? this.nextTs(), ...(team ? { team } : {}) };
    this.addToIndex(message);
    this.changed();
    return message;
  }

  /** A person adds a reaction to a message, or takes theirs back: 'added' or 'removed'. */
  toggleReaction(message: Message, userId: string, name: string): 'added' | 'removed' {
    const reactions = (message.reactions ??= []);
    let reaction = reactions.find((r) => r.name === name);
    if (!reaction) reactions.push((reaction = { name, users: [] }));
    const at = reaction.users.indexOf(userId);
    if (at >= 0) reaction.users.splice(at, 1);
    else reaction.users.push(userId);
    message.reactions = reactions.filter((r) => r.users.length > 0);
    this.changed();
    return at >= 0 ? 'removed' : 'added';
  }

  deleteMessage(channel: string, ts: string, team = this.scopeTeam()): boolean {
    const message = this.findMessage(channel, ts, team);
    if (!message) return false;
    this.messageByKey.delete(messageKey(message.team, channel, ts));
    this.allMessages.splice(this.allMessages.lastIndexOf(message), 1);
    const inChannel = this.messagesByChannel.get(channelKey(message.team, channel))!;
    inChannel.splice(inChannel.lastIndexOf(message), 1);
    this.changed();
    return true;
  }

  /**
   * Messages of a channel (or of the IM with a user when given a user id), in posting order: in
   * distribution mode, the current workspace's. Without a channel: every message of every workspace.
   */
  messagesIn(channel?: string): Message[] {
    if (channel === undefined) return [...this.allMessages];
    const id = this.user(channel) ? this.imFor(channel) : channel;
    return [...(this.messagesByChannel.get(channelKey(this.scopeTeam(), id)) ?? [])];
  }

  private addToIndex(message: Message): void {
    this.allMessages.push(message);
    this.messageByKey.set(messageKey(message.team, message.channel, message.ts), message);
    const key = channelKey(message.team, message.channel);
    const inChannel = this.messagesByChannel.get(key);
    if (inChannel) inChannel.push(message);
    else this.messagesByChannel.set(key, [message]);
  }

  stackOf(userId: string): string[] {
    return this.stacks.get(userId) ?? [];
  }

  /** Builds the stored view object Slack returns, from the app's view argument. */
  materializeView(
    arg: Json,
    opts: { id?: string; rootId?: string; previousId?: string | null; type: 'modal' | 'home'; keepState?: View },
  ): View {
    const id = opts.id ?? this.nextId('V');
    const blocks = withBlockIds(arg.blocks as Block[]);
    const view: View = {
      id,
      team_id: this.workspace.team.id,
      type: opts.type,
      blocks,
      private_metadata: typeof arg.private_metadata === 'string' ? arg.private_metadata : '',
      callback_id: typeof arg.callback_id === 'string' ? arg.callback_id : '',
      external_id: typeof arg.external_id === 'string' ? arg.external_id : '',
      state: { values: {} },
      hash: this.newHash(),
      clear_on_close: arg.clear_on_close === true,
      notify_on_close: arg.notify_on_close === true,
      previous_view_id: opts.previousId ?? null,
      root_view_id: opts.rootId ?? id,
      app_id: this.workspace.app.appId,
      app_installed_team_id: this.workspace.team.id,
      bot_id: this.workspace.app.botId,
    };
    if (opts.type === 'modal') {
      view.title = withEmoji(arg.title as Json);
      view.submit = arg.submit ? withEmoji(arg.submit as Json) : null;
      view.close = arg.close ? withEmoji(arg.close as Json) : null;
    }
    return view;
  }

  openModal(userId: string, view: View): void {
    for (const old of this.stackOf(userId)) this.forgetView(old);
    this.stacks.set(userId, [view.id]);
    this.storeView(userId, view);
  }

  pushModal(userId: string, view: View): void {
    const stack = this.stackOf(userId);
    this.stacks.set(userId, [...stack, view.id]);
    this.storeView(userId, view);
  }

  storeView(userId: string, view: View): void {
    this.views.set(view.id, view);
    this.viewOwner.set(view.id, userId);
    this.changed();
  }

  /** Replaces a view's content in place (views.update, response_action update): same id, new hash. */
  replaceView(viewId: string, arg: Json): View {
    const old = this.views.get(viewId)!;
    const next = this.materializeView(arg, {
      id: old.id,
      rootId: old.root_view_id,
      previousId: old.previous_view_id,
      type: old.type,
    });
    // As Slack: what the user entered survives where the new view keeps the block_id and action_id.
    const kept: Record<string, Record<string, unknown>> = {};
    for (const block of next.blocks) {
      const blockId = typeof block.block_id === 'string' ? block.block_id : undefined;
      const actionId = (block.element as Json | undefined)?.action_id;
      if (block.type !== 'input' || !blockId || typeof actionId !== 'string') continue;
      const value = (old.state.values as Record<string, Record<string, unknown> | undefined>)[blockId]?.[actionId];
      if (value !== undefined) kept[blockId] = { [actionId]: value };
    }
    next.state = { values: kept as View['state']['values'] };
    this.views.set(viewId, next);
    this.viewErrors.delete(viewId);
    this.changed();
    return next;
  }

  /** Pops the top view of a user's stack (submit with an empty ack, or Cancel/Back). */
  popModal(userId: string): void {
    const stack = this.stackOf(userId);
    const top = stack.pop();
    if (top) this.forgetView(top);
    this.stacks.set(userId, stack);
    this.changed();
  }

  /** Closes one view of a user's stack and the views pushed above it (an empty submit ack). */
  closeModal(userId: string, viewId: string): void {
    const stack = this.stackOf(userId);
    const at = stack.indexOf(viewId);
    if (at < 0) return;
    for (const id of stack.splice(at)) this.forgetView(id);
    this.stacks.set(userId, stack);
    this.changed();
  }

  clearModals(userId: string): void {
    for (const id of this.stackOf(userId)) this.forgetView(id);
    this.stacks.set(userId, []);
    this.changed();
  }

  private forgetView(id: string): void {
    this.views.delete(id);
    this.viewOwner.delete(id);
    this.viewErrors.delete(id);
  }

  /** What survives a restart (`npm run dev` keeps its data): messages and Home tabs; modals and triggers do not. */
  snapshot(): PersistedState {
    const homes = [...this.homes.entries()].flatMap(([userId, viewId]) => {
      const view = this.views.get(viewId);
      return view ? [{ userId, view }] : [];
    });
    return { version: 1, messages: this.allMessages, homes, lastTsMicros: this.lastTsMicros, counter: this.counter };
  }

  restore(saved: PersistedState): void {
    this.allMessages.length = 0;
    this.messageByKey.clear();
    this.messagesByChannel.clear();
    for (const message of saved.messages) this.addToIndex(message);
    for (const { userId, view } of saved.homes) {
      this.homes.set(userId, view.id);
      this.views.set(view.id, view);
      // Distribution mode keys Home tabs by workspace and user (`T…/U…`); the view's owner is the user.
      this.viewOwner.set(view.id, userId.slice(userId.lastIndexOf('/') + 1));
    }
    this.lastTsMicros = Math.max(this.lastTsMicros, saved.lastTsMicros);
    this.counter = Math.max(this.counter, saved.counter);
  }

  openViews(userId?: string): View[] {
    const users = userId === undefined ? [...this.stacks.keys()] : [userId];
    return users.flatMap((u) =>
      this.stackOf(u)
        .map((id) => this.views.get(id))
        .filter((v): v is View => v !== undefined),
    );
  }
}

function channelKey(team: string | undefined, channel: string): string {
  return team ? `${team}/${channel}` : channel;
}

function messageKey(team: string | undefined, channel: string, ts: string): string {
  return `${channelKey(team, channel)} ${ts}`;
}

function withEmoji(text: Json): Json {
  return text.type === 'plain_text' && text.emoji === undefined ? { ...text, emoji: true } : text;
}

/** Slack stores blocks with a block_id; it makes one up when the app leaves it out. */
export function withBlockIds(blocks: Block[]): Block[] {
  return blocks.map((b) => (typeof b.block_id === 'string' ? b : { ...b, block_id: randomBlockId() }));
}

/** Slack fills in a random block_id when the app leaves it out. */
function randomBlockId(): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  return Array.from(randomBytes(4), (b) => alphabet[b % alphabet.length]).join('');
}
