import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { startSlackSimulator } from '../../src/simulator/slack.js';

const dir = mkdtempSync(join(tmpdir(), 'kudos-sim-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function post(apiUrl: string, token: string, method: string, args: Record<string, unknown>) {
  const res = await fetch(`${apiUrl}${method}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
    body: JSON.stringify(args),
  });
  return (await res.json()) as Record<string, any>;
}

describe('persistence across restarts', () => {
  it('keeps messages and Home tabs, and keeps message ts increasing', async () => {
    const file = join(dir, 'simulator.json');
    const first = await startSlackSimulator({ signingSecret: 's', persistFile: file });
    const posted = await post(first.apiUrl, first.botToken, 'chat.postMessage', {
      channel: 'C_KUDOS',
      text: 'remember me',
    });
    await post(first.apiUrl, first.botToken, 'views.publish', {
      user_id: 'U_EMP1',
      view: { type: 'home', blocks: [{ type: 'divider' }] },
    });
    await first.close();

    const second = await startSlackSimulator({ signingSecret: 's', persistFile: file });
    expect(second.messages('C_KUDOS').map((m) => m.text)).toEqual(['remember me']);
    expect(second.homeView('U_EMP1')?.blocks).toHaveLength(1);
    const later = await post(second.apiUrl, second.botToken, 'chat.postMessage', {
      channel: 'C_KUDOS',
      text: 'and me',
    });
    expect(Number(later.ts)).toBeGreaterThan(Number(posted.ts));
    expect(
      (await post(second.apiUrl, second.botToken, 'chat.update', { channel: 'C_KUDOS', ts: posted.ts, text: 'edited' }))
        .ok,
    ).toBe(true);
    await second.close();
  });

  it('starts empty from a corrupt file', async () => {
    const file = join(dir, 'corrupt.json');
    writeFileSync(file, '{not json');
    const sim = await startSlackSimulator({ signingSecret: 's', persistFile: file });
    expect(sim.messages()).toEqual([]);
    await sim.close();
  });
});
