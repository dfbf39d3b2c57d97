// App Home by role in a real browser (Debian's chromium) against the dev stack: a sender, an approver
// and an admin each open the Kudos app's Home tab. The screenshots go to docs/ (used in the README).
import { mkdirSync } from 'node:fs';

import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import { type DevStack, startDevStack } from '../../src/dev/stack.js';
import { sendModalValues } from '../support/app.js';
import { launchChromium } from '../support/browser.js';

let stack: DevStack;
let browser: Browser;
let page: Page;

/** A send through the simulator's signed requests (the browser test is about Home, not the form). */
async function send(userId: string, users: string[], amount: string, message: string) {
  const sim = stack.simulator;
  await sim.slashCommand(userId, '', 'C_GENERAL');
  const view = await sim.waitFor(() => sim.openViews(userId).find((v) => v.callback_id === 'kudos_send'), 10_000);
  await sim.submitView(view.id, sendModalValues({ users, design: 'CC-THANK-YOU', amount, message }), userId);
}

beforeAll(async () => {
  mkdirSync('docs', { recursive: true });
  stack = await startDevStack({ port: 0, pgliteDir: 'memory://', logLevel: 'error' });
  browser = await launchChromium();
  await send('U_MANAGER', ['U_EMP1', 'U_EMP2'], '25', 'Thank you for a flawless launch!');
  await send('U_EMP1', ['U_MANAGER'], '20', 'For unblocking the release review');
  await send('U_MANAGER', ['U_EMP3'], '150', 'Closing the biggest deal of the quarter');
});

afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

afterEach(async () => {
  await page?.close();
});

async function openHome(as: string): Promise<Page> {
  page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
  await page.goto(`${stack.url}/?as=${as}&conv=D_${as}&page=messages`);
  await page.locator('#whoami option').first().waitFor({ state: 'attached' });
  await page.locator('#tab-home').click();
  await page.locator('#home button', { hasText: 'Give kudos' }).waitFor();
  return page;
}

describe('App Home by role in the simulator', () => {
  it('a sender sees what they sent (live status) and received, and their scheduled sends', async () => {
    const p = await openHome('U_MANAGER');
    const home = p.locator('#home');
    await expect.poll(() => home.innerText(), { timeout: 20_000 }).toMatch(/Kudos you sent[\s\S]*Waiting for approval/);
    const text = await home.innerText();
    expect(text).toContain('Kudos you received');
    expect(text).toContain('For unblocking the release review');
    // Plain words: each kudos as a sentence, "each" only for several people, no internal states.
    expect(text).toMatch(/sent you a \$\d+ Thank You card/);
    expect(text).toMatch(/A \$\d+ Thank You card each to @\S+ \S+ and @/);
    expect(text).not.toMatch(/Placed|COMPLETE|\(total/);
    expect(text).not.toContain('Approve');
    expect(text).not.toContain('Balance');
    // The stats section: their month, the leaders (counts, not amounts) and the opt-out switch.
    expect(text).toMatch(/Kudos in \w+ \d{4}/);
    expect(text).toMatch(/You: \d+ given · \d+ received/);
    expect(text).toContain('Most kudos given');
    expect(await home.locator('button', { hasText: 'Hide me from the leaderboard' }).count()).toBe(1);
    await p.screenshot({ path: 'docs/app-home-sender.png', fullPage: true });
  });

  it('an approver sees the request with Approve and Reject, and approving it takes it off the list', async () => {
    const p = await openHome('U_APPROVER');
    const home = p.locator('#home');
    await home.locator('button', { hasText: 'Approve' }).waitFor({ timeout: 20_000 });
    expect(await home.innerText()).toContain('Waiting for your approval');
    await p.screenshot({ path: 'docs/app-home-approver.png', fullPage: true });
    await home.locator('button', { hasText: 'Approve' }).click();
    if (await p.locator('.confirm-ok').count()) await p.locator('.confirm-ok').click();
    await expect.poll(() => home.innerText(), { timeout: 20_000 }).toContain('Approved');
    expect(await home.locator('button', { hasText: 'Approve' }).count()).toBe(0);
  });

  it('an admin sees the balance, this month’s spend, settings and health', async () => {
    const p = await openHome('U_ADMIN');
    const home = p.locator('#home');
    await expect.poll(() => home.innerText(), { timeout: 20_000 }).toMatch(/Balance:/);
    const text = await home.innerText();
    expect(text).toMatch(/This month:/);
    expect(text).toContain('Health');
    expect(await home.locator('button', { hasText: 'Settings' }).count()).toBe(1);
    await p.screenshot({ path: 'docs/app-home-admin.png', fullPage: true });
  });
});
