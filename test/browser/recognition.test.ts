// The first kudos as a new user gives it, in a real browser (Debian's chromium) against the dev stack:
// from the one-line command in two steps (the command, then Send), and from the short send form in
// four clicks or fewer. Then what the recipient sees (their DM, with Say thanks) and a company value in
// the announcement. The screenshots go to docs/ (README, docs/recognition.md).

import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import { type DevStack, startDevStack } from '../../src/dev/stack.js';
import { saveCompanyValue } from '../../src/domain/workspaces/company-values.js';
import { TEAM_ID } from '../../src/simulator/seed.js';
import { launchChromium } from '../support/browser.js';

let stack: DevStack;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  stack = await startDevStack({ port: 0, pgliteDir: 'memory://', logLevel: 'error' });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

afterEach(async () => {
  await page?.close();
});

async function open(as: string, conv = 'C_KUDOS'): Promise<Page> {
  page = await browser.newPage({ viewport: { width: 1280, height: 820 } });
  await page.goto(`${stack.url}/?as=${as}&conv=${conv}&page=messages`);
  await page.locator('#whoami option').first().waitFor({ state: 'attached' });
  return page;
}

/** Counts the user's clicks on the page (typing is not a click; picking in a list is one). */
async function countClicks(p: Page): Promise<() => Promise<number>> {
  await p.evaluate(`
    window.kudosClicks = 0;
    document.addEventListener('click', () => { window.kudosClicks += 1; }, true);
    document.addEventListener('change', (e) => { if (e.target.tagName === 'SELECT') window.kudosClicks += 1; }, true);
  `);
  return () => p.evaluate<number>('window.kudosClicks');
}

describe('the first kudos, as a new user gives it', () => {
  it('one line, two steps: the command, then Send; the value shows in the announcement', async () => {
    const saved = await saveCompanyValue(stack.app.db, { teamId: TEAM_ID }, 'U_ADMIN', undefined, {
      name: 'Teamwork',
      emoji: 'handshake',
      description: 'We win together',
    });
    expect(saved.ok).toBe(true);
    const p = await open('U_MANAGER');

    // Step 1: the command (typed, then Enter).
    await p.locator('#composer-input').fill('/kudos <@U_EMP1|eli> 25 #teamwork Thanks for the launch');
    await p.locator('#composer-input').press('Enter');
    const confirmation = p.locator('#messages .msg.ephemeral', { hasText: 'Send' });
    await confirmation.waitFor({ timeout: 20_000 });
    expect(await confirmation.innerText()).toContain('Teamwork');
    await confirmation.screenshot({ path: 'docs/recognition-one-line.png' });

    // Step 2: Send, the one click.
    const clicks = await countClicks(p);
    await confirmation.locator('button', { hasText: /^Send$/ }).click();
    const announcement = p.locator('#messages .msg', { hasText: 'sent kudos to' });
    await announcement.waitFor({ timeout: 20_000 });
    await expect.poll(() => announcement.innerText(), { timeout: 10_000 }).toContain('Eli Engineer');
    expect(await announcement.innerText()).toContain('Teamwork');
    expect(await clicks()).toBeLessThanOrEqual(1);
    await announcement.screenshot({ path: 'docs/recognition-value.png' });
  });

  it('the recipient is told in a DM, with Say thanks', async () => {
    const p = await open('U_EMP1', 'D_U_EMP1');
    const dm = p.locator('#messages .msg', { hasText: 'sent you' });
    await dm.first().waitFor({ timeout: 20_000 });
    expect(await dm.first().locator('button', { hasText: 'Say thanks' }).count()).toBe(1);
    await dm.first().screenshot({ path: 'docs/recognition-recipient-dm.png' });
  });

  it('the short form: a person, an amount, a message and Send in four clicks or fewer', async () => {
    const p = await open('U_EMP3');
    await p.locator('#composer-input').fill('/kudos');
    await p.locator('#composer-input').press('Enter');
    const modal = p.locator('.modal');
    await modal.waitFor();
    const clicks = await countClicks(p);
    // The design is preselected; campaign, template and refund wait behind More options.
    expect(await modal.locator('[data-action-id="refund"]').count()).toBe(0);
    expect(await modal.locator('[data-action-id="date"]').count()).toBe(0);
    await modal.locator('select[data-action-id="recipients"]').selectOption(['U_EMP4']);
    await modal.locator('[data-action-id="amount"]').fill('20');
    await modal.locator('[data-action-id="message"]').fill('Thanks for the review');
    await modal.screenshot({ path: 'docs/recognition-short-form.png' });
    await modal.locator('.modal-submit').click();
    await modal.waitFor({ state: 'detached', timeout: 20_000 });
    const announcement = p.locator('#messages .msg', { hasText: 'sent kudos to' }).last();
    await expect.poll(() => announcement.innerText(), { timeout: 20_000 }).toContain('Thanks for the review');
    expect(await clicks()).toBeLessThanOrEqual(4);
  });
});
