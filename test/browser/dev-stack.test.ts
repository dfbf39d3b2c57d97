// `npm run dev`'s promise that a second start keeps the data: the app's database and the simulator's
// Slack history survive a restart of the whole stack. Driven through the simulator's driver (no browser).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { type DevStack, startDevStack } from '../../src/dev/stack.js';

const dir = mkdtempSync(join(tmpdir(), 'kudos-dev-'));
let stack: DevStack | undefined;
afterAll(async () => {
  await stack?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('npm run dev', () => {
  it('keeps the kudos and the Slack history across a restart', async () => {
    const pgliteDir = join(dir, 'pglite');
    stack = await startDevStack({ port: 0, pgliteDir, logLevel: 'error' });
    const sim = stack.simulator;
    // The one-line send: a confirmation, then Send.
    await sim.slashCommand('U_MANAGER', '<@U_EMP1|eli> 30 For the migration', 'C_KUDOS');
    const confirmation = await sim.waitFor(
      () => sim.messages('C_KUDOS').find((m) => JSON.stringify(m.blocks ?? []).includes('one_line_send')),
      10_000,
    );
    const r = await sim.clickButton({ channel: 'C_KUDOS', ts: confirmation.ts }, 'one_line_send', 'U_MANAGER');
    expect(r.status).toBe(200);
    const announcement = await sim.waitFor(
      () =>
        sim
          .messages('C_KUDOS')
          .find((m) => m.text.includes('kudos') || JSON.stringify(m.blocks ?? []).includes('sent kudos')),
      20_000,
    );
    await stack.close();
    stack = undefined;

    stack = await startDevStack({ port: 0, pgliteDir, logLevel: 'error' });
    const again = stack.simulator;
    expect(again.messages('C_KUDOS').map((m) => m.ts)).toContain(announcement.ts);
    await again.sendEvent({ type: 'app_home_opened', user: 'U_MANAGER', channel: 'D_U_MANAGER', tab: 'home' });
    const home = await again.waitFor(() => again.homeView('U_MANAGER'), 10_000);
    expect(JSON.stringify(home.blocks)).toContain('<@U_EMP1>');
  });
});
