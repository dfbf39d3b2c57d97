// The product in a real browser: Debian's chromium (never downloaded by a tool) driven by playwright-core
// against the dev stack (emulator + app on an in-memory database + simulator web UI) on free ports.

import { formatInTimeZone } from 'date-fns-tz';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import { type DevStack, startDevStack } from '../../src/dev/stack.js';
import { launchChromium, SHOTS } from '../support/browser.js';

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

async function runCommand(p: Page, text: string): Promise<void> {
  await p.locator('#composer-input').fill(text);
  await p.locator('#composer-input').press('Enter');
}

/** Opens the send modal with /kudos and fills recipients, design, amount and message. */
async function fillSendModal(p: Page, opts: { recipients: string[]; amount: string; message: string }) {
  await runCommand(p, '/kudos');
  const modal = p.locator('.modal');
  await modal.waitFor();
  await modal.locator('select[data-action-id="recipients"]').selectOption(opts.recipients);
  const design = modal.locator('select[data-action-id="design"]');
  // The designs come from the app's options route (min_query_length 0: loaded when the modal opens).
  await expect.poll(() => design.locator('option').count(), { timeout: 10_000 }).toBeGreaterThan(1);
  await modal.locator('input.ext-search[data-for-action="design"]').fill('Thank');
  await expect.poll(() => design.locator('option', { hasText: 'Thank You' }).count(), { timeout: 10_000 }).toBe(1);
  await design.selectOption({ index: 1 });
  await modal.locator('[data-action-id="amount"]').fill(opts.amount);
  await modal.locator('[data-action-id="message"]').fill(opts.message);
  return modal;
}

describe('Kudos in the Slack simulator', () => {
  it('sends kudos to two people through the modal: announcement in #kudos, cards in the inbox', async () => {
    const p = await open('U_MANAGER');
    const modal = await fillSendModal(p, {
      recipients: ['U_EMP1', 'U_EMP2'],
      amount: '25',
      message: 'Thank you for a flawless launch!',
    });
    await modal.locator('.modal-submit').click();
    await modal.waitFor({ state: 'detached' });

    const announcement = p.locator('#messages .msg', { hasText: 'sent kudos to' });
    await announcement.waitFor();
    await expect.poll(() => announcement.innerText(), { timeout: 10_000 }).toContain('Eli Engineer');
    expect(await announcement.innerText()).toContain('Erin Designer');
    await p.screenshot({ path: `${SHOTS}/send-kudos-announcement.png` });
    await p.screenshot({ path: 'docs/screenshot.png' });

    await p.locator('#open-inbox').click();
    const rows = p.locator('#inbox tr.email');
    await expect.poll(() => rows.count(), { timeout: 20_000 }).toBe(2);
    const inbox = await p.locator('#inbox').innerText();
    expect(inbox).toContain('eli@example.com');
    expect(inbox).toContain('erin@example.com');
    expect(inbox).toContain('25.00 USD');
    expect(await p.locator('#inbox a', { hasText: 'Open reward' }).count()).toBe(2);
    await p.screenshot({ path: `${SHOTS}/send-kudos-inbox.png` });
  });

  it('shows an inline error in the modal when the amount is out of range', async () => {
    const p = await open('U_EMP3');
    const modal = await fillSendModal(p, { recipients: ['U_EMP4'], amount: '3', message: 'Small thanks' });
    await modal.locator('.modal-submit').click();
    const error = modal.locator('[data-block-id="send_amount"] .bk-error');
    await error.waitFor({ state: 'visible' });
    expect(await error.innerText()).toMatch(/\$5|5/);
    await p.screenshot({ path: `${SHOTS}/inline-modal-error.png` });
    // The modal stays open with what the user typed.
    expect(await modal.locator('[data-action-id="message"]').inputValue()).toBe('Small thanks');
  });

  it('schedules a send and cancels it from /kudos scheduled', async () => {
    const p = await open('U_MANAGER', 'D_U_MANAGER');
    const modal = await fillSendModal(p, { recipients: ['U_TOKYO'], amount: '20', message: 'For next week' });
    await modal.locator('input[type=radio][value="schedule"]').check();
    const tomorrow = formatInTimeZone(new Date(Date.now() + 2 * 86_400_000), 'America/New_York', 'yyyy-MM-dd');
    await modal.locator('[data-action-id="date"]').fill(tomorrow);
    await modal.locator('[data-action-id="time"]').fill('12:00');
    await modal.locator('.modal-submit').click();
    await modal.waitFor({ state: 'detached' });

    await runCommand(p, '/kudos scheduled');
    const list = p.locator('#messages .msg', { has: p.locator('button', { hasText: 'Cancel' }) });
    await list.waitFor();
    expect(await list.innerText()).toContain('Taro Tokyo');
    expect(await list.innerText()).not.toContain('Eli Engineer');
    await p.screenshot({ path: `${SHOTS}/scheduled-list.png` });
    await list.locator('button', { hasText: 'Cancel' }).first().click();
    await p.locator('.confirm-ok').click();
    await p.locator('#messages .msg.ephemeral', { hasText: 'Cancelled' }).waitFor();
    await p.screenshot({ path: `${SHOTS}/scheduled-cancelled.png` });
  });

  it("sends a scheduled kudos when the emulator's clock passes its time", async () => {
    const p = await open('U_TOKYO', 'D_U_TOKYO');
    const modal = await fillSendModal(p, { recipients: ['U_EMP3'], amount: '15', message: 'See you next week' });
    await modal.locator('input[type=radio][value="schedule"]').check();
    // Two days ahead in the sender's own zone (Asia/Tokyo).
    const day = formatInTimeZone(new Date(Date.now() + 2 * 86_400_000), 'Asia/Tokyo', 'yyyy-MM-dd');
    await modal.locator('[data-action-id="date"]').fill(day);
    await modal.locator('[data-action-id="time"]').fill('10:00');
    await modal.locator('.modal-submit').click();
    await modal.waitFor({ state: 'detached' });
    await p.locator('#messages .msg', { hasText: 'scheduled' }).waitFor();

    await p.locator('#open-inbox').click();
    const omar = p.locator('#inbox tr.email', { hasText: 'omar@example.com' });
    expect(await omar.count()).toBe(0);
    for (let i = 0; i < 3; i++) {
      await p.locator('[data-advance="86400"]').click();
      await expect.poll(() => p.locator('[data-advance="86400"]').isEnabled(), { timeout: 10_000 }).toBe(true);
    }
    await expect.poll(() => omar.count(), { timeout: 20_000 }).toBe(1);
    expect(await omar.innerText()).toContain('15.00 USD');
    await p.screenshot({ path: `${SHOTS}/scheduled-delivered-inbox.png` });
  });

  it('shows the App Home tab the app publishes, and opens the send modal from it', async () => {
    const p = await open('U_EMP4', 'D_U_EMP4');
    await p.locator('#tab-home').click();
    const home = p.locator('#home');
    await home.locator('button', { hasText: 'Give kudos' }).waitFor();
    await p.screenshot({ path: `${SHOTS}/app-home.png` });
    await home.locator('button', { hasText: 'Give kudos' }).click();
    const modal = p.locator('.modal');
    await modal.waitFor();
    await modal.locator('.modal-close').click();
    await modal.waitFor({ state: 'detached' });
  });

  it('requests above the threshold; the approver approves; the order is placed', async () => {
    const p = await open('U_MANAGER');
    const modal = await fillSendModal(p, { recipients: ['U_EMP1', 'U_EMP2'], amount: '80', message: 'Quarter hero' });
    await modal.locator('.modal-submit').click();
    await modal.waitFor({ state: 'detached' });
    await p.locator('#whoami').selectOption('U_APPROVER');
    await p.locator('[data-conv="C_APPROVALS"]').click();
    const request = p.locator('#messages .msg', { has: p.locator('button', { hasText: 'Approve' }) });
    await request.waitFor();
    await request.locator('button', { hasText: 'Approve' }).click();
    if (await p.locator('.confirm-ok').count()) await p.locator('.confirm-ok').click();
    const decided = p.locator('#messages .msg', { hasText: /approved by/i });
    await decided.waitFor();
    // The decision is taken once: the request loses its buttons for everyone.
    expect(await decided.locator('button', { hasText: 'Approve' }).count()).toBe(0);
    await p.screenshot({ path: `${SHOTS}/approval-approved.png` });
    await p.locator('#open-inbox').click();
    await expect
      .poll(() => p.locator('#inbox tr.email', { hasText: '80.00 USD' }).count(), { timeout: 20_000 })
      .toBe(2);
  });
});
