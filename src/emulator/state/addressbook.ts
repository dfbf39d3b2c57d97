import type { Clock } from '../clock.js';
import { ApiError, fail } from '../errors.js';
import { newId } from '../ids.js';
import { isoUtc } from '../time.js';
import type { EnvState, Recipient, RecipientGroup } from './model.js';
import type { OrdersService } from './orders.js';

export interface RecipientInput {
  email: string;
  firstName?: string | undefined;
  lastName?: string | undefined;
  company?: string | undefined;
  department?: string | undefined;
}

/** Address book (spec 2.6, 2.7, 4.6, 4.7): recipients with unique e-mails, named groups of them. */
/** What the address book needs of the emulator's state: a recipient with a scheduled order stays. */
export interface AddressBookState {
  readonly clock: Clock;
  readonly orders: Pick<OrdersService, 'hasActiveScheduledOrder'>;
}

export class AddressBookService {
  constructor(private readonly core: AddressBookState) {}

  createRecipient(env: EnvState, input: RecipientInput): Recipient {
    this.assertEmailFree(env, input.email);
    const now = this.core.clock.nowMs();
    const r: Recipient = { recipientId: newId.recipient(), ...input, createdAtMs: now, updatedAtMs: now };
    env.recipients.set(r.recipientId, r);
    return r;
  }

  getRecipient(env: EnvState, recipientId: string): Recipient {
    const r = env.recipients.get(recipientId);
    if (!r) throw fail.notFound(`Recipient ${recipientId}`);
    return r;
  }

  listRecipients(env: EnvState, keyword?: string): Recipient[] {
    const k = keyword?.trim().toLowerCase();
    return [...env.recipients.values()].filter(
      (r) =>
        !k ||
        [r.email, r.firstName ?? '', r.lastName ?? '', `${r.firstName ?? ''} ${r.lastName ?? ''}`].some((f) =>
          f.toLowerCase().includes(k),
        ),
    );
  }

  /** PUT replaces the record; e-mail uniqueness is checked again when it changes. */
  updateRecipient(env: EnvState, recipientId: string, input: RecipientInput): Recipient {
    const existing = this.getRecipient(env, recipientId);
    if (existing.email.toLowerCase() !== input.email.toLowerCase()) this.assertEmailFree(env, input.email);
    const updated: Recipient = {
      recipientId,
      ...input,
      createdAtMs: existing.createdAtMs,
      updatedAtMs: this.core.clock.nowMs(),
    };
    env.recipients.set(recipientId, updated);
    return updated;
  }

  deleteRecipient(env: EnvState, recipientId: string): void {
    const r = this.getRecipient(env, recipientId);
    if (this.core.orders.hasActiveScheduledOrder(env, r.email)) {
      throw new ApiError('RECIPIENT_HAS_PENDING_ORDER', `Recipient ${recipientId} has an active scheduled order`);
    }
    env.recipients.delete(recipientId);
    for (const g of env.groups.values()) g.memberIds = g.memberIds.filter((id) => id !== recipientId);
  }

  createGroup(env: EnvState, groupName: string): RecipientGroup {
    this.assertGroupNameFree(env, groupName);
    const g: RecipientGroup = {
      groupId: newId.group(),
      groupName,
      memberIds: [],
      createdAtMs: this.core.clock.nowMs(),
    };
    env.groups.set(g.groupId, g);
    return g;
  }

  getGroup(env: EnvState, groupId: string): RecipientGroup {
    const g = env.groups.get(groupId);
    if (!g) throw fail.notFound(`Recipient group ${groupId}`);
    return g;
  }

  listGroups(env: EnvState): RecipientGroup[] {
    return [...env.groups.values()];
  }

  renameGroup(env: EnvState, groupId: string, groupName: string): RecipientGroup {
    const g = this.getGroup(env, groupId);
    if (g.groupName.toLowerCase() !== groupName.toLowerCase()) this.assertGroupNameFree(env, groupName);
    g.groupName = groupName;
    return g;
  }

  /** Irreversible; member records stay; orders already placed from it are unaffected. */
  deleteGroup(env: EnvState, groupId: string): void {
    this.getGroup(env, groupId);
    env.groups.delete(groupId);
  }

  members(env: EnvState, groupId: string): Recipient[] {
    return this.getGroup(env, groupId).memberIds.map((id) => env.recipients.get(id)!);
  }

  /** Adding an existing member succeeds silently. */
  addMember(
    env: EnvState,
    groupId: string,
    recipientId: string,
  ): { group: RecipientGroup; recipient: Recipient; alreadyMember: boolean } {
    const group = this.getGroup(env, groupId);
    const recipient = this.getRecipient(env, recipientId);
    const alreadyMember = group.memberIds.includes(recipientId);
    if (!alreadyMember) group.memberIds.push(recipientId);
    return { group, recipient, alreadyMember };
  }

  removeMember(env: EnvState, groupId: string, recipientId: string): void {
    const group = this.getGroup(env, groupId);
    if (!group.memberIds.includes(recipientId)) throw fail.notFound(`Recipient ${recipientId} in group ${groupId}`);
    group.memberIds = group.memberIds.filter((id) => id !== recipientId);
  }

  private assertEmailFree(env: EnvState, email: string): void {
    const e = email.toLowerCase();
    if ([...env.recipients.values()].some((r) => r.email.toLowerCase() === e)) {
      throw new ApiError('EMAIL_TAKEN', `A recipient with e-mail ${email} already exists`);
    }
  }

  private assertGroupNameFree(env: EnvState, name: string): void {
    const n = name.toLowerCase();
    if ([...env.groups.values()].some((g) => g.groupName.toLowerCase() === n)) {
      throw new ApiError('GROUP_NAME_TAKEN', `A group named "${name}" already exists`);
    }
  }
}

export function serializeRecipient(r: Recipient) {
  return {
    recipientId: r.recipientId,
    email: r.email,
    firstName: r.firstName ?? null,
    lastName: r.lastName ?? null,
    company: r.company ?? null,
    department: r.department ?? null,
    createdAt: isoUtc(r.createdAtMs),
    updatedAt: isoUtc(r.updatedAtMs),
  };
}

export function serializeGroup(g: RecipientGroup) {
  return {
    groupId: g.groupId,
    groupName: g.groupName,
    memberCount: g.memberIds.length,
    createdAt: isoUtc(g.createdAtMs),
  };
}
