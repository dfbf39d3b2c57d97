import type { Context } from 'hono';
import { z } from 'zod';

import { readBody } from '../http/body.js';
import { pageRequest, paginate } from '../http/pagination.js';
import { HexColor } from '../http/schemas.js';
import type { EmulatorApp, EmulatorEnv } from '../http/types.js';
import type { EmulatorCore } from '../state/core.js';
import { serializeTemplate } from '../state/templates.js';

const TemplateSchema = z.object({
  name: z.string().min(1, 'is required').max(100, 'at most 100 characters'),
  senderName: z.string().min(1, 'is required').max(100),
  message: z.string().max(2000).optional(),
  imageAlignment: z.enum(['left', 'center', 'right']).optional(),
  imageSize: z.number().int('must be an integer').min(1).max(100).optional(),
  borderColor: HexColor.optional(),
  buttonColor: HexColor.optional(),
  buttonFontColor: HexColor.optional(),
});

/** Spec 4.5. Any valid token of the organization may use them (no scope is named for them). */
export function registerTemplateRoutes(app: EmulatorApp, core: EmulatorCore): void {
  const envOf = (c: Context<EmulatorEnv>) => core.env(c.get('grant').env);
  const base = '/api/v1/templates';
  app.get(base, (c) => c.json(paginate(core.templates.list(envOf(c)), pageRequest(c.req.query()), serializeTemplate)));
  app.post(base, async (c) => {
    const body = await readBody(c, core.config.bodyLimitBytes, TemplateSchema);
    return c.json({ data: serializeTemplate(core.templates.create(envOf(c), body)) }, 201);
  });
  app.get(`${base}/:templateId`, (c) =>
    c.json({ data: serializeTemplate(core.templates.get(envOf(c), c.req.param('templateId'))) }),
  );
  app.delete(`${base}/:templateId`, (c) => {
    core.templates.delete(envOf(c), c.req.param('templateId'));
    return c.body(null, 204);
  });
  // PUT /templates/{id} is not shown by the spec: it falls through to 501.
}
