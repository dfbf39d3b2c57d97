// What the simulator adds so a newcomer can try the whole product (docs/architecture/simulator.md):
// the seeded person whose address bounces, plain messages, reactions (reaction_added / _removed),
// the message shortcut and the Workflow step from the page's API, pending top-ups finished through the
// emulator, and the recipient's e-mail rendered from the emulator's outbox.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startEmulator } from '../../src/emulator/server.js';
import { type SlackSimulator, startSlackSimulator } from '../../src/simulator/slack.js';
import { renderEmail } from '../../src/simulator/web/email.js';
import { type FakeApp, startFakeApp } from './fake-app.js';

let sim: SlackSimulator;
let app: FakeApp;
let emulator: Awaited<ReturnType<typeof startEmulator>>;

beforeAll(async () => {
  app = await startFakeApp();
  emulator = await startEmulator({ port: 0, host: '127.0.0.1', env: {} });
  sim = await startSlackSimulator({ signingSecret: 's', appUrl: app.url, emulatorUrl: emulator.url });
});
afterAll(async () => {
  await sim.close();
  await app.close();
  await emulator.close();
});

const post = (path: string, body: unknown) =>
  fetch(`${sim.url}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
const events = () =>
  app.requests
    .filter((r) => r.headers['content-type'] === 'application/json')
    .map((r) => (JSON.parse(r.body) as { event: Record<string, unknown> }).event);
const interactions = () =>
  app.requests
    .filter((r) => r.body.startsWith('payload='))
    .map((r) => JSON.parse(new URLSearchParams(r.body).get('payload')!) as Record<string, unknown>);

describe('the seed', () => {
  it('has Bruno, whose address the Rewards emulator bounces (bounce.test)', async () => {
    const res = await fetch(`${sim.apiUrl}users.lookupByEmail`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${sim.botToken}`, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'email=bruno@bounce.test',
    });
    expect(await res.json()).toMatchObject({ ok: true, user: { id: 'U_BOUNCE', real_name: 'Bruno Bounce' } });
  });
});

describe('messages, reactions and the message shortcut from the page', () => {
  it('a plain message is posted as the person; the app DM refuses one with a clear line', async () => {
    const ok = await post('/_ui/message', { as: 'U_EMP2', channel: 'C_GENERAL', text: 'Shipped @eli' });
    expect(ok.status).toBe(200);
    expect(sim.messages('C_GENERAL').at(-1)).toMatchObject({ user: 'U_EMP2', text: 'Shipped <@U_EMP1|eli>' });
    const dm = await post('/_ui/message', { as: 'U_EMP2', channel: 'D_U_EMP2', text: 'hi' });
    expect(dm.status).toBe(400);
    expect(((await dm.json()) as { error: string }).error).toContain('/kudos help');
  });

  it('a reaction is shown with its count and sent as reaction_added; clicking it again sends reaction_removed', async () => {
    const { ts } = sim.messages('C_GENERAL').at(-1)!;
    expect((await post('/_ui/react', { as: 'U_EMP3', channel: 'C_GENERAL', ts, name: 'gift' })).status).toBe(200);
    expect(events().at(-1)).toMatchObject({
      type: 'reaction_added',
      user: 'U_EMP3',
      reaction: 'gift',
      item_user: 'U_EMP2',
      item: { type: 'message', channel: 'C_GENERAL', ts },
    });
    const state = (await (await fetch(`${sim.url}/_ui/state?as=U_EMP3&conv=C_GENERAL`)).json()) as {
      messagesHtml: string;
    };
    expect(state.messagesHtml).toContain('class="reaction mine" data-reaction="gift" aria-pressed="true"');
    await post('/_ui/react', { as: 'U_EMP3', channel: 'C_GENERAL', ts, name: 'gift' });
    expect(events().at(-1)).toMatchObject({ type: 'reaction_removed', reaction: 'gift' });
    expect(sim.messages('C_GENERAL').at(-1)!.reactions).toEqual([]);
    // Bad input: one clear line, nothing sent.
    const count = app.requests.length;
    expect((await post('/_ui/react', { as: 'U_EMP3', channel: 'C_GENERAL', ts, name: '<b>' })).status).toBe(400);
    expect(app.requests.length).toBe(count);
  });

  it('"More actions" sends the message shortcut (message_action) with the message', async () => {
    const { ts } = sim.messages('C_GENERAL').at(-1)!;
    const res = await post('/_ui/shortcut', {
      as: 'U_MANAGER',
      channel: 'C_GENERAL',
      ts,
      callbackId: 'give_kudos_for_message',
    });
    expect(res.status).toBe(200);
    expect(interactions().at(-1)).toMatchObject({
      type: 'message_action',
      callback_id: 'give_kudos_for_message',
      user: { id: 'U_MANAGER' },
      channel: { id: 'C_GENERAL' },
      message: { user: 'U_EMP2', ts },
    });
  });
});

describe('"Run a workflow step"', () => {
  it('sends function_executed with the inputs; missing required inputs are one clear line and nothing is sent', async () => {
    const count = app.requests.length;
    const missing = await post('/_ui/workflow', {
      as: 'U_MANAGER',
      callbackId: 'send_kudos',
      inputs: { sender: 'U_MANAGER', recipients: [], amount: '' },
    });
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as { error: string }).error).toBe('Fill in To, Amount per person.');
    expect(app.requests.length).toBe(count);

    const res = await post('/_ui/workflow', {
      as: 'U_MANAGER',
      callbackId: 'send_kudos',
      inputs: { sender: 'U_MANAGER', recipients: ['U_EMP1'], amount: 15, message: 'From a workflow', design: '' },
    });
    expect(res.status).toBe(200);
    expect(events().at(-1)).toMatchObject({
      type: 'function_executed',
      function: { callback_id: 'send_kudos', output_parameters: [{ name: 'kudos_id' }, { name: 'status' }] },
      inputs: { sender: 'U_MANAGER', recipients: ['U_EMP1'], amount: 15, message: 'From a workflow' },
    });
    expect(events().at(-1)!.inputs).not.toHaveProperty('design');
    const state = (await (await fetch(`${sim.url}/_ui/state?as=U_MANAGER`)).json()) as {
      workflow: { runs: Array<{ state: string; callbackId: string }> };
    };
    expect(state.workflow.runs[0]).toMatchObject({ callbackId: 'send_kudos', state: 'running' });
  });
});

describe('pending top-ups', () => {
  it('lists the emulator\'s pending top-up and finishes it: "Transfer arrived" credits the balance', async () => {
    const token = (await (
      await fetch(`${emulator.url}/oauth2/token`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=client_credentials&client_id=production-client&client_secret=production-secret',
      })
    ).json()) as { access_token: string };
    const charge = await fetch(`${emulator.url}/api/v1/balance/charge`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token.access_token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        amount: 500,
        companyName: 'Acme',
        phoneNumber: '1',
        billingAddress: '1 Main St',
        city: 'X',
        state: 'IL',
        country: 'US',
        zipCode: '1',
        ein: '1',
      }),
    });
    expect(charge.status).toBeLessThan(300);
    const listed = (await (await fetch(`${sim.url}/_ui/fundings`)).json()) as {
      fundings: Array<{ fundingNo: string; status: string; amount: { amount: number }; org: string | null }>;
    };
    const pending = listed.fundings.find((f) => f.status === 'PENDING')!;
    expect(pending).toMatchObject({ amount: { amount: 500 }, org: null });

    const bad = await post('/_ui/fundings/process', { fundingNo: pending.fundingNo, outcome: 'maybe' });
    expect(bad.status).toBe(400);
    const done = await post('/_ui/fundings/process', { fundingNo: pending.fundingNo, outcome: 'approve' });
    expect(done.status).toBe(200);
    const after = (await (await fetch(`${sim.url}/_ui/fundings`)).json()) as {
      fundings: Array<{ fundingNo: string; status: string }>;
    };
    expect(after.fundings.find((f) => f.fundingNo === pending.fundingNo)?.status).toBe('COMPLETED');
    // Twice is refused by the emulator: money moves once.
    expect((await post('/_ui/fundings/process', { fundingNo: pending.fundingNo, outcome: 'approve' })).status).toBe(
      409,
    );
  });
});

describe("the recipient's e-mail", () => {
  const email = {
    kind: 'card',
    to: 'eli@example.com',
    bounced: false,
    subject: 'Maya sent you <kudos>',
    senderName: 'Maya & co',
    message: '<script>alert(1)</script>',
    cardName: 'Thank You',
    amount: 25,
    currency: 'USD',
    rewardLink: 'https://rewards.emulator.test/redeem/abc',
    sentAt: '2026-01-02T03:04:05.000Z',
  };

  it('shows the subject, sender, amount, message and a Redeem link, every text escaped', () => {
    const html = renderEmail(email);
    expect(html).toContain('Maya sent you &lt;kudos&gt;');
    expect(html).toContain('Maya &amp; co');
    expect(html).toContain('$25.00');
    expect(html).toContain('&lt;script&gt;');
    expect(html).not.toContain('<script>');
    expect(html).toContain('href="https://rewards.emulator.test/redeem/abc"');
    expect(html).not.toContain('Undeliverable');
  });

  it('marks a bounced e-mail undeliverable, and links only http(s)', () => {
    const html = renderEmail({ ...email, bounced: true, rewardLink: 'javascript:alert(1)' });
    expect(html).toContain('Undeliverable');
    expect(html).not.toContain('javascript:');
  });

  it('the inbox answers each e-mail with its rendering', async () => {
    const inbox = (await (await fetch(`${sim.url}/_ui/inbox`)).json()) as { emails: unknown[] };
    expect(inbox.emails).toEqual([]);
  });
});
