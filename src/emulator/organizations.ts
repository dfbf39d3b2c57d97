// More than one Rewards organization in one emulator (an extension; docs/architecture/emulator.md, "Several organizations").
// The seeded organization (docs/architecture/emulator.md) is the default and needs no setup;
// `POST /_emulator/orgs` adds another, with its own apps (client credentials), balances, orders,
// address book, webhook registration and signing secret: an EmulatorCore of its own. Requests are
// routed by who they come from: `/oauth2/token` by client id, `/api/*` by the bearer token (tokens
// are random, so at most one organization issued it); anything unknown goes to the default
// organization, which answers as it always did (401, INVALID_CLIENT). An added organization's
// control routes are the usual ones under `/_emulator/orgs/{orgId}/…` (its own clock and faults).
// `POST /_emulator/reset` on the default organization removes the added ones.
import { z } from 'zod';

import { createEmulatorApp } from './app.js';
import type { EmulatorConfig } from './config.js';
import { EmulatorCore } from './state/core.js';

type Fetch = (request: Request, env: unknown) => Response | Promise<Response>;

interface Organization {
  core: EmulatorCore;
  fetch: Fetch;
}

const NewOrganization = z.object({
  orgId: z.string().regex(/^[A-Za-z0-9_-]{1,40}$/),
  productionClientId: z.string().min(1),
  productionClientSecret: z.string().min(1),
  sandboxClientId: z.string().min(1).optional(),
  sandboxClientSecret: z.string().min(1).optional(),
  signingSecret: z.string().min(1),
});

const ORG_PREFIX = /^\/_emulator\/orgs\/([A-Za-z0-9_-]{1,40})(\/.*)$/;

export class Organizations {
  private readonly extra = new Map<string, Organization>();
  private readonly main: Organization;

  constructor(
    private readonly config: EmulatorConfig,
    mainCore: EmulatorCore,
  ) {
    this.main = { core: mainCore, fetch: createEmulatorApp(mainCore).fetch as Fetch };
  }

  cores(): EmulatorCore[] {
    return [this.main.core, ...[...this.extra.values()].map((o) => o.core)];
  }

  readonly fetch = async (request: Request, env: unknown): Promise<Response> => {
    const url = new URL(request.url);
    if (url.pathname === '/_emulator/orgs' && request.method === 'POST') return this.add(request);
    if (url.pathname === '/_emulator/orgs' && request.method === 'GET')
      return Response.json({ orgs: [...this.extra.keys()] });
    const scoped = ORG_PREFIX.exec(url.pathname);
    if (scoped) {
      const org = this.extra.get(scoped[1]!);
      if (!org)
        return Response.json(
          { error: { code: 'NOT_FOUND', message: `No organization ${scoped[1]}` } },
          { status: 404 },
        );
      url.pathname = `/_emulator${scoped[2]}`;
      return org.fetch(new Request(url, request), env);
    }
    if (this.extra.size > 0) {
      if (url.pathname === '/oauth2/token' && request.method === 'POST') {
        const body = await request.text();
        const clientId = clientIdOf(body, request.headers.get('authorization'));
        const org =
          [...this.extra.values()].find((o) => clientId !== undefined && o.core.auth.hasClient(clientId)) ?? this.main;
        return org.fetch(new Request(request.url, { method: 'POST', headers: request.headers, body }), env);
      }
      if (url.pathname.startsWith('/api/')) {
        const token = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.get('authorization') ?? '')?.[1];
        const org = [...this.extra.values()].find((o) => token !== undefined && o.core.auth.issued(token)) ?? this.main;
        return org.fetch(request, env);
      }
    }
    const response = await this.main.fetch(request, env);
    if (url.pathname === '/_emulator/reset' && request.method === 'POST' && response.ok) this.removeAll();
    return response;
  };

  private async add(request: Request): Promise<Response> {
    const parsed = NewOrganization.safeParse(await request.json().catch(() => undefined));
    if (!parsed.success)
      return Response.json(
        {
          error: {
            code: 'VALIDATION_ERROR',
            message: parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '),
          },
        },
        { status: 400 },
      );
    const o = parsed.data;
    const taken = [o.productionClientId, o.sandboxClientId]
      .filter((id): id is string => id !== undefined)
      .find((id) => this.cores().some((c) => c.auth.hasClient(id)));
    if (this.extra.has(o.orgId) || taken)
      return Response.json(
        {
          error: {
            code: 'CONFLICT',
            message: taken ? `client id ${taken} is taken` : `organization ${o.orgId} exists`,
          },
        },
        { status: 409 },
      );
    const core = new EmulatorCore({
      ...this.config,
      productionClientId: o.productionClientId,
      productionClientSecret: o.productionClientSecret,
      sandboxClientId: o.sandboxClientId ?? `${o.orgId}-sandbox-client`,
      sandboxClientSecret: o.sandboxClientSecret ?? `${o.orgId}-sandbox-secret`,
      signingSecret: o.signingSecret,
    });
    if (this.config.backgroundTimer) core.jobs.startTimer();
    this.extra.set(o.orgId, { core, fetch: createEmulatorApp(core).fetch as Fetch });
    return Response.json({ orgId: o.orgId }, { status: 201 });
  }

  private removeAll(): void {
    for (const org of this.extra.values()) {
      org.core.jobs.stopTimer();
      org.core.jobs.clear();
    }
    this.extra.clear();
  }
}

function clientIdOf(body: string, authorization: string | null): string | undefined {
  const fromForm = new URLSearchParams(body).get('client_id');
  if (fromForm) return fromForm;
  const basic = /^Basic\s+(\S+)$/i.exec(authorization ?? '');
  if (!basic) return undefined;
  const decoded = Buffer.from(basic[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon > 0 ? decodeURIComponent(decoded.slice(0, colon)) : undefined;
}
