// `/kudos` that opens the send form is acked before any lookup of the listener's own: the Rewards
// connection is asked once, after the ack, whether the workspace has an account (the "not connected"
// explanation) or not (the send form). Distribution of Rewards accounts (each workspace its own),
// real signed requests from the simulator into Bolt. Runs on PGlite and PostgreSQL.
import { afterEach, describe, expect, it, vi } from 'vitest';

import type { Workspace } from '../../../src/domain/common/workspace.js';
import { generateKey } from '../../../src/secrets/key-ring.js';
import { useAppPerTest } from '../../support/app.js';

const e2e = useAppPerTest({
  env: { KUDOS_ENCRYPTION_KEY: generateKey('k1'), KUDOS_ADMINS: 'U_ADMIN' },
  app: { tuning: { rewardsPerWorkspace: true } },
});

afterEach(() => {
  vi.restoreAllMocks();
});

/**
 * Holds every connection lookup until the test lets it go, and records whether the command's answer
 * (the ack) had reached the simulator while the first lookup waited.
 */
function holdConnectionLookups() {
  const setup = e2e.stack.app.rewardsSetup!;
  const original = setup.isConnected.bind(setup);
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const asked: Workspace[] = [];
  const spy = vi.spyOn(setup, 'isConnected').mockImplementation(async (ws) => {
    asked.push(ws);
    await released;
    return original(ws);
  });
  return { spy, asked, release };
}

/** `/kudos` from the simulator: whether its answer came while the connection lookup was held. */
async function kudosWhileLookupHeld(held: ReturnType<typeof holdConnectionLookups>, userId: string) {
  const answer = e2e.stack.sim.slashCommand(userId, '');
  // Without the ack first the answer waits for the lookup: give up waiting after a few seconds.
  const first = await Promise.race([
    answer.then(() => 'answered' as const),
    new Promise<'no answer'>((resolve) => setTimeout(() => resolve('no answer'), 4000).unref()),
  ]);
  held.release();
  return { first, answer: await answer };
}

describe('/kudos acks before it looks up the Rewards connection', () => {
  it('without a Rewards account: answered at once, asked once, then the explanation in place of the form', async () => {
    const held = holdConnectionLookups();
    const { first, answer } = await kudosWhileLookupHeld(held, 'U_EMP1');
    expect(first).toBe('answered');
    expect(answer.status).toBe(200);
    const explained = await e2e.stack.sim.waitFor(() => e2e.stack.sim.openViews('U_EMP1').at(-1));
    expect(JSON.stringify(explained.blocks)).toContain('Ask <@U_ADMIN>');
    expect(held.asked).toEqual([expect.objectContaining({ teamId: 'T0KUDOS' })]);
  });

  it('with a Rewards account: answered at once, asked once, then the send form', async () => {
    await e2e.stack.app.rewardsConnections!.save(
      { teamId: 'T0KUDOS', enterpriseId: null },
      { clientId: 'production-client', clientSecret: 'production-secret', webhookSecret: 'emulator-signing-secret' },
      'U_ADMIN',
    );
    const held = holdConnectionLookups();
    const { first, answer } = await kudosWhileLookupHeld(held, 'U_EMP1');
    expect(first).toBe('answered');
    expect(answer.status).toBe(200);
    const form = await e2e.stack.sim.waitFor(() =>
      e2e.stack.sim.openViews('U_EMP1').find((v) => v.callback_id === 'kudos_send'),
    );
    expect(form).toBeDefined();
    expect(held.asked).toHaveLength(1);
  });
});
