// Which workspace's Slack a call goes to (the README's installation modes). The domain's ports name the
// workspace in every call (Workspace); this module answers with that workspace's gateway: in
// single-workspace mode the one gateway on SLACK_BOT_TOKEN; in distribution mode a
// gateway per workspace whose every call carries the token of the installation serving it (the
// workspace's own, or its Enterprise Grid org's), looked up, and refreshed when it nears expiry,
// through InstallProvider.authorize (src/slack/install/tenancy.ts). A workspace without a live installation is
// a ChatRefusal `refused` / `not_installed`: its background work gives up the call instead of retrying.
import { LRUCache } from 'lru-cache';

import type { StepFinisher } from '../../domain/automations/workflow-steps.js';
import { ChatRefusal, type Messenger, type ProfileDirectory, type UserDirectory } from '../../domain/common/ports.js';
import type { Workspace } from '../../domain/common/workspace.js';
import { unhurried, untilDeadline } from '../listening/deadline.js';
import type { SlackGateway, SlackUser, UserLister } from './gateway.js';

export interface SlackWorkspaces extends Messenger, UserDirectory, ProfileDirectory, StepFinisher {
  /** The gateway of one workspace (listeners: the workspace of the request). */
  for(ws: Workspace): SlackGateway;
  /** users.list of one workspace (approvers' fallback, CSV import, admin alerts). */
  listUsers(ws: Workspace): Promise<SlackUser[]>;
  /** Drops what is cached for a workspace (uninstall, token refresh). */
  forget(ws: Workspace): void;
}

/** Single-workspace mode: one gateway, one user list, whatever the workspace. */
export function singleWorkspace(gateway: SlackGateway, listUsers: UserLister): SlackWorkspaces {
  return routing({
    gatewayFor: () => gateway,
    listUsersFor: () => listUsers,
    forget: () => {},
    historyReads: Boolean(gateway.findMessageByMetadata),
  });
}

export interface PerWorkspaceOptions {
  /** A gateway whose calls carry `token()` (createSlackGateway with the `token` option), paced for workspace `ws`. */
  createGateway(token: () => Promise<string>, ws: Workspace): SlackGateway;
  createUserLister(token: () => Promise<string>, ws: Workspace): UserLister;
  /** The bot token of the installation serving the workspace; rejects when there is none. */
  botToken(ws: Workspace): Promise<string>;
  /** The gateways read history to find a lost post (createSlackGateway's historyReads); distribution mode: false. */
  historyReads: boolean;
  /**
   * Gateways kept at once (each holds a user cache); the least recently used goes first. Default
   * 2,000 (a few hundred bytes each when empty): with 500, at 10,000 installations the workspaces seen once
   * pushed out the busy ones, whose next request paid users.info and its pacing write again.
   */
  maxWorkspaces?: number;
}

/** Distribution mode: a gateway per workspace, each call with the workspace's own token. */
export function perWorkspace(opts: PerWorkspaceOptions): SlackWorkspaces {
  const keyOf = (ws: Workspace) => `${ws.teamId}\u0000${ws.enterpriseId ?? ''}`;
  const workspaceOf = (ws: Workspace): Workspace => ({
    teamId: ws.teamId,
    enterpriseId: ws.enterpriseId ?? null,
  });
  const tokenOf = (workspace: Workspace) => async () => {
    if (!workspace.teamId && !workspace.enterpriseId) throw new ChatRefusal('refused', 'not_installed');
    try {
      return await opts.botToken(workspace);
    } catch (error) {
      throw new ChatRefusal('refused', 'not_installed', { cause: error });
    }
  };
  const gateways = new LRUCache<string, SlackGateway, Workspace>({
    max: opts.maxWorkspaces ?? 2000,
    memoMethod: (_key, _stale, { context: ws }) => {
      const workspace = workspaceOf(ws);
      return opts.createGateway(tokenOf(workspace), workspace);
    },
  });
  const gatewayFor = (ws: Workspace) => gateways.memo(keyOf(ws), { context: ws });
  return routing({
    historyReads: opts.historyReads,
    gatewayFor,
    // Made for each read: a lister keeps nothing between reads (the people read are kept by `everyone`), so none is kept per workspace.
    listUsersFor: (ws) => {
      const workspace = workspaceOf(ws);
      return opts.createUserLister(tokenOf(workspace), workspace);
    },
    forget: (ws) => {
      for (const key of [...gateways.keys()])
        if (key.startsWith(`${ws.teamId}\u0000`) || (ws.enterpriseId && key.endsWith(`\u0000${ws.enterpriseId}`)))
          gateways.delete(key);
    },
  });
}

/** How long a workspace's users.list is reused for checking a big group's members. */
const DIRECTORY_TTL_MS = 10 * 60_000;
/** Workspaces whose people are kept at once (each up to a workspace's size). */
const DIRECTORY_WORKSPACES = 50;

/** A workspace's users.list, read or being read; `waiting`: callers told when its next page comes. */
type Reading = { users: Promise<SlackUser[]>; nextPageAt: number; waiting: Set<() => void> };

function routing(r: {
  gatewayFor(ws: Workspace): SlackGateway;
  listUsersFor(ws: Workspace): UserLister;
  forget(ws: Workspace): void;
  historyReads: boolean;
}): SlackWorkspaces {
  // Per workspace, one read at a time (concurrent callers share it); a failed read is not kept. The
  // read goes on at Slack's pace whoever is waiting: a submission whose answer is due first is told
  // when to come back (`nextPageAt`: the slot of the page it waits for) as soon as that slot is past
  // its answer's deadline, and finds it read then; a read that is only slow is not Slack's limit
  // (untilDeadline, deadline.ts).
  const directories = new LRUCache<string, Reading>({ max: DIRECTORY_WORKSPACES, ttl: DIRECTORY_TTL_MS });
  const read = (key: string, ws: Workspace): Reading => {
    const reading: Reading = { users: Promise.resolve([]), nextPageAt: 0, waiting: new Set() };
    reading.users = unhurried(() =>
      r.listUsersFor(ws)({
        onWait: (waitMs) => {
          reading.nextPageAt = Date.now() + waitMs;
          for (const changed of reading.waiting) changed();
        },
      }),
    );
    directories.set(key, reading);
    reading.users.catch(() => {
      if (directories.peek(key, { allowStale: true }) === reading) directories.delete(key);
    });
    return reading;
  };
  const everyone = (ws: Workspace): Promise<SlackUser[]> => {
    const key = `${ws.teamId}\u0000${ws.enterpriseId ?? ''}`;
    // peek, not get: the oldest read goes out first, which is also the first to expire.
    const reading = directories.peek(key) ?? read(key, ws);
    return untilDeadline(
      reading.users,
      () => reading.nextPageAt - Date.now(),
      "reading the workspace's people (users.list)",
      (changed) => {
        reading.waiting.add(changed);
        return () => reading.waiting.delete(changed);
      },
    );
  };
  return {
    for: (ws) => r.gatewayFor(ws),
    listUsers: (ws) => r.listUsersFor(ws)(),
    everyone,
    forget: (ws) => {
      // Expired reads too, which keys() passes over: nothing of a workspace that is gone stays here.
      directories.purgeStale();
      for (const key of [...directories.keys()]) if (key.startsWith(`${ws.teamId}\u0000`)) directories.delete(key);
      r.forget(ws);
    },
    userInfo: (ws, userId) => r.gatewayFor(ws).userInfo(userId),
    usergroupMembers: (ws, usergroupId) => r.gatewayFor(ws).usergroupMembers(usergroupId),
    usergroupHandle: async (ws, usergroupId) =>
      (await r.gatewayFor(ws).listUsergroups()).find((g) => g.id === usergroupId)?.handle,
    profileFields: (ws) => r.gatewayFor(ws).profileFields(),
    finish: (ws, token, functionExecutionId, result) =>
      r.gatewayFor(ws).finishWorkflowStep(token, functionExecutionId, result),
    profileFieldValues: (ws, userId) => r.gatewayFor(ws).profileFieldValues(userId),
    postMessage: (ws, channel, message) => r.gatewayFor(ws).postMessage(channel, message),
    openDirectChannel: (ws, userId) => r.gatewayFor(ws).openDirectChannel(userId),
    // Without history reads the port has no lookup at all: a lost post is posted again (src/domain/notices/outbox.ts).
    ...(r.historyReads
      ? {
          findMessageByMetadata: async (
            ws: Workspace,
            channel: string,
            query: Parameters<NonNullable<SlackGateway['findMessageByMetadata']>>[1],
          ) => {
            const gateway = r.gatewayFor(ws);
            return gateway.findMessageByMetadata ? gateway.findMessageByMetadata(channel, query) : undefined;
          },
        }
      : {}),
    updateMessage: (ws, channel, ts, message) => r.gatewayFor(ws).updateMessage(channel, ts, message),
    sendDirectMessage: (ws, userId, message) => r.gatewayFor(ws).sendDirectMessage(userId, message),
  };
}
