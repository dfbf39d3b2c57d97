// Who approves: the settings' approver users and/or user group; when neither is set, the workspace's
// admins and owners (as Slack reports them).
import type { UserDirectory, WorkspaceUser } from '../common/ports.js';
import type { Workspace } from '../common/workspace.js';
import type { WorkspaceSettings } from '../workspaces/settings.js';

export interface ApproverDirectory {
  users: Pick<UserDirectory, 'userInfo' | 'usergroupMembers' | 'usergroupHandle'>;
  /** Every user of the workspace (users.list), to find admins and owners when no approver is set. */
  listUsers(ws: Workspace): Promise<WorkspaceUser[]>;
}

type ApproverSettings = Pick<WorkspaceSettings, 'teamId' | 'enterpriseId' | 'approverUserIds' | 'approverUsergroupId'>;

export function hasExplicitApprovers(settings: ApproverSettings): boolean {
  return (settings.approverUserIds?.length ?? 0) > 0 || Boolean(settings.approverUsergroupId);
}

/** Everyone who may approve (to message them when there is no approval channel). */
export async function listApprovers(dir: ApproverDirectory, settings: ApproverSettings): Promise<string[]> {
  if (!hasExplicitApprovers(settings)) {
    const users = await dir.listUsers(settings);
    return users.filter((u) => (u.isAdmin || u.isOwner) && !u.isBot && !u.deleted).map((u) => u.id);
  }
  const ids = new Set(settings.approverUserIds ?? []);
  if (settings.approverUsergroupId)
    for (const id of await dir.users.usergroupMembers(settings, settings.approverUsergroupId)) ids.add(id);
  return [...ids];
}

export async function isApprover(dir: ApproverDirectory, settings: ApproverSettings, userId: string): Promise<boolean> {
  if (!hasExplicitApprovers(settings)) {
    const user = await dir.users.userInfo(settings, userId);
    return Boolean(user && !user.deleted && (user.isAdmin || user.isOwner));
  }
  if (settings.approverUserIds?.includes(userId)) return true;
  if (settings.approverUsergroupId)
    return (await dir.users.usergroupMembers(settings, settings.approverUsergroupId)).includes(userId);
  return false;
}
