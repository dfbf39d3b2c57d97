// `npm run dev -- --distribution`: the offline product in distribution mode. Two workspaces are
// installed at start through the real "Add to Slack" routes (the seed's on its own, the Grid org
// org-wide), the simulator's sidebar switches workspace, and a request from a Grid workspace carries
// the org install's token.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { type DevStack, startDevStack } from '../../src/dev/stack.js';
import { eventually } from '../support/app.js';

let stack: DevStack;
beforeAll(async () => {
  stack = await startDevStack({ distribution: true, pgliteDir: 'memory://', port: 0 });
});
afterAll(async () => {
  await stack?.close();
});

describe('npm run dev -- --distribution', () => {
  it('shows the workspaces with how Kudos is installed in each, switches between them, and links to Add to Slack', async () => {
    const ws = (await (await fetch(`${stack.url}/_ui/workspace`)).json()) as {
      acting: string;
      workspaces: Array<{ id: string; installedVia: string }>;
    };
    expect(ws.acting).toBe('T0KUDOS');
    expect(Object.fromEntries(ws.workspaces.map((w) => [w.id, w.installedVia]))).toEqual({
      T0KUDOS: 'workspace install',
      T_SECOND: 'not installed',
      T_GRID_A: 'org-wide install (Grid Corp)',
      T_GRID_B: 'org-wide install (Grid Corp)',
    });
    const switched = await fetch(`${stack.url}/_ui/workspace`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ teamId: 'T_GRID_B' }),
    });
    expect(switched.status).toBe(200);
    const before = stack.simulator.calls.length;
    await stack.simulator.slashCommand('U_ADMIN', 'settings');
    const opened = await eventually(() => stack.simulator.calls.slice(before).find((c) => c.method === 'views.open'));
    expect(opened).toMatchObject({ ok: true, installation: 'enterprise:E_GRID' });
    const install = await fetch(`${stack.url}/_ui/install`, { redirect: 'manual' });
    expect(install.headers.get('location')).toBe(`${stack.app.url}/slack/install`);
  });

  it('gives each demo company a Rewards account of its own in the emulator, to connect from App Home', async () => {
    expect(stack.rewardsAccounts.map((a) => a.company)).toEqual(['Kudos Demo', 'Grid Corp (org-wide)', 'Second Co']);
    const tokens = await Promise.all(
      stack.rewardsAccounts.map(async (a) => {
        const res = await fetch(`${stack.emulator.url}/oauth2/token`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({
            grant_type: 'client_credentials',
            client_id: a.clientId,
            client_secret: a.clientSecret,
          }),
        });
        expect(res.status).toBe(200);
        return ((await res.json()) as { access_token: string }).access_token;
      }),
    );
    // Three accounts: three tokens, three webhook secrets.
    expect(new Set(tokens).size).toBe(3);
    expect(new Set(stack.rewardsAccounts.map((a) => a.webhookSecret)).size).toBe(3);
  });
});
