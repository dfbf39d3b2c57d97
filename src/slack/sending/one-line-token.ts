// What the Send and Edit buttons of a one-line confirmation carry: the send as confirmed, its fresh
// id (the key it is recorded under: a second click finds the first send) and when it was shown (an
// expired one is not sent). Slack gives the message back only for messages everyone sees, not for
// ephemeral ones, so the buttons carry it; a click's value comes from Slack as we wrote it.
import { randomUUID } from 'node:crypto';

import { z } from 'zod';

import type { OneLineSend } from '../../domain/sending/one-line.js';

/** Slack's limit on a button's value. */
const BUTTON_VALUE_MAX = 2000;

export interface OneLineConfirmation {
  /** Fresh per confirmation: the send's recording key. */
  id: string;
  /** When it was shown (ms since the epoch). */
  createdAtMs: number;
  senderUserId: string;
  channelId: string;
  send: OneLineSend;
}

const slackId = z.string().regex(/^[A-Z0-9_]{2,40}$/);

const tokenSchema = z.object({
  i: z.guid(),
  t: z.number().int().nonnegative(),
  s: slackId,
  c: z.string().max(40),
  u: z.array(slackId).max(100),
  g: z.object({ id: slackId, h: z.string().max(80).optional() }).optional(),
  a: z.number().int().nonnegative().max(9_999_999),
  p: z.string().min(1).max(100),
  f: z.string().min(1).max(40).optional(),
  m: z.string().max(1000),
  v: z.object({ i: z.guid(), r: z.number().int().positive() }).optional(),
});

/** The button value of a confirmation, or undefined when it does not fit Slack's 2,000 characters. */
export function confirmationValue(c: OneLineConfirmation): string | undefined {
  const value = JSON.stringify({
    i: c.id,
    t: c.createdAtMs,
    s: c.senderUserId,
    c: c.channelId,
    u: c.send.userIds,
    ...(c.send.group ? { g: { id: c.send.group.id, ...(c.send.group.handle ? { h: c.send.group.handle } : {}) } } : {}),
    a: c.send.amountDollars,
    p: c.send.productId,
    ...(c.send.face !== undefined ? { f: c.send.face } : {}),
    m: c.send.message,
    ...(c.send.value ? { v: { i: c.send.value.id, r: c.send.value.revision } } : {}),
  });
  return value.length <= BUTTON_VALUE_MAX ? value : undefined;
}

/** A new confirmation of `send`, shown now. */
export function newConfirmation(
  send: OneLineSend,
  at: { senderUserId: string; channelId: string; now: Date },
): OneLineConfirmation {
  return {
    id: randomUUID(),
    createdAtMs: at.now.getTime(),
    senderUserId: at.senderUserId,
    channelId: at.channelId,
    send,
  };
}

/** The zod schema of a button's value, as parsed at the edge. */
export const confirmationToken = z
  .string()
  .max(BUTTON_VALUE_MAX)
  .transform((raw, ctx) => {
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch {
      ctx.addIssue({ code: 'custom', message: 'not a confirmation this app wrote' });
      return z.NEVER;
    }
    const parsed = tokenSchema.safeParse(json);
    if (!parsed.success) {
      ctx.addIssue({ code: 'custom', message: 'not a confirmation this app wrote' });
      return z.NEVER;
    }
    const t = parsed.data;
    return {
      id: t.i,
      createdAtMs: t.t,
      senderUserId: t.s,
      channelId: t.c,
      send: {
        userIds: t.u,
        ...(t.g ? { group: { id: t.g.id, ...(t.g.h ? { handle: t.g.h } : {}) } } : {}),
        amountDollars: t.a,
        productId: t.p,
        ...(t.f !== undefined ? { face: t.f } : {}),
        message: t.m,
        ...(t.v ? { value: { id: t.v.i, revision: t.v.r } } : {}),
      },
    } satisfies OneLineConfirmation;
  });
