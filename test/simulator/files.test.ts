// The simulator's file uploads, in Slack's three steps, through the gateway's files.uploadV2 and by hand:
// the bytes arrive at the upload URL, the completion shares the file into the DM, the page downloads it,
// and the calls Slack refuses are refused here too.
import { webApi } from '@slack/bolt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { ChatRefusal } from '../../src/domain/common/ports.js';
import { type SlackSimulator, startSlackSimulator } from '../../src/simulator/slack.js';
import { createSlackGateway } from '../../src/slack/web-api/gateway.js';

let sim: SlackSimulator;

beforeAll(async () => {
  sim = await startSlackSimulator({ signingSecret: 'test-secret', rateLimits: false });
});
afterAll(async () => {
  await sim.close();
});

const client = () => new webApi.WebClient(sim.botToken, { slackApiUrl: sim.apiUrl, retryConfig: { retries: 0 } });

async function call(method: string, args: Record<string, string>) {
  const res = await fetch(`${sim.apiUrl}${method}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${sim.botToken}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(args).toString(),
  });
  return (await res.json()) as Record<string, unknown>;
}

describe('files.uploadV2 against the simulator', () => {
  it('shares the file into the DM with its comment; the text reads back, and the page downloads it', async () => {
    const gateway = createSlackGateway(client());
    const content = 'Name,Amount (USD)\r\n"Eli, E.",25.00\r\n';
    await gateway.sendFileDirectly('U_ADMIN', {
      filename: 'kudos-ledger-2026-11.csv',
      title: 'Rewards ledger 2026-11',
      content,
      comment: 'The Rewards ledger of 2026-11, 1 rows.',
    });
    const dm = sim.messages('U_ADMIN').find((m) => m.files?.length)!;
    expect(dm.text).toBe('The Rewards ledger of 2026-11, 1 rows.');
    expect(dm.files).toEqual([
      { id: expect.stringMatching(/^F/), name: 'kudos-ledger-2026-11.csv', title: 'Rewards ledger 2026-11' },
    ]);
    expect(sim.fileText(dm.files![0]!.id)).toEqual({
      name: 'kudos-ledger-2026-11.csv',
      title: 'Rewards ledger 2026-11',
      text: content,
    });
    expect(sim.calls.map((c) => c.method)).toEqual(
      expect.arrayContaining(['files.getUploadURLExternal', 'files.completeUploadExternal']),
    );
    const page = await fetch(`${sim.url}/_ui/file?id=${dm.files![0]!.id}`);
    expect(page.headers.get('content-disposition')).toContain('kudos-ledger-2026-11.csv');
    expect(await page.text()).toBe(content);
    const state = (await (await fetch(`${sim.url}/_ui/state?as=U_ADMIN&conv=${dm.channel}`)).json()) as {
      messagesHtml: string;
    };
    expect(state.messagesHtml).toContain('Rewards ledger 2026-11');
  });

  it('refuses what Slack refuses: a file never uploaded, the wrong length, a channel the bot is not in', async () => {
    const announced = await call('files.getUploadURLExternal', { filename: 'a.csv', length: '5' });
    expect(announced).toMatchObject({ ok: true, file_id: expect.stringMatching(/^F/) });
    const fileId = announced.file_id as string;
    const files = JSON.stringify([{ id: fileId, title: 'a' }]);
    expect(await call('files.completeUploadExternal', { files })).toMatchObject({ ok: false, error: 'file_not_found' });
    const short = await fetch(announced.upload_url as string, { method: 'POST', body: 'abc' });
    expect(short.status).toBe(400);
    expect((await fetch(announced.upload_url as string, { method: 'POST', body: 'abcde' })).status).toBe(200);
    sim.workspace.channels.push({ id: 'C_NOBOT', name: 'nobot', isPrivate: false, topic: '', members: ['U_EMP1'] });
    expect(await call('files.completeUploadExternal', { files, channel_id: 'C_NOBOT' })).toMatchObject({
      ok: false,
      error: 'not_in_channel',
    });
    expect(await call('files.completeUploadExternal', { files, channel_id: 'C_GENERAL' })).toMatchObject({ ok: true });
    expect(sim.fileText(fileId)!.text).toBe('abcde');
    // Completed once: a second completion is refused.
    expect(await call('files.completeUploadExternal', { files })).toMatchObject({ ok: false, error: 'file_not_found' });
    expect(await call('files.getUploadURLExternal', { filename: 'b.csv' })).toMatchObject({ ok: false });
  });

  it("the gateway's refusal is a ChatRefusal (a DM export then says so in one line)", async () => {
    const gateway = createSlackGateway(
      new webApi.WebClient('xoxb-wrong', { slackApiUrl: sim.apiUrl, retryConfig: { retries: 0 } }),
    );
    await expect(
      gateway.sendFileDirectly('U_ADMIN', { filename: 'x.csv', title: 'x', content: 'x', comment: 'x' }),
    ).rejects.toBeInstanceOf(ChatRefusal);
  });
});
