// Who may send kudos with cards (the settings' cardSenders), and which monthly allowance applies to a
// sender (their own override, their user groups', or the default: allowances.ts). Both ask who is in
// a Slack user group; the answers are kept a minute, so that the check made inside the recording
// transaction (approval-policy.ts) finds them and never calls Slack there: the Slack pacing books its
// slots in the database, which a one-connection database would only grant after the transaction.
import { LRUCache } from 'lru-cache';

import type { Database } from '../../db/client.js';
import { isChatRefusal, type UserDirectory } from '../common/ports.js';
import type { Workspace } from '../common/workspace.js';
import { listAllowanceOverrides } from '../workspaces/allowance-overrides.js';
import type { WorkspaceSettings } from '../workspaces/settings.js';
import { resolveAllowance, type ResolvedAllowance } from './allowances.js';

/** How long a group's members are trusted, and how long kept for the check under the transaction. */
const FRESH_MS = 60_000;
const KEPT_MS = 15 * 60_000;

export interface GroupMembership {
  /**
   * The group's members; undefined when the group no longer exists. `cached`: any answer kept (up to
   * a quarter of an hour) will do (the check under a transaction); Slack is asked only if there is none.
   */
  members(ws: Workspace, usergroupId: string, opts?: { cached?: boolean }): Promise<ReadonlySet<string> | undefined>;
}

export function createGroupMembership(
  users: Pick<UserDirectory, 'usergroupMembers'>,
  now: () => number = Date.now,
): GroupMembership {
  const kept = new LRUCache<string, { at: number; members: ReadonlySet<string> | undefined }>({ max: 5000 });
  return {
    async members(ws, usergroupId, opts = {}) {
      const key = `${ws.teamId}:${usergroupId}`;
      const hit = kept.get(key);
      const age = hit ? now() - hit.at : Infinity;
      if (hit && (age < FRESH_MS || (opts.cached && age < KEPT_MS))) return hit.members;
      let members: ReadonlySet<string> | undefined;
      try {
        members = new Set(await users.usergroupMembers(ws, usergroupId));
      } catch (error) {
        // A deleted user group has no members: its override or sender rule applies to nobody.
        if (!isChatRefusal(error, 'not_found')) throw error;
      }
      kept.set(key, { at: now(), members });
      return members;
    },
  };
}

export interface SenderRuleDeps {
  membership: GroupMembership;
  /** Is this person a Kudos admin (settings' admins, or Slack's admins and owners)? */
  isAdmin(ws: Workspace, userId: string): Promise<boolean>;
  /** A user group's handle (without @), for the refusal; undefined when unknown. */
  usergroupHandle?(ws: Workspace, usergroupId: string): Promise<string | undefined>;
}

/**
 * Why this person may not send kudos with cards, or undefined when they may. Kudos admins always may.
 */
export async function cardSenderRefusal(
  deps: SenderRuleDeps,
  settings: Pick<WorkspaceSettings, 'cardSenders' | 'senderUsergroupId'>,
  ws: Workspace,
  userId: string,
): Promise<string | undefined> {
  if (settings.cardSenders === 'everyone') return undefined;
  if (settings.cardSenders === 'usergroup' && settings.senderUsergroupId) {
    const members = await deps.membership.members(ws, settings.senderUsergroupId);
    if (members?.has(userId) || (await deps.isAdmin(ws, userId))) return undefined;
    if (!members)
      return 'Only the members of a user group that no longer exists can send kudos with cards. Ask a Kudos admin to pick another group.';
    const handle = await deps.usergroupHandle?.(ws, settings.senderUsergroupId).catch(() => undefined);
    return `Only members of ${handle ? `@${handle}` : 'the senders’ user group'} can send kudos with cards. Ask a Kudos admin.`;
  }
  // Kudos admins only (or a user group rule without its group, which the settings form never saves).
  if (await deps.isAdmin(ws, userId)) return undefined;
  return 'Only Kudos admins can send kudos with cards. Ask a Kudos admin.';
}

/**
 * The monthly allowance that applies to this sender, read through `reader` (the recording
 * transaction's, or the handle). `cached`: group memberships as kept (see GroupMembership).
 */
export async function senderAllowance(
  reader: Pick<Database, 'select'>,
  membership: GroupMembership,
  settings: Pick<WorkspaceSettings, 'monthlyBudgetCents'>,
  ws: Workspace,
  userId: string,
  opts: { cached?: boolean } = {},
): Promise<ResolvedAllowance> {
  const overrides = await listAllowanceOverrides(reader, ws.teamId);
  const person = overrides.find((o) => o.subject.kind === 'user' && o.subject.id === userId);
  if (person) return resolveAllowance(settings.monthlyBudgetCents, { cents: person.allowanceCents }, []);
  const groups: Array<number | null> = [];
  for (const o of overrides) {
    if (o.subject.kind !== 'usergroup') continue;
    if ((await membership.members(ws, o.subject.id, opts))?.has(userId)) groups.push(o.allowanceCents);
  }
  return resolveAllowance(settings.monthlyBudgetCents, undefined, groups);
}
