// The ports through which the domain reaches people. The domain names what it needs here, in its own
// words; src/slack implements them (slack/web-api/gateway.ts) and renders what the domain wants said
// (slack/presenters, see notices.ts). Nothing in src/domain imports src/slack or src/http.

import type { Workspace } from './workspace.js';

/** A person of the workspace, as the chat platform reports them. */
export interface WorkspaceUser {
  id: string;
  teamId: string | undefined;
  name: string;
  realName: string;
  displayName: string;
  firstName: string | undefined;
  lastName: string | undefined;
  email: string | undefined;
  tz: string | undefined;
  isBot: boolean;
  deleted: boolean;
  isAdmin: boolean;
  isOwner: boolean;
  /** A guest (multi- or single-channel): cards only where the workspace allows it (recipients.ts). */
  isGuest?: boolean;
  /** Invited but not joined yet: cards only where the workspace allows it. */
  isInvited?: boolean;
}

/** The name people know a person by. */
export function displayNameOf(user: Pick<WorkspaceUser, 'displayName' | 'realName' | 'name'>): string {
  return user.displayName || user.realName || user.name;
}

/** Who is who: user lookups (cached by the adapter) and user groups. */
/** A custom profile field of the workspace (Slack: team.profile.get). */
export interface ProfileField {
  id: string;
  label: string;
  /** `date` fields hold `YYYY-MM-DD`. */
  type: string;
}

/** Custom profile fields: where celebrations read birthdays and start dates when an admin maps them. */
export interface ProfileDirectory {
  profileFields(ws: Workspace): Promise<ProfileField[]>;
  /** One person's custom field values, by field id (empty fields absent). */
  profileFieldValues(ws: Workspace, userId: string): Promise<Record<string, string>>;
  /** Everyone in the workspace (deactivated people and bots included, marked). */
  listUsers(ws: Workspace): Promise<WorkspaceUser[]>;
}

export interface UserDirectory {
  userInfo(ws: Workspace, userId: string): Promise<WorkspaceUser | undefined>;
  /** Rejects with a ChatRefusal of outcome `not_found` for an id that is no user group (deleted, or never one). */
  usergroupMembers(ws: Workspace, usergroupId: string): Promise<string[]>;
  /** A user group's handle (without @), for a sentence naming it; undefined when there is no such group. */
  usergroupHandle?(ws: Workspace, usergroupId: string): Promise<string | undefined>;
  /**
   * Everyone in the workspace, read in pages (users.list: 200 a call) and cached a while per workspace:
   * checking a big group's members one users.info call each would take minutes of Slack's rate limit.
   */
  everyone?(ws: Workspace): Promise<WorkspaceUser[]>;
}

/**
 * What the chat platform answered when it did not do what a port asked, in the domain's words. The
 * adapter (slack/web-api/gateway.ts) translates the platform's own error codes into these outcomes; the
 * domain decides on `outcome` alone. Any other error means the outcome is unknown (a timeout, a lost
 * answer): the message may or may not have been posted.
 * - `channel_unreachable`: nothing posted, and nothing will be until an admin acts (the app is not in
 *   the channel, the channel is gone or archived);
 * - `refused`: nothing posted; the same request will be refused again;
 * - `rate_limited`: nothing posted; try again after `retryAfterSeconds`;
 * - `not_found`: the user group (or other thing asked about) does not exist;
 * - `not_sent`: nothing posted: the request never left (no connection could be opened); try again.
 */
export type ChatOutcome = 'channel_unreachable' | 'refused' | 'rate_limited' | 'not_found' | 'not_sent';

/**
 * A sentence for a person that names someone (who already decided), kept as data: plain text and the
 * people's user ids, which the chat renders its own way (Slack: a mention; in a modal's plain-text
 * error, the id). The domain writes no chat syntax.
 */
export type NamingText = string | { parts: ReadonlyArray<string | { userId: string }> };

/** `before`, then ` by ` and the person when there is one, then `after`. */
export function decidedByText(before: string, userId: string | null | undefined, after: string): NamingText {
  return userId ? { parts: [`${before} by `, { userId }, after] } : `${before}${after}`;
}

export class ChatRefusal extends Error {
  override readonly name = 'ChatRefusal';
  readonly retryAfterSeconds: number | undefined;
  constructor(
    readonly outcome: ChatOutcome,
    /** The platform's own word for it, kept for logs and for admins to read (a health warning); never decided on. */
    readonly detail: string,
    options: { retryAfterSeconds?: number; cause?: unknown } = {},
  ) {
    super(`${outcome}: ${detail}`, { cause: options.cause });
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}

/** `error` is a ChatRefusal with one of `outcomes`. */
export function isChatRefusal(error: unknown, ...outcomes: ChatOutcome[]): error is ChatRefusal {
  return error instanceof ChatRefusal && (outcomes.length === 0 || outcomes.includes(error.outcome));
}

/**
 * A message ready to post, as a presenter rendered it. The domain stores and forwards it without
 * looking inside; `blocks` is the chat platform's own layout.
 */
export interface RenderedMessage {
  text: string;
  blocks?: unknown[];
}

export interface PostedMessage {
  channel: string;
  ts: string;
}

/** Invisible to people, returned with the message: how a notice finds out whether it was posted. */
export interface MessageMetadata {
  eventType: string;
  payload: Record<string, string | number | boolean>;
}

/**
 * Posting and updating messages: the outbox (outbox.ts) and approval requests use it. A
 * message the platform did not take rejects with a ChatRefusal (see above).
 */
export interface Messenger {
  postMessage(
    ws: Workspace,
    channel: string,
    message: RenderedMessage & { threadTs?: string; metadata?: MessageMetadata },
  ): Promise<PostedMessage>;
  /** The direct-message channel with a user. */
  openDirectChannel(ws: Workspace, userId: string): Promise<string>;
  /**
   * The ts of our own message carrying `metadata` of this type whose payload matches, posted at or
   * after `since` (in the thread when `threadTs` is given); undefined when there is none. Absent when
   * the app may not read history (distribution mode: Slack's limits for apps outside the Marketplace,
   * and no `*:history` scopes): a post whose answer was lost is then posted again (at least once).
   */
  findMessageByMetadata?: (
    ws: Workspace,
    channel: string,
    query: { eventType: string; match: (payload: Record<string, unknown>) => boolean; since: Date; threadTs?: string },
  ) => Promise<string | undefined>;
  updateMessage(ws: Workspace, channel: string, ts: string, message: RenderedMessage): Promise<void>;
  /** Opens (or reuses) the direct-message channel with a user and posts there. */
  sendDirectMessage(ws: Workspace, userId: string, message: RenderedMessage): Promise<PostedMessage>;
}
