// Branded cards in a real browser (Debian's chromium) against the dev stack, as docs/money.md shows
// them: the send form with "A brand" picked, Tesco searched and its pound amounts offered with the USD
// estimate; a pound send whose judged USD is over the threshold waiting for an approver, who reads the
// face value and the USD; and /kudos ledger naming the card beside its cost. The screenshots go to
// docs/ (docs/money.md, "Branded cards and their USD cost").
import { mkdirSync } from 'node:fs';

import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import { kudos } from '../../src/db/schema/index.js';
import { type DevStack, startDevStack } from '../../src/dev/stack.js';
import { learnRate } from '../../src/domain/branded/exchange-rates.js';
import { launchChromium, pickExternal, runCommand } from '../support/browser.js';

let stack: DevStack;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  mkdirSync('docs', { recursive: true });
  stack = await startDevStack({
    port: 0,
    pgliteDir: 'memory://',
    logLevel: 'error',
    env: { KUDOS_APPROVAL_THRESHOLD: '100' },
  });
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

describe('branded cards in the simulator', () => {
  it('the send form with a brand: Tesco found by name, its pound amounts offered, the USD estimate shown; sent, it waits for approval', async () => {
    // One earlier pound order taught the rate (1.27): the form can estimate the USD cost.
    const ws = { teamId: stack.simulator.workspace.team.id, enterpriseId: null };
    await learnRate(stack.app.db, ws, { currency: 'GBP', faceCents: 10_000, costCents: 12_700, learnedAt: new Date() });
    const p = await openConversation('U_MANAGER', 'C_GENERAL');
    await runCommand(p, '/kudos');
    const modal = p.locator('.modal');
    await modal.waitFor({ timeout: 10_000 });
    await modal.locator('select[data-action-id="recipients"]').selectOption(['U_EMP1', 'U_EMP2']);
    await modal.locator('[data-action-id="message"]').fill('Thank you for running the London offsite!');

    const choice = await modal.getAttribute('data-hash');
    await modal.locator('input[type="radio"][value="brand"]').check();
    await expect.poll(() => modal.getAttribute('data-hash'), { timeout: 10_000 }).not.toBe(choice);
    await modal.locator('input.ext-search[data-for-action="brand"]').waitFor({ timeout: 10_000 });

    const noBrand = await modal.getAttribute('data-hash');
    await pickExternal(modal, 'brand', 'tesco', 'Tesco');
    await expect.poll(() => modal.getAttribute('data-hash'), { timeout: 10_000 }).not.toBe(noBrand);
    const amounts = modal.locator('select[data-action-id="face_amount"]');
    await amounts.waitFor({ timeout: 10_000 });
    expect(await amounts.locator('option').allInnerTexts()).toEqual(expect.arrayContaining(['£10', '£20', '£50']));
    const noAmount = await modal.getAttribute('data-hash');
    await amounts.selectOption({ label: '£50' });
    await expect.poll(() => modal.getAttribute('data-hash'), { timeout: 10_000 }).not.toBe(noAmount);
    await expect.poll(() => modal.innerText(), { timeout: 10_000 }).toContain('£50 at Tesco');
    expect(await modal.innerText()).toContain('about $');
    await modal.screenshot({ path: 'docs/money-branded-form.png' });

    await modal.locator('.modal-submit').click();
    await modal.waitFor({ state: 'detached', timeout: 20_000 });
    // £100 in all: judged at $133.35 in USD, over the dev stack's $100 approval threshold.
    const [row] = await stack.app.db.select().from(kudos);
    expect(row).toMatchObject({
      cardType: 'BRANDED_CARD',
      faceCurrency: 'GBP',
      faceCents: 5000,
      status: 'awaiting_approval',
    });
  });

  it('the approver reads the face value in pounds, the USD estimate and why it waits', async () => {
    const approvals = stack.simulator.messages('C_APPROVALS');
    const request = approvals.find((m) => JSON.stringify(m.blocks ?? []).includes('Tesco'));
    expect(request).toBeDefined();
    const p = await openConversation('U_APPROVER', 'C_APPROVALS');
    const message = p.locator('#messages .msg', { hasText: 'Tesco' }).first();
    await message.waitFor({ timeout: 10_000 });
    expect(await message.innerText()).toContain('£50');
    expect(await message.innerText()).toMatch(/about \$1\d\d/);
    await message.screenshot({ path: 'docs/money-branded-approval.png' });
  });
});
