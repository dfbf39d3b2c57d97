// /kudos stats and "+1" reactions through the real routing.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { kudos, kudosReactions } from '../../src/db/schema/index.js';
import { eventually, sendModalValues, startTestStack, submitSendForm, type TestStack } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { startTestEmulator, type TestEmulator } from '../support/emulator.js';

let testDb: TestDatabase;
let emulator: TestEmulator;
let stack: TestStack;

beforeAll(async () => {
  [testDb, emulator] = await Promise.all([createTestDatabase(), startTestEmulator()]);
});
afterAll(async () => {
  await emulator?.close();
  await testDb?.close();
});
beforeEach(async () => {
  await Promise.all([testDb.truncateAll(), emulator.reset()]);
  stack = await startTestStack({ db: testDb.db, emulator, env: { KUDOS_NOTIFY_CHANNEL: 'C_KUDOS', KUDOS_APPROVAL_THRESHOLD: '100' } });
});
afterEach(async () => {
  await stack?.close();
});

const answer = (userId: string) =>
  stack.sim
    .messages('C_GENERAL')
    .filter((m) => m.ephemeral && m.visible_to === userId)
    .at(-1);

describe('/kudos stats and +1 reactions', () => {
  it('counts kudos given and received this month and :gift: +1s (once per person); opted-out people do not appear', async () => {
    const row = await submitSendForm(stack, testDb.db, 'U_MANAGER', sendModalValues({ users: ['U_EMP1', 'U_EMP2'], design: 'CC-THANK-YOU', amount: '20', message: 'thanks' }));
    const placed = await eventually(async () => (await testDb.db.select().from(kudos)).find((k) => k.id === row.id && k.announcementTs));
    const item = { type: 'message', channel: placed.announcementChannel, ts: placed.announcementTs };
    await stack.sim.sendEvent({ type: 'reaction_added', user: 'U_EMP3', reaction: 'gift', item, item_user: 'U_KUDOSBOT' });
    await stack.sim.sendEvent({ type: 'reaction_added', user: 'U_EMP3', reaction: 'gift', item, item_user: 'U_KUDOSBOT' });
    await stack.sim.sendEvent({ type: 'reaction_added', user: 'U_EMP4', reaction: 'thumbsup', item, item_user: 'U_KUDOSBOT' });
    await eventually(async () => (await testDb.db.select().from(kudosReactions)).length === 1);

    await stack.sim.slashCommand('U_EMP4', 'stats', 'C_GENERAL');
    const board = JSON.stringify((await stack.sim.waitFor(() => answer('U_EMP4'))).blocks);
    expect(board).toContain('1 sent · 1 +1s');
    expect(board).toMatch(/Most kudos given\*\\n1\. <@U_MANAGER> · 1/);
    expect(board).toContain('<@U_EMP1> · 1');
    expect(board).not.toContain('$');

    await stack.sim.slashCommand('U_EMP1', 'stats optout', 'C_GENERAL');
    await stack.sim.waitFor(() => answer('U_EMP1')?.text.includes('won’t appear'));
    await stack.sim.slashCommand('U_EMP4', 'stats', 'C_GENERAL');
    await stack.sim.waitFor(() => {
      const m = answer('U_EMP4');
      const text = JSON.stringify(m?.blocks ?? []);
      return m && text.includes('Most kudos received') && !text.includes('U_EMP1') ? m : undefined;
    });

    await stack.sim.slashCommand('U_EMP4', 'stats smarch', 'C_GENERAL');
    await stack.sim.waitFor(() => answer('U_EMP4')?.text.includes('Which month?'));
  });
});
