// The simulated Slack Web API: one handler per method, each checking Slack's argument rules and
// answering Slack's shapes (HTTP 200 with `ok`, `error`, `response_metadata.messages`).
import { getTimezoneOffset } from '../lib/date-fns-tz.js';
import { fileHandlers } from './files.js';
import { checkMessageContent, checkView, viewTooLarge } from './limits.js';
import type { WorkspaceUser } from './seed.js';
import { type Json, MAX_VIEW_STACK, type Message, type SimulatorState, withBlockIds } from './state.js';

type Answer = Json & { ok: boolean; error?: string };
type Handler = (state: SimulatorState, args: Json) => Answer;

const fail = (error: string, messages?: string[]): Answer =>
  messages && messages.length > 0 ? { ok: false, error, response_metadata: { messages } } : { ok: false, error };

/** Fields that @slack/web-api JSON-encodes into a single form field. */
const JSON_FIELDS = new Set(['blocks', 'view', 'attachments', 'metadata', 'outputs']);

/** Normalises form or JSON arguments: JSON-string fields decoded; returns `undefined` for unparsable JSON fields. */
export function decodeArgs(raw: Record<string, unknown>): { args: Json; badJson: string[] } {
  const args: Json = {};
  const badJson: string[] = [];
  for (const [k, v] of Object.entries(raw)) {
    if (JSON_FIELDS.has(k) && typeof v === 'string') {
      try {
        args[k] = JSON.parse(v);
      } catch {
        badJson.push(k);
        args[k] = v;
      }
    } else args[k] = v;
  }
  return { args, badJson };
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const bool = (v: unknown): boolean => v === true || v === 'true' || v === '1' || v === 1;

export function slackUser(state: SimulatorState, u: WorkspaceUser): Json {
  // A profile without a time zone (tz '') has none of the tz fields, as Slack answers for such users.
  const offsetSeconds = u.tz ? Math.round(getTimezoneOffset(u.tz, new Date(state.now())) / 1000) : undefined;
  const image = `https://avatars.example.invalid/${u.id}.png`;
  return {
    id: u.id,
    team_id: state.teamIdOfCall(),
    name: u.name,
    deleted: u.deleted,
    color: '9f69e7',
    real_name: u.realName,
    ...(u.tz ? { tz: u.tz, tz_label: u.tz, tz_offset: offsetSeconds } : {}),
    profile: {
      real_name: u.realName,
      real_name_normalized: u.realName,
      display_name: u.displayName,
      display_name_normalized: u.displayName,
      ...(u.email !== undefined ? { email: u.email } : {}),
      image_24: image,
      image_48: image,
      image_72: image,
      team: state.teamIdOfCall(),
    },
    is_admin: u.isAdmin,
    is_owner: u.isOwner,
    is_primary_owner: u.isOwner,
    is_restricted: u.guest !== undefined,
    is_ultra_restricted: u.guest === 'single',
    ...(u.invited ? { is_invited_user: true } : {}),
    is_bot: u.isBot,
    is_app_user: false,
    updated: 1_700_000_000,
  };
}

function conversation(state: SimulatorState, id: string): Json | undefined {
  const ch = state.channel(id);
  if (ch) {
    return {
      id: ch.id,
      name: ch.name,
      is_channel: !ch.isPrivate,
      is_group: false,
      is_im: false,
      is_mpim: false,
      is_private: ch.isPrivate,
      is_archived: false,
      is_general: ch.id === 'C_GENERAL',
      is_member: ch.members.includes(state.workspace.app.botUserId),
      topic: { value: ch.topic, creator: '', last_set: 0 },
      num_members: ch.members.length,
    };
  }
  const imUser = state.imUser(id);
  if (imUser) return { id, is_im: true, is_channel: false, is_private: true, user: imUser, is_open: true };
  return undefined;
}

/** Resolves where a message goes: a channel, an IM id, or a user id (Slack opens the IM). */
function resolvePostTarget(state: SimulatorState, channel: unknown): string | undefined {
  const id = str(channel);
  if (!id) return undefined;
  if (state.channel(id)) return id;
  if (state.imUser(id)) return id;
  // Slack also accepts a channel name (`#kudos` or `kudos`) where a channel id is expected in chat.post*.
  const byName = state.workspace.channels.find((c) => c.name === id.replace(/^#/, ''));
  if (byName) return byName.id;
  const user = state.user(id);
  if (user && !user.deleted) return state.imFor(user.id);
  return undefined;
}

function membersOf(state: SimulatorState, channel: string): string[] {
  const ch = state.channel(channel);
  if (ch) return ch.members;
  const u = state.imUser(channel);
  return u ? [u, state.workspace.app.botUserId] : [];
}

function page<T>(items: T[], args: Json): { slice: T[]; next: string } | { error: string } {
  const limit = args.limit === undefined ? 100 : Number(args.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) return { error: 'invalid_limit' };
  let start = 0;
  const cursor = str(args.cursor);
  if (cursor) {
    const decoded = Number(
      Buffer.from(cursor, 'base64')
        .toString('utf8')
        .replace(/^offset:/, ''),
    );
    if (!Number.isInteger(decoded) || decoded < 0) return { error: 'invalid_cursor' };
    start = decoded;
  }
  const slice = items.slice(start, start + limit);
  const next = start + limit < items.length ? Buffer.from(`offset:${start + limit}`).toString('base64') : '';
  return { slice, next };
}

/** chat.postMessage `metadata`: `{ event_type, event_payload }` (Slack's rule: both required). */
function checkMetadata(value: unknown): Message['metadata'] | 'invalid' | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) return 'invalid';
  const { event_type, event_payload } = value as Json;
  if (typeof event_type !== 'string' || !/^[a-zA-Z0-9_]{1,255}$/.test(event_type)) return 'invalid';
  if (typeof event_payload !== 'object' || event_payload === null || Array.isArray(event_payload)) return 'invalid';
  return { event_type, event_payload: event_payload as Json };
}

/** `oldest` / `latest` / `inclusive` of the history methods, as a filter on ts. */
function timeWindow(args: Json): { includes: (ts: string) => boolean } | { error: string } {
  const bound = (v: unknown): number | undefined | 'bad' => {
    if (v === undefined || v === '') return undefined;
    const n = Number(v);
    return Number.isFinite(n) ? n : 'bad';
  };
  const oldest = bound(args.oldest);
  const latest = bound(args.latest);
  if (oldest === 'bad' || latest === 'bad') return { error: 'invalid_ts_oldest' };
  const inclusive = bool(args.inclusive);
  return {
    includes(ts) {
      const t = Number(ts);
      if (oldest !== undefined && (inclusive ? t < oldest : t <= oldest)) return false;
      if (latest !== undefined && (inclusive ? t > latest : t >= latest)) return false;
      return true;
    },
  };
}

function historyMessage(m: Message, withMetadata: boolean): Json {
  return {
    type: 'message',
    ...(m.bot_id ? { subtype: 'bot_message', bot_id: m.bot_id } : {}),
    user: m.user,
    text: m.text,
    ts: m.ts,
    ...(m.blocks ? { blocks: m.blocks } : {}),
    ...(m.thread_ts ? { thread_ts: m.thread_ts } : {}),
    ...(m.edited ? { edited: m.edited } : {}),
    ...(m.reactions && m.reactions.length > 0
      ? { reactions: m.reactions.map((r) => ({ name: r.name, users: [...r.users], count: r.users.length })) }
      : {}),
    ...(withMetadata && m.metadata ? { metadata: m.metadata } : {}),
  };
}

function messageBody(state: SimulatorState, channel: string, ts: string): Json | undefined {
  const m = state.findMessage(channel, ts);
  if (!m) return undefined;
  return {
    type: 'message',
    subtype: 'bot_message',
    text: m.text,
    user: m.user,
    bot_id: m.bot_id,
    ts: m.ts,
    ...(m.blocks ? { blocks: m.blocks } : {}),
    ...(m.thread_ts ? { thread_ts: m.thread_ts } : {}),
  };
}

function checkViewArg(view: unknown, type: 'modal' | 'home'): Answer | undefined {
  if (view === undefined || view === null || view === '')
    return fail('invalid_arguments', ['missing required field: view']);
  if (typeof view === 'string') return fail('invalid_arguments', ['invalid JSON in view']);
  const problems = checkView(view, type);
  if (problems.length > 0) return fail('invalid_arguments', problems);
  if (viewTooLarge(view)) return fail('view_too_large');
  return undefined;
}

const handlers: Record<string, Handler> = {
  ...fileHandlers,
  'api.test': (_s, args) => ({ ok: true, args }),

  'auth.test': (s) => {
    const team = s.callTeam ? s.installs?.team(s.callTeam.id) : undefined;
    return {
      ok: true,
      url: `https://${team?.domain ?? s.workspace.team.domain}.slack.com/`,
      team: team?.name ?? s.workspace.team.name,
      user: s.workspace.app.botName,
      team_id: s.callTeam?.id ?? s.workspace.team.id,
      ...(s.callTeam?.enterpriseId ? { enterprise_id: s.callTeam.enterpriseId } : {}),
      user_id: s.workspace.app.botUserId,
      bot_id: s.workspace.app.botId,
      is_enterprise_install: false,
    };
  },

  'team.info': (s) => ({
    ok: true,
    team: {
      id: s.workspace.team.id,
      name: s.workspace.team.name,
      domain: s.workspace.team.domain,
      email_domain: 'example.com',
    },
  }),

  // Custom profile fields (scope users.profile:read): the workspace's definitions, one person's values.
  'team.profile.get': (s) => ({
    ok: true,
    profile: {
      fields: (s.workspace.profileFields ?? []).map((f, i) => ({
        id: f.id,
        ordering: i,
        label: f.label,
        hint: '',
        type: f.type,
        possible_values: null,
        options: null,
        is_hidden: false,
      })),
    },
  }),

  'users.profile.get': (s, args) => {
    const id = str(args.user);
    const u = id ? s.user(id) : undefined;
    if (!u) return fail('user_not_found');
    const fields = Object.fromEntries(
      Object.entries(u.profileFields ?? {}).map(([k, value]) => [k, { value, alt: '' }]),
    );
    return {
      ok: true,
      profile: { real_name: u.realName, display_name: u.displayName, ...(u.email ? { email: u.email } : {}), fields },
    };
  },

  // A file uploaded through a modal's file_input (scope files:read); its content is at url_private_download.
  'files.info': (s, args) => {
    const id = str(args.file);
    const f = id ? s.files.get(id) : undefined;
    if (!f) return fail('file_not_found');
    const url = `${s.baseUrl}/files-pri/${s.workspace.team.id}-${f.id}/download/${encodeURIComponent(f.name)}`;
    return {
      ok: true,
      file: {
        id: f.id,
        created: Math.floor(f.created / 1000),
        name: f.name,
        title: f.name,
        filetype: f.filetype,
        mimetype: f.filetype === 'csv' ? 'text/csv' : 'text/plain',
        size: f.content.length,
        user: f.userId,
        url_private: url,
        url_private_download: url,
      },
    };
  },

  'chat.postMessage': (s, args) => {
    const channel = resolvePostTarget(s, args.channel);
    if (!str(args.channel)) return fail('channel_not_found');
    if (!channel) return fail('channel_not_found');
    // Slack: a bot posts only where it is a member; a private channel it is not in does not exist for it.
    const target = s.channel(channel);
    if (target && !target.members.includes(s.workspace.app.botUserId))
      return fail(target.isPrivate ? 'channel_not_found' : 'not_in_channel');
    const check = checkMessageContent(args, { requireContent: true });
    if (!check.ok) return fail(check.error, check.messages);
    const dmUser = s.imUser(channel);
    if (dmUser && s.user(dmUser)?.closedDms) return fail('messages_tab_disabled');
    const threadTs = str(args.thread_ts);
    if (threadTs && !s.findMessage(channel, threadTs)) return fail('thread_not_found');
    const metadata = checkMetadata(args.metadata);
    if (metadata === 'invalid') return fail('invalid_metadata_format');
    const m = s.postMessage({
      channel,
      user: s.workspace.app.botUserId,
      bot_id: s.workspace.app.botId,
      text: typeof args.text === 'string' ? args.text : '',
      ...(Array.isArray(args.blocks) ? { blocks: withBlockIds(args.blocks as Json[]) } : {}),
      ...(threadTs ? { thread_ts: threadTs } : {}),
      ...(metadata ? { metadata } : {}),
      ephemeral: false,
    });
    return { ok: true, channel, ts: m.ts, message: messageBody(s, channel, m.ts) };
  },

  'chat.postEphemeral': (s, args) => {
    const channel = resolvePostTarget(s, args.channel);
    if (!channel) return fail('channel_not_found');
    const userId = str(args.user);
    if (!userId) return fail('user_not_found');
    const user = s.user(userId);
    if (!user || user.deleted) return fail('user_not_found');
    if (!membersOf(s, channel).includes(userId)) return fail('user_not_in_channel');
    const check = checkMessageContent(args, { requireContent: true });
    if (!check.ok) return fail(check.error, check.messages);
    const m = s.postMessage({
      channel,
      user: s.workspace.app.botUserId,
      bot_id: s.workspace.app.botId,
      text: typeof args.text === 'string' ? args.text : '',
      ...(Array.isArray(args.blocks) ? { blocks: withBlockIds(args.blocks as Json[]) } : {}),
      ...(str(args.thread_ts) ? { thread_ts: str(args.thread_ts) } : {}),
      ephemeral: true,
      visible_to: userId,
    });
    return { ok: true, message_ts: m.ts };
  },

  'chat.update': (s, args) => {
    const channel = str(args.channel);
    if (!channel || !(s.channel(channel) || s.imUser(channel))) return fail('channel_not_found');
    const ts = str(args.ts);
    const m = ts ? s.findMessage(channel, ts) : undefined;
    if (!m || m.ephemeral) return fail('message_not_found');
    if (m.user !== s.workspace.app.botUserId) return fail('cant_update_message');
    const check = checkMessageContent(args, { requireContent: true });
    if (!check.ok) return fail(check.error, check.messages);
    if (typeof args.text === 'string') m.text = args.text;
    if (Array.isArray(args.blocks)) m.blocks = withBlockIds(args.blocks as Json[]);
    m.edited = { ts: s.nextTs() };
    s.changed();
    return { ok: true, channel, ts: m.ts, text: m.text, message: messageBody(s, channel, m.ts) };
  },

  'chat.getPermalink': (s, args) => {
    const channel = str(args.channel);
    if (!channel || !(s.channel(channel) || s.imUser(channel))) return fail('channel_not_found');
    const ts = str(args.message_ts);
    const m = ts ? s.findMessage(channel, ts) : undefined;
    if (!m || m.ephemeral) return fail('message_not_found');
    return {
      ok: true,
      channel,
      permalink: `https://${s.workspace.team.domain}.slack.com/archives/${channel}/p${m.ts.replace('.', '')}`,
    };
  },

  'conversations.join': (s, args) => {
    const channel = str(args.channel);
    const c = channel ? s.channel(channel) : undefined;
    if (!c) return fail('channel_not_found');
    if (c.isPrivate) return fail('method_not_supported_for_channel_type');
    if (!c.members.includes(s.workspace.app.botUserId)) {
      c.members.push(s.workspace.app.botUserId);
      s.changed();
    }
    return { ok: true, channel: conversation(s, c.id) };
  },

  'chat.delete': (s, args) => {
    const channel = str(args.channel);
    if (!channel || !(s.channel(channel) || s.imUser(channel))) return fail('channel_not_found');
    const ts = str(args.ts);
    const m = ts ? s.findMessage(channel, ts) : undefined;
    if (!m || m.ephemeral) return fail('message_not_found');
    if (m.user !== s.workspace.app.botUserId) return fail('cant_delete_message');
    s.deleteMessage(channel, m.ts);
    return { ok: true, channel, ts: m.ts };
  },

  'conversations.open': (s, args) => {
    const channelArg = str(args.channel);
    if (channelArg) {
      const c = conversation(s, channelArg);
      return c ? { ok: true, channel: { id: channelArg } } : fail('channel_not_found');
    }
    const users =
      str(args.users)
        ?.split(',')
        .map((u) => u.trim())
        .filter(Boolean) ?? [];
    if (users.length === 0) return fail('users_list_not_supplied');
    if (users.length > 8) return fail('too_many_users');
    for (const u of users) {
      const user = s.user(u);
      if (!user) return fail('user_not_found');
      if (user.deleted) return fail('user_disabled');
    }
    if (users.length > 1) return fail('not_supported', ['group DMs are not simulated']);
    const id = s.imFor(users[0]!);
    return { ok: true, channel: { id }, ...(bool(args.return_im) ? { already_open: true } : {}) };
  },

  // Top-level messages, newest first (thread replies are only in conversations.replies).
  'conversations.history': (s, args) => {
    const id = str(args.channel);
    if (!id || !(s.channel(id) || s.imUser(id))) return fail('channel_not_found');
    const window = timeWindow(args);
    if ('error' in window) return fail(window.error);
    const messages = s
      .messagesIn(id)
      .filter((m) => !m.ephemeral && (!m.thread_ts || m.thread_ts === m.ts) && window.includes(m.ts))
      .reverse();
    const p = page(messages, args);
    if ('error' in p) return fail(p.error);
    return {
      ok: true,
      messages: p.slice.map((m) => historyMessage(m, bool(args.include_all_metadata))),
      has_more: p.next !== '',
      response_metadata: { next_cursor: p.next },
    };
  },

  // A thread: its parent first, then the replies, oldest first.
  'conversations.replies': (s, args) => {
    const id = str(args.channel);
    if (!id || !(s.channel(id) || s.imUser(id))) return fail('channel_not_found');
    const ts = str(args.ts);
    const parent = ts ? s.findMessage(id, ts) : undefined;
    if (!ts || !parent) return fail('thread_not_found');
    const window = timeWindow(args);
    if ('error' in window) return fail(window.error);
    const replies = s
      .messagesIn(id)
      .filter((m) => !m.ephemeral && m.thread_ts === ts && m.ts !== ts && window.includes(m.ts));
    const p = page([parent, ...replies], args);
    if ('error' in p) return fail(p.error);
    return {
      ok: true,
      messages: p.slice.map((m) => historyMessage(m, bool(args.include_all_metadata))),
      has_more: p.next !== '',
      response_metadata: { next_cursor: p.next },
    };
  },

  'conversations.info': (s, args) => {
    const id = str(args.channel);
    const c = id ? conversation(s, id) : undefined;
    return c ? { ok: true, channel: c } : fail('channel_not_found');
  },

  'conversations.members': (s, args) => {
    const id = str(args.channel);
    if (!id || !(s.channel(id) || s.imUser(id))) return fail('channel_not_found');
    const p = page(membersOf(s, id), args);
    if ('error' in p) return fail(p.error);
    return { ok: true, members: p.slice, response_metadata: { next_cursor: p.next } };
  },

  'users.info': (s, args) => {
    const id = str(args.user);
    const u = id ? s.user(id) : undefined;
    return u ? { ok: true, user: slackUser(s, u) } : fail('user_not_found');
  },

  'users.list': (s, args) => {
    const p = page(s.workspace.users, args);
    if ('error' in p) return fail(p.error);
    return {
      ok: true,
      members: p.slice.map((u) => slackUser(s, u)),
      cache_ts: Math.floor(s.now() / 1000),
      response_metadata: { next_cursor: p.next },
    };
  },

  'users.lookupByEmail': (s, args) => {
    const email = str(args.email)?.toLowerCase();
    if (!email) return fail('invalid_arguments', ['missing required field: email']);
    const u = s.workspace.users.find((x) => x.email?.toLowerCase() === email && !x.deleted);
    return u ? { ok: true, user: slackUser(s, u) } : fail('users_not_found');
  },

  'usergroups.list': (s, args) => ({
    ok: true,
    usergroups: s.workspace.usergroups.map((g) => ({
      id: g.id,
      team_id: s.workspace.team.id,
      is_usergroup: true,
      name: g.name,
      handle: g.handle,
      description: '',
      date_delete: 0,
      user_count: g.users.length,
      ...(bool(args.include_users) ? { users: g.users } : {}),
    })),
  }),

  'usergroups.users.list': (s, args) => {
    const id = str(args.usergroup);
    if (!id) return fail('invalid_arguments', ['missing required field: usergroup']);
    const g = s.workspace.usergroups.find((x) => x.id === id);
    return g ? { ok: true, users: g.users } : fail('no_such_subteam');
  },

  'views.open': (s, args) => {
    if (!str(args.trigger_id)) return fail('invalid_arguments', ['missing required field: trigger_id']);
    const bad = checkViewArg(args.view, 'modal');
    if (bad) return bad;
    const trigger = s.useTrigger(args.trigger_id);
    if (!trigger.ok) return fail(trigger.error);
    const view = s.materializeView(args.view as Json, { type: 'modal' });
    s.openModal(trigger.userId, view);
    return { ok: true, view };
  },

  'views.push': (s, args) => {
    if (!str(args.trigger_id)) return fail('invalid_arguments', ['missing required field: trigger_id']);
    const bad = checkViewArg(args.view, 'modal');
    if (bad) return bad;
    const trigger = s.useTrigger(args.trigger_id);
    if (!trigger.ok) return fail(trigger.error);
    const stack = s.stackOf(trigger.userId);
    if (stack.length === 0) return fail('invalid_arguments', ['no modal is open for this trigger_id']);
    if (stack.length >= MAX_VIEW_STACK) return fail('push_limit_reached');
    const top = stack[stack.length - 1]!;
    const root = s.views.get(top)?.root_view_id ?? top;
    const view = s.materializeView(args.view as Json, { type: 'modal', rootId: root, previousId: top });
    s.pushModal(trigger.userId, view);
    return { ok: true, view };
  },

  'views.update': (s, args) => {
    const viewId = str(args.view_id);
    const externalId = str(args.external_id);
    if (!viewId && !externalId) return fail('invalid_arguments', ['either view_id or external_id is required']);
    const bad = checkViewArg(args.view, 'modal');
    if (bad) return bad;
    const existing = viewId
      ? s.views.get(viewId)
      : [...s.views.values()].find((v) => v.external_id === externalId && v.type === 'modal');
    if (!existing || existing.type !== 'modal') return fail('not_found');
    const hash = str(args.hash);
    if (hash && hash !== existing.hash) return fail('hash_conflict');
    const view = s.replaceView(existing.id, args.view as Json);
    return { ok: true, view };
  },

  'views.publish': (s, args) => {
    const userId = str(args.user_id);
    if (!userId) return fail('invalid_arguments', ['missing required field: user_id']);
    const user = s.user(userId);
    if (!user || user.deleted) return fail('user_not_found');
    const bad = checkViewArg(args.view, 'home');
    if (bad) return bad;
    const existingId = s.homeOf(userId);
    const existing = existingId ? s.views.get(existingId) : undefined;
    const hash = str(args.hash);
    if (hash && existing && hash !== existing.hash) return fail('hash_conflict');
    const view = existing
      ? s.replaceView(existing.id, args.view as Json)
      : s.materializeView(args.view as Json, { type: 'home' });
    if (!existing) {
      s.setHome(userId, view.id);
      s.storeView(userId, view);
    }
    return { ok: true, view };
  },
};

// Workflow steps: completing one ends its run and revokes its workflow token. Only the run's own
// token may complete it; a run completes once.
function completeStep(
  s: SimulatorState,
  args: Json,
  token: string | undefined,
  outcome: 'completed' | 'failed',
): Answer {
  const id = str(args.function_execution_id);
  if (!id) return fail('invalid_arguments', ['[ERROR] missing required field: function_execution_id']);
  const run = s.workflowSteps.get(id);
  if (!run) return fail('function_execution_not_found');
  if (run.token !== token) return fail('invalid_auth');
  if (run.state !== 'running') return fail('function_execution_not_found');
  if (outcome === 'completed') {
    const outputs = args.outputs;
    if (typeof outputs !== 'object' || outputs === null || Array.isArray(outputs))
      return fail('invalid_arguments', ['[ERROR] missing required field: outputs']);
    const missing = run.requiredOutputs.filter(
      (name) => (outputs as Json)[name] === undefined || (outputs as Json)[name] === null,
    );
    if (missing.length > 0)
      return fail(
        'invalid_arguments',
        missing.map((name) => `[ERROR] missing required output: ${name}`),
      );
    run.outputs = outputs as Json;
  } else {
    const error = str(args.error);
    if (!error) return fail('invalid_arguments', ['[ERROR] missing required field: error']);
    run.error = error;
  }
  run.state = outcome;
  s.changed();
  return { ok: true };
}

/**
 * A finished install (a code exchanged): the page now shows the workspace Kudos was installed in (for an
 * org-wide install, the org's first workspace), as Slack opens the workspace after "Allow".
 */
function followInstall(state: SimulatorState, answer: Answer): void {
  const teamId = (answer.team as { id?: string } | null)?.id;
  const enterpriseId = (answer.enterprise as { id?: string } | null)?.id;
  const team = teamId
    ? state.installs?.team(teamId)
    : state.installs?.teams.find((t) => enterpriseId !== undefined && t.enterpriseId === enterpriseId);
  if (!team) return;
  state.acting = {
    id: team.id,
    domain: team.domain,
    enterpriseId: team.enterpriseId,
    orgWide: answer.is_enterprise_install === true,
  };
  state.changed();
}

/** A Web API answer: its body, and for a call past Slack's rate limits the 429's Retry-After (seconds). */
export interface WebApiAnswer {
  body: Answer;
  retryAfterSeconds?: number;
}

/**
 * Runs one Web API call: token check, argument decoding, rate limits (rate-limits.ts), the method;
 * records the call. `token` is what came in the Authorization header (or the `token` argument).
 */
export function callWebApi(
  state: SimulatorState,
  method: string,
  rawArgs: Record<string, unknown>,
  token: string | undefined,
  botToken: string,
  basicAuth?: { id: string; secret: string },
): WebApiAnswer {
  const { token: tokenArg, ...rest } = rawArgs;
  const { args, badJson } = decodeArgs(rest);
  const usedToken = token ?? (typeof tokenArg === 'string' ? tokenArg : undefined);
  if (method === 'oauth.v2.access') {
    // The one method without a token: the app's client id and secret (form fields or Basic auth).
    const answer: Answer = state.installs ? state.installs.access(args, basicAuth) : fail('invalid_client_id');
    if (answer.ok && args.grant_type !== 'refresh_token') followInstall(state, answer);
    const { client_secret: _secret, code: _code, refresh_token: _refresh, ...shown } = args;
    state.calls.push({ method, args: shown, ok: answer.ok, ...(answer.error ? { error: answer.error } : {}) });
    return { body: answer };
  }
  // Distribution mode: a token issued by oauth.v2.access acts for its installation's workspace (or org).
  const owner = usedToken && state.installs ? state.installs.owner(usedToken) : undefined;
  const installation = owner && 'installation' in owner ? owner.installation : undefined;
  const acting = state.actingTeam();
  state.callTeam = installation
    ? {
        id: installation.teamId ?? (installation.enterpriseId ? state.orgTeam(installation.enterpriseId) : acting.id),
        enterpriseId: installation.enterpriseId,
      }
    : undefined;
  let answer: Answer;
  let retryAfterSeconds: number | undefined;
  const handler = Object.hasOwn(handlers, method) ? handlers[method] : undefined;
  const stepMethod =
    method === 'functions.completeSuccess' ? 'completed' : method === 'functions.completeError' ? 'failed' : undefined;
  if (!handler && !stepMethod) answer = fail('unknown_method');
  else if (!usedToken) answer = fail('not_authed');
  else if (owner && 'error' in owner) answer = fail(owner.error);
  else if (stepMethod)
    answer =
      badJson.length > 0
        ? fail(
            'invalid_arguments',
            badJson.map((k) => `invalid JSON in ${k}`),
          )
        : completeStep(state, args, usedToken, stepMethod);
  // A running step's workflow token acts as the bot (Slack: "xwfp" tokens carry the app's scopes).
  else if (usedToken !== botToken && !installation && !state.workflowRunByToken(usedToken))
    answer = fail('invalid_auth');
  else if (!handler) answer = fail('unknown_method');
  else if (badJson.length > 0) {
    answer = badJson.includes('blocks')
      ? fail('invalid_blocks_format')
      : fail(
          'invalid_arguments',
          badJson.map((k) => `invalid JSON in ${k}`),
        );
  } else {
    // Slack's limits apply to calls it would serve: per workspace (the team of the token) and method.
    const channel =
      method === 'chat.postMessage' ? (resolvePostTarget(state, args.channel) ?? str(args.channel)) : undefined;
    const decision = state.rateLimits.check(state.teamIdOfCall(), method, channel, state.now());
    if (decision.ok) answer = handler(state, args);
    else {
      answer = fail('ratelimited');
      retryAfterSeconds = decision.retryAfterSeconds;
    }
  }
  state.callTeam = undefined;
  state.calls.push({
    method,
    args,
    ok: answer.ok,
    ...(answer.error ? { error: answer.error } : {}),
    ...(state.installs && usedToken ? { token: usedToken } : {}),
    ...(installation ? { installation: installation.key } : {}),
  });
  return retryAfterSeconds === undefined ? { body: answer } : { body: answer, retryAfterSeconds };
}
