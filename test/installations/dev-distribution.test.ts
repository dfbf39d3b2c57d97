// `npm run dev -- --distribution`: the offline product in distribution mode. Two workspaces are
// installed at start through the real "Add to Slack" routes (the seed's on its own, the Grid org
// org-wide), the simulator's sidebar switches workspace, and a request from a Grid workspace carries
// the org install's token. Each workspace has its own channels and DMs: a kudos in one is not in
// another's #kudos; the authorize page preselects the workspace the install started from, and the
// sidebar follows an install to its workspace.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { type DevStack, startDevStack } from '../../src/dev/stack.js';
import { eventually, sendModalValues } from '../support/app.js';

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

  it('keeps each workspace its own #kudos, preselects the workspace an install starts from, and follows the install', async () => {
    const ui = (path: string, body?: unknown) =>
      fetch(`${stack.url}${path}`, {
        ...(body === undefined
          ? {}
          : { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) }),
      });
    const shown = async (teamId: string) => {
      expect((await ui('/_ui/workspace', { teamId })).status).toBe(200);
      const state = (await (await ui('/_ui/state?as=U_MANAGER&conv=C_KUDOS')).json()) as { messagesHtml: string };
      return state.messagesHtml;
    };
    const sim = stack.simulator;
    // Kudos Demo connects its Rewards account (what an admin does in App Home) and Maya sends a kudos there.
    const demo = stack.rewardsAccounts[0]!;
    await stack.app.rewardsConnections!.save(
      { teamId: 'T0KUDOS' },
      { clientId: demo.clientId, clientSecret: demo.clientSecret, webhookSecret: demo.webhookSecret },
      'U_ADMIN',
    );
    await shown('T0KUDOS');
    await sim.slashCommand('U_MANAGER', '', 'C_KUDOS');
    const modal = await sim.waitFor(() => sim.openViews('U_MANAGER').find((v) => v.callback_id === 'kudos_send'));
    await sim.submitView(
      modal.id,
      sendModalValues({ users: ['U_EMP1'], design: 'CC-THANK-YOU', amount: '25', message: 'Only in Kudos Demo' }),
      'U_MANAGER',
    );
    await sim.waitFor(
      () => sim.messages('C_KUDOS').find((m) => JSON.stringify(m).includes('Only in Kudos Demo')),
      15_000,
    );
    // A plain message in a Grid workspace's #kudos stays there too.
    await shown('T_GRID_A');
    expect((await ui('/_ui/message', { as: 'U_EMP2', channel: 'C_KUDOS', text: 'Hello from Grid Sales' })).status).toBe(
      200,
    );

    const inGrid = await shown('T_GRID_A');
    expect(inGrid).toContain('Hello from Grid Sales');
    expect(inGrid).not.toContain('Only in Kudos Demo');
    expect(await shown('T_GRID_B')).not.toMatch(/Only in Kudos Demo|Hello from Grid Sales/);
    const inDemo = await shown('T0KUDOS');
    expect(inDemo).toContain('Only in Kudos Demo');
    expect(inDemo).not.toContain('Hello from Grid Sales');
    // The recipient's DM with the app is Kudos Demo's too.
    await shown('T_GRID_A');
    expect(sim.messages('U_EMP1')).toEqual([]);

    // "Add to Slack" started from Second Co: the authorize page has Second Co chosen.
    await shown('T_SECOND');
    const page = await (await fetch(`${stack.app.url}/slack/install`)).text();
    const authorize = /id="add-to-slack" href="([^"]+)"/.exec(page)![1]!.replace(/&amp;/g, '&');
    const html = await (await fetch(authorize)).text();
    expect(/<input type="radio" name="team" value="([^"]+)" checked>/.exec(html)?.[1]).toBe('T_SECOND');

    // Installed into Second Co (from another workspace's page): the page follows the install there.
    await shown('T0KUDOS');
    const before = ((await (await ui('/_ui/state?as=U_MANAGER')).json()) as { workspaceKey: string }).workspaceKey;
    expect((await sim.distribution!.install({ teamId: 'T_SECOND' })).status).toBe(200);
    const ws = (await (await ui('/_ui/workspace')).json()) as {
      acting: string;
      team: { name: string };
      workspaces: Array<{ id: string; installedVia: string }>;
    };
    expect(ws.acting).toBe('T_SECOND');
    expect(ws.team.name).toBe('Second Co');
    expect(ws.workspaces.find((w) => w.id === 'T_SECOND')?.installedVia).toBe('workspace install');
    const after = ((await (await ui('/_ui/state?as=U_MANAGER')).json()) as { workspaceKey: string }).workspaceKey;
    expect(after).not.toBe(before);
  });
});
