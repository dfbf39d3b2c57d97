import { readForm } from '../http/body.js';
import type { EmulatorApp } from '../http/types.js';
import type { EmulatorCore } from '../state/core.js';

/** POST /oauth2/token (spec 4.1): form-encoded client credentials; HTTP Basic also accepted. */
export function registerTokenRoutes(app: EmulatorApp, core: EmulatorCore): void {
  app.post('/oauth2/token', async (c) => {
    const form = await readForm(c, core.config.bodyLimitBytes);
    let clientId = form.get('client_id') ?? undefined;
    let clientSecret = form.get('client_secret') ?? undefined;
    const basic = /^Basic\s+(\S+)$/i.exec(c.req.header('authorization') ?? '');
    if (basic && clientId === undefined) {
      const decoded = Buffer.from(basic[1]!, 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      if (colon > 0) {
        clientId = decodeURIComponent(decoded.slice(0, colon));
        clientSecret = decodeURIComponent(decoded.slice(colon + 1));
      }
    }
    const answer = core.auth.issueToken({
      grantType: form.get('grant_type') ?? undefined,
      clientId,
      clientSecret,
      scope: form.get('scope') ?? undefined,
    });
    c.header('Cache-Control', 'no-store');
    return c.json(answer, 200);
  });
}
