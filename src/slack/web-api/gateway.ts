// The one module for outbound Slack Web API calls (post, update, DM, views, user lookups), so that
// the domain never sees Bolt, and tests can observe every call in the simulator's log.
import type { types, webApi } from '@slack/bolt';

import {
  type ChatOutcome,
  ChatRefusal,
  type Messenger,
  type PostedMessage,
  type ProfileField,
  type RenderedMessage,
  type WorkspaceUser,
} from '../../domain/common/ports.js';
import type { DirectWebApiCall } from './direct-web-api.js';
import { POST_MAX_WAIT_MS, type SlackPacer, UNPACED } from './pacing.js';

type WebClient = webApi.WebClient;
type KnownBlock = types.KnownBlock;

/** A Slack user: the domain's WorkspaceUser (src/domain/common/ports.ts). */
export type SlackUser = WorkspaceUser;

/** Presenters render Block Kit (each feature's builders); the domain forwards it untouched. */
const blocksOf = (message: RenderedMessage) => (message.blocks ? { blocks: message.blocks as KnownBlock[] } : {});

/** A text file the app shares (an export): its name, the title Slack shows, its text, the message with it. */
export interface SharedFile {
  filename: string;
  title: string;
  content: string;
  comment: string;
}

export interface SlackUsergroup {
  id: string;
  handle: string;
  name: string;
}

/**
 * One workspace's Slack: the domain's ports (Messenger, UserDirectory) for that workspace over the
 * Slack Web API, and the views. src/slack/web-api/workspace-gateways.ts gives each workspace its own (its token, its
 * caches) and implements the ports, which name the workspace in every call.
 */
export interface SlackGateway {
  /** users.info, cached for a minute (concurrent lookups share one call). */
  userInfo(userId: string): Promise<SlackUser | undefined>;
  /** Rejects with a ChatRefusal of outcome `not_found` for an id that is no user group. */
  usergroupMembers(usergroupId: string): Promise<string[]>;
  postMessage(channel: string, message: Parameters<Messenger['postMessage']>[2]): Promise<PostedMessage>;
  /** Absent without history reads (distribution mode). */
  findMessageByMetadata?: (
    channel: string,
    query: Parameters<NonNullable<Messenger['findMessageByMetadata']>>[2],
  ) => Promise<string | undefined>;
  updateMessage(channel: string, ts: string, message: RenderedMessage): Promise<void>;
  sendDirectMessage(userId: string, message: RenderedMessage): Promise<PostedMessage>;
  /**
   * A file shared into a person's DM with a comment (scope files:write): files.uploadV2, i.e.
   * files.getUploadURLExternal, the bytes to the URL it answers, files.completeUploadExternal.
   */
  sendFileDirectly(userId: string, file: SharedFile): Promise<void>;
  /** team.profile.get: the workspace's custom profile fields (scope users.profile:read). */
  profileFields(): Promise<ProfileField[]>;
  /** users.profile.get: one person's custom field values by field id (scope users.profile:read). */
  profileFieldValues(userId: string): Promise<Record<string, string>>;
  /**
   * An uploaded file's text (a modal's file_input): files.info, then its url_private_download with the
   * bot token (scope files:read). `too_large` without downloading when Slack says it is over `maxBytes`.
   */
  readUploadedFile(
    fileId: string,
    maxBytes: number,
  ): Promise<{ name: string; text: string } | { error: 'not_found' | 'too_large' }>;
  /** functions.completeSuccess / completeError with the workflow's own token (a step finished later). */
  finishWorkflowStep(
    token: string,
    functionExecutionId: string,
    result: { ok: true; outputs: Record<string, string> } | { ok: false; error: string },
  ): Promise<void>;
  /** Drops a cached user (user_change). */
  forgetUser?(userId: string): void;
  listUsergroups(): Promise<SlackUsergroup[]>;
  /** conversations.open, remembered. findMessageByMetadata reads conversations.history or .replies. */
  openDirectChannel(userId: string): Promise<string>;
  postEphemeral(channel: string, userId: string, message: RenderedMessage): Promise<void>;
  openView(triggerId: string, view: Record<string, unknown>): Promise<string | undefined>;
  /** views.push: a modal over the open one (from a click inside it); answers the new view's id. */
  pushView(triggerId: string, view: Record<string, unknown>): Promise<string | undefined>;
  /** views.update of an open modal; with `hash`, Slack refuses it (hash_conflict) if the view changed meanwhile. */
  updateView(viewId: string, view: Record<string, unknown>, hash?: string): Promise<void>;
  publishHome(userId: string, view: Record<string, unknown>): Promise<void>;
  /**
   * Can the app post in this channel? A public channel it is not in is joined (conversations.join);
   * a private one needs an invitation. `missing`: no such channel for the app (deleted, or private).
   */
  ensureChannelMember(channel: string): Promise<'member' | 'joined' | 'not_member' | 'missing'>;
  /** chat.getPermalink: a link to a message; undefined when Slack has none (deleted, no access). */
  permalink(channel: string, ts: string): Promise<string | undefined>;
}

/**
 * Connection errors before anything was sent (no socket opened): the request certainly did not reach
 * Slack. A reset or a timeout after connecting is not among them: that post may have been made.
 */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

/** Slack errors that mean the app cannot post in a channel until an admin acts. */
const UNREACHABLE_CHANNEL_ERRORS = new Set(['not_in_channel', 'channel_not_found', 'is_archived']);
/** Slack errors of usergroups.users.list for an id that is no user group. */
const UNKNOWN_USERGROUP_ERRORS = new Set(['no_such_subteam', 'subteam_not_found', 'invalid_arguments']);
/** The shape of a Slack user group id: anything else is not sent to Slack at all. */
const SLACK_USERGROUP_ID = /^S[A-Z0-9_]{2,}$/;

/**
 * Slack's errors in the domain's words (ChatRefusal, domain/common/ports.ts): an `ok: false` answer is a
 * refusal (an unreachable channel when an admin must act, `notFound` when the call names its
 * not-found codes), a 429 is `rate_limited` with Slack's Retry-After. Anything else (a timeout, a
 * lost answer) is passed on as it is: the outcome is unknown.
 */
export function toChatRefusal(error: unknown, notFound: ReadonlySet<string> = new Set()): unknown {
  const e = error as { code?: unknown; data?: { error?: unknown }; retryAfter?: unknown } | null;
  if (e?.code === 'slack_webapi_rate_limited_error') {
    const retryAfter = Number(e.retryAfter);
    return new ChatRefusal('rate_limited', 'ratelimited', {
      cause: error,
      ...(Number.isFinite(retryAfter) && retryAfter > 0 ? { retryAfterSeconds: retryAfter } : {}),
    });
  }
  if (e?.code === 'slack_webapi_request_error') {
    // The connection's own error: on the original (axios) or its cause (fetch: "fetch failed").
    const original = (e as { original?: { code?: unknown; cause?: { code?: unknown } } }).original;
    const code = String(original?.code ?? original?.cause?.code);
    if (NOT_SENT_CODES.has(code)) return new ChatRefusal('not_sent', code, { cause: error });
  }
  if (e?.code !== 'slack_webapi_platform_error') return error;
  const code = typeof e.data?.error === 'string' ? e.data.error : 'unknown_error';
  const outcome: ChatOutcome = notFound.has(code)
    ? 'not_found'
    : UNREACHABLE_CHANNEL_ERRORS.has(code)
      ? 'channel_unreachable'
      : 'refused';
  return new ChatRefusal(outcome, code, { cause: error });
}

/** Slack errors of functions.complete* for a step run that is over (or whose token is). */
const STEP_GONE_ERRORS = new Set([
  'function_execution_not_found',
  'invalid_auth',
  'token_expired',
  'token_revoked',
  'not_authed',
]);

/** Runs a port's call, rejecting with Slack's errors translated (toChatRefusal). */
async function translated<T>(call: () => Promise<T>, notFound?: ReadonlySet<string>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw toChatRefusal(error, notFound);
  }
}

interface RawSlackUser {
  id?: string | undefined;
  team_id?: string | undefined;
  name?: string | undefined;
  real_name?: string | undefined;
  deleted?: boolean | undefined;
  is_bot?: boolean | undefined;
  is_admin?: boolean | undefined;
  is_owner?: boolean | undefined;
  is_primary_owner?: boolean | undefined;
  is_restricted?: boolean | undefined;
  is_ultra_restricted?: boolean | undefined;
  is_invited_user?: boolean | undefined;
  tz?: string | undefined;
  profile?:
    | {
        email?: string | undefined;
        real_name?: string | undefined;
        display_name?: string | undefined;
        first_name?: string | undefined;
        last_name?: string | undefined;
      }
    | undefined;
}

/** users.info answers kept per workspace (the oldest goes first beyond it). */
export const USER_CACHE_MAX = 2_000;

/** Maps Slack's user object (users.info, user_change) to ours. */
export function toSlackUser(raw: RawSlackUser): SlackUser {
  const profile = raw.profile ?? {};
  const realName = profile.real_name || raw.real_name || raw.name || raw.id || '';
  const [first, ...rest] = realName.split(' ');
  return {
    id: raw.id ?? '',
    teamId: raw.team_id,
    name: raw.name ?? '',
    realName,
    displayName: profile.display_name || '',
    firstName: profile.first_name || first || undefined,
    lastName: profile.last_name || (rest.length > 0 ? rest.join(' ') : undefined),
    email: profile.email && profile.email.includes('@') ? profile.email.trim() : undefined,
    tz: raw.tz,
    // USLACKBOT is not flagged as a bot by Slack, but cannot receive a card either.
    isBot: Boolean(raw.is_bot) || raw.id === 'USLACKBOT',
    deleted: Boolean(raw.deleted),
    isAdmin: Boolean(raw.is_admin),
    isOwner: Boolean(raw.is_owner || raw.is_primary_owner),
    // Slack marks a single-channel guest with both flags; either one makes a guest.
    isGuest: Boolean(raw.is_restricted || raw.is_ultra_restricted),
    isInvited: Boolean(raw.is_invited_user),
  };
}

/**
 * The WebClient options of the client that posts messages (chat.postMessage has no idempotency key):
 * never retried (a lost answer is recovered by the notice outbox), and a 429 fails at once with
 * Slack's Retry-After (`rate_limited`), so the outbox posts it again after that long. Without
 * `rejectRateLimitedCalls`, WebClient would pause its whole queue (every workspace's calls) for the
 * Retry-After and then fail with an error that reads as a lost answer.
 */
export const POST_CLIENT_OPTIONS = { retryConfig: { retries: 0 }, rejectRateLimitedCalls: true } as const;

export interface SlackGatewayOptions {
  /**
   * false: the gateway offers no findMessageByMetadata (conversations.history/.replies are never
   * called); the notice outbox then re-posts a notice whose answer was lost. Default true.
   */
  historyReads?: boolean;
  /** Client for chat.postMessage; give one that does not retry (a lost answer retried posts twice). */
  postClient?: WebClient;
  /** How long a users.info answer is reused; 0 disables the cache. Default 60 s. */
  userCacheTtlMs?: number;
  /** users.info and views.open through this instead of `client` (the `/kudos` path; see direct-web-api.ts). */
  direct?: DirectWebApiCall;
  /**
   * The workspace's bot token, asked before every call (distribution mode: its installation's, refreshed
   * when it nears expiry). Absent: the clients' own token (single-workspace mode).
   */
  token?: () => Promise<string>;
  now?: () => number;
  /**
   * Slack's rate limits for this workspace (pacing.ts): posts per channel and workspace, the methods
   * called in bulk by tier. Default: unpaced.
   */
  pacer?: SlackPacer;
}

/**
 * A gateway is kept per workspace (src/slack/web-api/workspace-gateways.ts, up to 2,000 at once), so it is a class:
 * its methods live once on the prototype, each instance holds only its fields (about 100 bytes), and
 * its caches are made at their first entry (memory per workspace).
 */
class Gateway implements SlackGateway {
  private readonly ttl: number;
  private readonly postClient: WebClient;
  private readonly now: () => number;
  private readonly pacer: SlackPacer;
  private readonly direct: DirectWebApiCall | undefined;
  private readonly tokenOf: (() => Promise<string>) | undefined;
  // Sender checks, recipient checks and admin checks all ask for the same people within seconds;
  // Slack rate-limits users.info per minute.
  // `pending` while users.info runs (concurrent lookups share it), then `user`: the answer alone is
  // kept, not its promise (which holds the async context of the request that asked).
  private users:
    | Map<string, { at: number; pending: Promise<SlackUser | undefined> | undefined; user: SlackUser | undefined }>
    | undefined = undefined;
  private dmChannels: Map<string, string> | undefined = undefined;

  constructor(
    protected readonly client: WebClient,
    opts: SlackGatewayOptions,
  ) {
    this.ttl = opts.userCacheTtlMs ?? 60_000;
    this.postClient = opts.postClient ?? client;
    this.now = opts.now ?? Date.now;
    this.pacer = opts.pacer ?? UNPACED;
    this.direct = opts.direct;
    this.tokenOf = opts.token;
  }

  /** The per-call `token` argument of every Web API call (distribution mode). */
  protected async tok(): Promise<{ token?: string }> {
    return this.tokenOf ? { token: await this.tokenOf() } : {};
  }

  private async fetchUser(userId: string): Promise<SlackUser | undefined> {
    const { client, direct, tokenOf } = this;
    try {
      const res = (await this.pacer.method('users.info', async () =>
        direct
          ? await direct('users.info', { user: userId }, 'form', tokenOf ? await tokenOf() : undefined)
          : await client.users.info({ ...(await this.tok()), user: userId }),
      )) as {
        user?: unknown;
      };
      return res.user ? toSlackUser(res.user) : undefined;
    } catch (error) {
      if ((error as { data?: { error?: string } }).data?.error === 'user_not_found') return undefined;
      throw error;
    }
  }

  userInfo(userId: string): Promise<SlackUser | undefined> {
    const cached = this.users?.get(userId);
    if (cached && this.now() - cached.at < this.ttl) return cached.pending ?? Promise.resolve(cached.user);
    const user = this.fetchUser(userId);
    if (this.ttl > 0) {
      const users = (this.users ??= new Map());
      const entry = {
        at: this.now(),
        pending: user as Promise<SlackUser | undefined> | undefined,
        user: undefined as SlackUser | undefined,
      };
      // Bounded: a 1,000-member group's kudos asks for everyone once. Map order is insertion order,
      // so re-inserting keeps the oldest answer first, and it goes first.
      users.delete(userId);
      users.set(userId, entry);
      if (users.size > USER_CACHE_MAX) users.delete(users.keys().next().value);
      user.then(
        (found) => {
          entry.user = found;
          entry.pending = undefined;
        },
        () => {
          if (users.get(userId) === entry) users.delete(userId);
        },
      );
    }
    return user;
  }

  forgetUser(userId: string): void {
    this.users?.delete(userId);
  }

  async readUploadedFile(
    fileId: string,
    maxBytes: number,
  ): Promise<{ name: string; text: string } | { error: 'not_found' | 'too_large' }> {
    let info: { file?: { name?: string; size?: number; url_private_download?: string } };
    try {
      info = (await this.client.apiCall('files.info', { ...(await this.tok()), file: fileId })) as typeof info;
    } catch (error) {
      if ((error as { data?: { error?: string } }).data?.error === 'file_not_found') return { error: 'not_found' };
      throw error;
    }
    const file = info.file;
    if (!file?.url_private_download) return { error: 'not_found' };
    if ((file.size ?? 0) > maxBytes) return { error: 'too_large' };
    const token = this.tokenOf ? await this.tokenOf() : this.client.token;
    const res = await fetch(file.url_private_download, {
      headers: token ? { authorization: `Bearer ${token}` } : {},
      signal: AbortSignal.timeout(5_000),
    });
    if (!res.ok) throw new Error(`downloading ${fileId} from Slack: HTTP ${res.status}`);
    const bytes = Buffer.from(await res.arrayBuffer());
    if (bytes.length > maxBytes) return { error: 'too_large' };
    return { name: file.name ?? fileId, text: bytes.toString('utf8') };
  }

  async finishWorkflowStep(
    token: string,
    functionExecutionId: string,
    result: { ok: true; outputs: Record<string, string> } | { ok: false; error: string },
  ): Promise<void> {
    // Slack's refusals (the run ended, the token expired) come back as ChatRefusal: the step is given up.
    const args = result.ok ? { outputs: result.outputs } : { error: result.error };
    await translated(
      () =>
        this.client.apiCall(result.ok ? 'functions.completeSuccess' : 'functions.completeError', {
          token,
          function_execution_id: functionExecutionId,
          ...args,
        }),
      STEP_GONE_ERRORS,
    );
  }

  async profileFields(): Promise<ProfileField[]> {
    const res = (await this.client.apiCall('team.profile.get', { ...(await this.tok()) })) as {
      profile?: { fields?: Array<{ id?: string; label?: string; type?: string }> };
    };
    return (res.profile?.fields ?? [])
      .filter((f) => f.id)
      .map((f) => ({ id: f.id!, label: f.label ?? f.id!, type: f.type ?? 'text' }));
  }

  async profileFieldValues(userId: string): Promise<Record<string, string>> {
    const res = (await this.pacer.method('users.profile.get', async () =>
      this.client.apiCall('users.profile.get', { ...(await this.tok()), user: userId }),
    )) as {
      profile?: { fields?: Record<string, { value?: string } | null> | unknown[] | null };
    };
    const fields = res.profile?.fields;
    // Slack sends `[]` (not `{}`) for a profile with no custom fields.
    if (!fields || Array.isArray(fields)) return {};
    return Object.fromEntries(Object.entries(fields).flatMap(([id, f]) => (f?.value ? [[id, f.value]] : [])));
  }

  async usergroupMembers(usergroupId: string): Promise<string[]> {
    if (!SLACK_USERGROUP_ID.test(usergroupId)) throw new ChatRefusal('not_found', 'not a user group id');
    const res = await translated(
      () =>
        this.pacer.method('usergroups.users.list', async () =>
          this.client.usergroups.users.list({ ...(await this.tok()), usergroup: usergroupId }),
        ),
      UNKNOWN_USERGROUP_ERRORS,
    );
    return res.users ?? [];
  }

  async listUsergroups(): Promise<SlackUsergroup[]> {
    const res = await this.client.usergroups.list({ ...(await this.tok()) });
    return (res.usergroups ?? []).map((g) => ({
      id: g.id ?? '',
      handle: g.handle ?? '',
      name: g.name ?? g.handle ?? '',
    }));
  }

  async postMessage(channel: string, message: Parameters<Messenger['postMessage']>[2]): Promise<PostedMessage> {
    const res = await translated(() =>
      this.pacer.post(channel, async () =>
        this.postClient.chat.postMessage({
          ...(await this.tok()),
          channel,
          text: message.text,
          ...blocksOf(message),
          ...(message.threadTs ? { thread_ts: message.threadTs } : {}),
          ...(message.metadata
            ? { metadata: { event_type: message.metadata.eventType, event_payload: message.metadata.payload } }
            : {}),
          unfurl_links: false,
          unfurl_media: false,
        }),
      ),
    );
    return { channel: res.channel ?? channel, ts: res.ts ?? '' };
  }

  async openDirectChannel(userId: string): Promise<string> {
    // The DM channel of a user never changes: open it once (bench: saves 2 Slack calls per kudos).
    const known = this.dmChannels?.get(userId);
    if (known) return known;
    const opened = await translated(() =>
      this.pacer.method(
        'conversations.open',
        async () => this.client.conversations.open({ ...(await this.tok()), users: userId }),
        { maxWaitMs: POST_MAX_WAIT_MS },
      ),
    );
    const channel = opened.channel?.id;
    if (!channel) throw new Error(`conversations.open gave no channel for ${userId}`);
    const dmChannels = (this.dmChannels ??= new Map());
    if (dmChannels.size >= 10_000) dmChannels.clear();
    dmChannels.set(userId, channel);
    return channel;
  }

  async postEphemeral(channel: string, userId: string, message: RenderedMessage): Promise<void> {
    await this.client.chat.postEphemeral({
      ...(await this.tok()),
      channel,
      user: userId,
      text: message.text,
      ...blocksOf(message),
    });
  }

  async updateMessage(channel: string, ts: string, message: RenderedMessage): Promise<void> {
    await translated(async () =>
      this.client.chat.update({ ...(await this.tok()), channel, ts, text: message.text, ...blocksOf(message) }),
    );
  }

  async sendDirectMessage(userId: string, message: RenderedMessage): Promise<PostedMessage> {
    const channel = await this.openDirectChannel(userId);
    try {
      return await this.postMessage(channel, message);
    } catch (error) {
      this.dmChannels?.delete(userId);
      throw error;
    }
  }

  async sendFileDirectly(userId: string, file: SharedFile): Promise<void> {
    const channel = await this.openDirectChannel(userId);
    // Rare (an admin's export) and not in bulk: unpaced. Through the general client (one retry): at
    // worst a lost completeUploadExternal answer shares the same file twice in the admin's DM.
    await translated(async () =>
      this.client.files.uploadV2({
        ...(await this.tok()),
        channel_id: channel,
        filename: file.filename,
        title: file.title,
        content: file.content,
        initial_comment: file.comment,
      }),
    );
  }

  async openView(triggerId: string, view: Record<string, unknown>): Promise<string | undefined> {
    const { direct, tokenOf } = this;
    const res = (
      direct
        ? await direct('views.open', { trigger_id: triggerId, view }, 'json', tokenOf ? await tokenOf() : undefined)
        : await this.client.views.open({ ...(await this.tok()), trigger_id: triggerId, view: view as never })
    ) as {
      view?: { id?: string };
    };
    return res.view?.id;
  }

  async pushView(triggerId: string, view: Record<string, unknown>): Promise<string | undefined> {
    const res = await this.client.views.push({ ...(await this.tok()), trigger_id: triggerId, view: view as never });
    return res.view?.id;
  }

  async updateView(viewId: string, view: Record<string, unknown>, hash?: string): Promise<void> {
    await this.client.views.update({
      ...(await this.tok()),
      view_id: viewId,
      ...(hash ? { hash } : {}),
      view: view as never,
    });
  }

  async publishHome(userId: string, view: Record<string, unknown>): Promise<void> {
    await this.pacer.method('views.publish', async () =>
      this.client.views.publish({ ...(await this.tok()), user_id: userId, view: view as never }),
    );
  }

  async ensureChannelMember(channel: string): Promise<'member' | 'joined' | 'not_member' | 'missing'> {
    const code = (error: unknown) => (error as { data?: { error?: string } }).data?.error ?? '';
    let info;
    try {
      info = (await this.client.conversations.info({ ...(await this.tok()), channel })).channel;
    } catch (error) {
      if (code(error) === 'channel_not_found') return 'missing';
      throw error;
    }
    if (!info || info.is_archived) return 'missing';
    if (info.is_member || info.is_im) return 'member';
    if (info.is_private) return 'not_member';
    try {
      await this.client.conversations.join({ ...(await this.tok()), channel });
      return 'joined';
    } catch {
      return 'not_member';
    }
  }

  async permalink(channel: string, ts: string): Promise<string | undefined> {
    try {
      return (await this.client.chat.getPermalink({ ...(await this.tok()), channel, message_ts: ts })).permalink;
    } catch (error) {
      if (
        ['message_not_found', 'channel_not_found'].includes((error as { data?: { error?: string } }).data?.error ?? '')
      )
        return undefined;
      throw error;
    }
  }
}

/** A gateway that finds a lost post in the channel's history (single-workspace mode). */
class HistoryReadingGateway extends Gateway {
  async findMessageByMetadata(
    channel: string,
    query: Parameters<NonNullable<Messenger['findMessageByMetadata']>>[2],
  ): Promise<string | undefined> {
    const oldest = (query.since.getTime() / 1000).toFixed(6);
    let cursor: string | undefined;
    // Newest first for history; a thread's replies come oldest first. Either way every page is read.
    for (let page = 0; page < 50; page++) {
      const common = {
        ...(await this.tok()),
        channel,
        oldest,
        limit: 200,
        include_all_metadata: true,
        ...(cursor ? { cursor } : {}),
      };
      const res = await translated(() =>
        query.threadTs
          ? this.client.conversations.replies({ ...common, ts: query.threadTs })
          : this.client.conversations.history(common),
      );
      for (const m of (res.messages ?? []) as Array<{
        metadata?: { event_type?: string; event_payload?: Record<string, unknown> };
        ts?: string;
      }>) {
        if (
          m.metadata?.event_type === query.eventType &&
          m.metadata.event_payload &&
          query.match(m.metadata.event_payload) &&
          m.ts
        )
          return m.ts;
      }
      cursor = res.response_metadata?.next_cursor || undefined;
      if (!cursor || !res.has_more) return undefined;
    }
    return undefined;
  }
}

export function createSlackGateway(client: WebClient, opts: SlackGatewayOptions = {}): SlackGateway {
  // Distribution mode: no history reads (Slack's limits for apps outside the Marketplace, no *:history scopes).
  return opts.historyReads === false ? new Gateway(client, opts) : new HistoryReadingGateway(client, opts);
}

/** Reads every page of users.list; `onWait` learns how long each page waits for its slot of Slack's limit. */
export type UserLister = (opts?: { onWait?: (waitMs: number) => void }) => Promise<SlackUser[]>;

/** users.list, every page, as SlackUsers, paced (Tier 2) by `pacer` (big groups' checks, the approvers' admins-and-owners fallback). */
export function createUserLister(
  client: {
    users: {
      list(args: {
        limit?: number;
        cursor?: string;
        token?: string;
      }): Promise<{ members?: unknown[]; response_metadata?: { next_cursor?: string } }>;
    };
  },
  token?: () => Promise<string>,
  pacer: SlackPacer = UNPACED,
): UserLister {
  return async (opts = {}) => {
    const users: SlackUser[] = [];
    let cursor: string | undefined;
    do {
      const page = cursor;
      const res = await pacer.method(
        'users.list',
        async () =>
          client.users.list({
            ...(token ? { token: await token() } : {}),
            limit: 200,
            ...(page ? { cursor: page } : {}),
          }),
        opts.onWait ? { onWait: opts.onWait } : {},
      );
      users.push(...(res.members ?? []).map((m) => toSlackUser(m as never)));
      cursor = res.response_metadata?.next_cursor || undefined;
    } while (cursor);
    return users;
  };
}
