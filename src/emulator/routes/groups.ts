import type { Context } from 'hono';
import { z } from 'zod';

import { readBody } from '../http/body.js';
import { pageRequest, paginate } from '../http/pagination.js';
import { scoped } from '../http/scoped.js';
import type { EmulatorApp, EmulatorEnv } from '../http/types.js';
import { serializeGroup, serializeRecipient } from '../state/addressbook.js';
import type { EmulatorCore } from '../state/core.js';

const GroupSchema = z.object({ groupName: z.string().trim().min(1, 'is required').max(100) });
const MemberSchema = z.object({ recipientId: z.string().min(1, 'is required') });

/** Spec 4.7. */
export function registerGroupRoutes(app: EmulatorApp, core: EmulatorCore): void {
  const limit = core.config.bodyLimitBytes;
  const envOf = (c: Context<EmulatorEnv>) => core.env(c.get('grant').env);
  const book = core.addressBook;
  const base = '/api/v1/recipient-groups';

  app.get(base, scoped('recipients.read'), (c) =>
    c.json(paginate(book.listGroups(envOf(c)), pageRequest(c.req.query()), serializeGroup)),
  );
  app.get(`${base}/:groupId`, scoped('recipients.read'), (c) =>
    c.json({ data: serializeGroup(book.getGroup(envOf(c), c.req.param('groupId'))) }),
  );
  app.post(base, scoped('recipients.write'), async (c) => {
    const body = await readBody(c, limit, GroupSchema);
    return c.json({ data: serializeGroup(book.createGroup(envOf(c), body.groupName)) }, 201);
  });
  app.put(`${base}/:groupId`, scoped('recipients.write'), async (c) => {
    const body = await readBody(c, limit, GroupSchema);
    return c.json({ data: serializeGroup(book.renameGroup(envOf(c), c.req.param('groupId'), body.groupName)) });
  });
  app.delete(`${base}/:groupId`, scoped('recipients.write'), (c) => {
    book.deleteGroup(envOf(c), c.req.param('groupId'));
    return c.body(null, 204);
  });
  app.get(`${base}/:groupId/members`, scoped('recipients.read'), (c) =>
    c.json(paginate(book.members(envOf(c), c.req.param('groupId')), pageRequest(c.req.query()), serializeRecipient)),
  );
  app.post(`${base}/:groupId/members`, scoped('recipients.write'), async (c) => {
    const body = await readBody(c, limit, MemberSchema);
    const { group, recipient } = book.addMember(envOf(c), c.req.param('groupId'), body.recipientId);
    return c.json(
      { data: { groupId: group.groupId, recipientId: recipient.recipientId, memberCount: group.memberIds.length } },
      201,
    );
  });
  app.delete(`${base}/:groupId/members/:recipientId`, scoped('recipients.write'), (c) => {
    book.removeMember(envOf(c), c.req.param('groupId'), c.req.param('recipientId'));
    return c.body(null, 204);
  });
}
