// Who approves: the settings' approver users and/or user group; when neither is set, the workspace's
// admins and owners (as Slack reports them).
import { toSlackUser, type SlackGateway, type SlackUser } from '../slack/gateway.js';
import type { WorkspaceSettings } from './settings.js';

export interface ApproverDirectory {
  slack: Pick<SlackGateway, 'userInfo' | 'usergroupMembers'>;
  /** Every user of the workspace (users.list), to find admins and owners when no approver is set. */
  listUsers(): Promise<SlackUser[]>;
}

type ApproverSettings = Pick<WorkspaceSettings, 'approverUserIds' | 'approverUsergroupId'>;

export function hasExplicitApprovers(settings: ApproverSettings): boolean {
  return (settings.approverUserIds?.length ?? 0) > 0 || Boolean(settings.approverUsergroupId);
}

/** Everyone who may approve (to message them when there is no approval channel). */
export async function listApprovers(dir: ApproverDirectory, settings: ApproverSettings): Promise<string[]> {
  if (!hasExplicitApprovers(settings)) {
    const users = await dir.listUsers();
    return users.filter((u) => (u.isAdmin || u.isOwner) && !u.isBot && !u.deleted).map((u) => u.id);
  }
  const ids = new Set(settings.approverUserIds ?? []);
  if (settings.approverUsergroupId) for (const id of await dir.slack.usergroupMembers(settings.approverUsergroupId)) ids.add(id);
  return [...ids];
}

export async function isApprover(dir: ApproverDirectory, settings: ApproverSettings, userId: string): Promise<boolean> {
  if (!hasExplicitApprovers(settings)) {
    const user = await dir.slack.userInfo(userId);
    return Boolean(user && !user.deleted && (user.isAdmin || user.isOwner));
  }
  if (settings.approverUserIds?.includes(userId)) return true;
  if (settings.approverUsergroupId) return (await dir.slack.usergroupMembers(settings.approverUsergroupId)).includes(userId);
  return false;
}

/** users.list, every page, as SlackUsers (for the admins-and-owners fallback). */
export function createUserLister(client: {
  users: { list(args: { limit?: number; cursor?: string }): Promise<{ members?: unknown[]; response_metadata?: { next_cursor?: string } }> };
}): () => Promise<SlackUser[]> {
  return async () => {
    const users: SlackUser[] = [];
    let cursor: string | undefined;
    do {
      const res = await client.users.list({ limit: 200, ...(cursor ? { cursor } : {}) });
      users.push(...(res.members ?? []).map((m) => toSlackUser(m as never)));
      cursor = res.response_metadata?.next_cursor || undefined;
    } while (cursor);
    return users;
  };
}
