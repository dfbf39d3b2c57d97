// Campaigns for admins in a real browser (Debian's chromium) against the dev stack, as docs/money.md
// shows them: the campaign form filled in by an admin, the send form with that campaign picked (design,
// amount and template filled in), and /kudos campaigns listing it with its spend. The screenshots,
// cropped to the form or the message, go to docs/ (docs/money.md, Campaigns).
import { mkdirSync } from 'node:fs';

import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import { type DevStack, startDevStack } from '../../src/dev/stack.js';
import { launchChromium, pickExternal, runCommand } from '../support/browser.js';

let stack: DevStack;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  mkdirSync('docs', { recursive: true });
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

async function openConversation(as: string, conv: string): Promise<Page> {
  page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
  await page.goto(`${stack.url}/?as=${as}&conv=${conv}&page=messages`);
  await page.locator('#whoami option').first().waitFor({ state: 'attached' });
  return page;
}

describe('campaigns in the simulator', () => {
  it('an admin fills in the campaign form and saves: the campaign exists in Kudos and in the Rewards account', async () => {
    const p = await openConversation('U_ADMIN', 'C_ADMIN');
    await runCommand(p, '/kudos campaigns');
    const list = p.locator('#messages .msg', { hasText: 'New campaign' });
    await list.locator('button', { hasText: 'New campaign' }).click({ timeout: 20_000 });
    const modal = p.locator('.modal');
    await modal.waitFor({ timeout: 10_000 });
    await modal.locator('[data-block-id="campaign_name"][data-action-id="value"]').fill('Q4 spot awards');
    await pickExternal(modal, 'campaign_design_pick', 'Thank', 'Thank You');
    await modal.locator('[data-block-id="campaign_min"][data-action-id="value"]').fill('25');
    await modal.locator('[data-block-id="campaign_max"][data-action-id="value"]').fill('100');
    await modal.locator('[data-block-id="campaign_default"][data-action-id="value"]').fill('50');
    await modal.locator('[data-block-id="campaign_sender"][data-action-id="value"]').fill('The People Team');
    await modal.locator('[data-block-id="campaign_subject"][data-action-id="value"]').fill('A Q4 spot award for you');
    await modal.screenshot({ path: 'docs/money-campaign-form.png' });
    await modal.locator('.modal-submit').click();
    await modal.waitFor({ state: 'detached', timeout: 20_000 });
    const api = await stack.app.rewards.campaigns.list({ pageSize: 100 }).all();
    expect(api.map((c) => c.name)).toEqual([expect.stringMatching(/^Q4 spot awards \(Kudos [0-9a-f]{12}\)$/)]);
  });

  it('a sender picks the campaign in the send form: design and default amount filled in, the people and message typed before kept; the send goes out under it', async () => {
    const p = await openConversation('U_MANAGER', 'C_GENERAL');
    await runCommand(p, '/kudos');
    const modal = p.locator('.modal');
    await modal.waitFor({ timeout: 10_000 });
    // Typed first: picking the campaign updates the view (views.update), which keeps what was entered, as Slack does.
    await modal.locator('select[data-action-id="recipients"]').selectOption(['U_EMP1', 'U_EMP2']);
    await modal.locator('[data-action-id="message"]').fill('Thank you for closing the quarter!');
    // The campaign waits under More options (the view is updated, what was typed kept).
    const short = await modal.getAttribute('data-hash');
    await modal.locator('button', { hasText: 'More options' }).click();
    await expect.poll(() => modal.getAttribute('data-hash'), { timeout: 10_000 }).not.toBe(short);
    await modal.locator('input.ext-search[data-for-action="campaign"]').waitFor({ timeout: 10_000 });
    const hash = await modal.getAttribute('data-hash');
    await pickExternal(modal, 'campaign', 'Q4', 'Q4 spot awards');
    await expect.poll(() => modal.locator('[data-action-id="amount"]').inputValue(), { timeout: 10_000 }).toBe('50');
    await expect.poll(() => modal.innerText()).toContain('Thank You');
    expect(await modal.getAttribute('data-hash')).not.toBe(hash);
    expect(await modal.locator('[data-action-id="message"]').inputValue()).toBe('Thank you for closing the quarter!');
    expect(
      await modal
        .locator('select[data-action-id="recipients"]')
        .evaluate((el) =>
          Array.from(
            (el as unknown as { selectedOptions: ArrayLike<{ value: string }> }).selectedOptions,
            (o) => o.value,
          ),
        ),
    ).toEqual(['U_EMP1', 'U_EMP2']);
    await modal.screenshot({ path: 'docs/money-send-campaign.png' });
    await modal.locator('.modal-submit').click();
    await modal.waitFor({ state: 'detached', timeout: 20_000 });
    await expect
      .poll(async () => (await stack.app.rewards.orders.list({ pageSize: 100 }).all()).length, { timeout: 30_000 })
      .toBe(1);
  });

  it('/kudos campaigns lists the campaign with what it sets and what was spent under it', async () => {
    const p = await openConversation('U_ADMIN', 'C_ADMIN');
    await runCommand(p, '/kudos campaigns');
    const list = p.locator('#messages .msg', { hasText: 'Q4 spot awards' }).last();
    await expect.poll(() => list.innerText(), { timeout: 20_000 }).toMatch(/Spent \$100 this month/);
    expect(await list.innerText()).toContain('$25–$100');
    await list.screenshot({ path: 'docs/money-campaigns.png' });
  });
});
