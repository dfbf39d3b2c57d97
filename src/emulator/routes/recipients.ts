import type { Context } from 'hono';
import { z } from 'zod';

import { readBody, validate } from '../http/body.js';
import { pageRequest, paginate } from '../http/pagination.js';
import { Email } from '../http/schemas.js';
import { scoped } from '../http/scoped.js';
import type { EmulatorApp, EmulatorEnv } from '../http/types.js';
import { serializeRecipient } from '../state/addressbook.js';
import type { EmulatorCore } from '../state/core.js';

export const RecipientSchema = z.object({
  email: Email,
  firstName: z.string().max(100).optional(),
  lastName: z.string().max(100).optional(),
  company: z.string().max(200).optional(),
  department: z.string().max(200).optional(),
});

/** Spec 4.6. */
export function registerRecipientRoutes(app: EmulatorApp, core: EmulatorCore): void {
  const limit = core.config.bodyLimitBytes;
  const envOf = (c: Context<EmulatorEnv>) => core.env(c.get('grant').env);
  const book = core.addressBook;
  const base = '/api/v1/recipients';

  app.get(base, scoped('recipients.read'), (c) => {
    const q = validate(z.object({ searchKeyword: z.string().max(200).optional() }), c.req.query(), 'Query');
    return c.json(
      paginate(book.listRecipients(envOf(c), q.searchKeyword), pageRequest(c.req.query()), serializeRecipient),
    );
  });
  app.get(`${base}/:recipientId`, scoped('recipients.read'), (c) =>
    c.json({ data: serializeRecipient(book.getRecipient(envOf(c), c.req.param('recipientId'))) }),
  );
  app.post(base, scoped('recipients.write'), async (c) => {
    const body = await readBody(c, limit, RecipientSchema);
    return c.json({ data: serializeRecipient(book.createRecipient(envOf(c), body)) }, 201);
  });
  app.put(`${base}/:recipientId`, scoped('recipients.write'), async (c) => {
    const body = await readBody(c, limit, RecipientSchema);
    return c.json({ data: serializeRecipient(book.updateRecipient(envOf(c), c.req.param('recipientId'), body)) });
  });
  app.delete(`${base}/:recipientId`, scoped('recipients.write'), (c) => {
    book.deleteRecipient(envOf(c), c.req.param('recipientId'));
    return c.body(null, 204);
  });
}
