// The money side for admins in a real browser (Debian's chromium) against the dev stack, as docs/money.md
// shows it: the simulator's "Make balance low" control, the low-balance alert in #kudos-admins, a top-up
// requested by one admin and approved by the other with the buttons, the Money section of App Home and
// /kudos ledger. The screenshots go to docs/ (docs/money.md).
import { mkdirSync } from 'node:fs';

import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import { type DevStack, startDevStack } from '../../src/dev/stack.js';
import { sendModalValues } from '../support/app.js';
import { launchChromium } from '../support/browser.js';
import { noticesSettled } from '../support/notices-settled.js';

let stack: DevStack;
let browser: Browser;
let page: Page;

async function send(userId: string, users: string[], amount: string, message: string) {
  const sim = stack.simulator;
  await sim.slashCommand(userId, '', 'C_GENERAL');
  const view = await sim.waitFor(() => sim.openViews(userId).find((v) => v.callback_id === 'kudos_send'), 10_000);
  await sim.submitView(view.id, sendModalValues({ users, design: 'CC-THANK-YOU', amount, message }), userId);
}

const text = (value: string) => ({ value: { type: 'plain_text_input', value } });

beforeAll(async () => {
  mkdirSync('docs', { recursive: true });
  stack = await startDevStack({ port: 0, pgliteDir: 'memory://', logLevel: 'error' });
  browser = await launchChromium();
  await send('U_MANAGER', ['U_EMP1', 'U_EMP2'], '25', 'Thank you for a flawless launch!');
});

afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

afterEach(async () => {
  await page?.close();
});

async function openConversation(as: string, conv: string): Promise<Page> {
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(`${stack.url}/?as=${as}&conv=${conv}&page=messages`);
  await page.locator('#whoami option').first().waitFor({ state: 'attached' });
  return page;
}

describe('money for admins in the simulator', () => {
  it('"Make balance low" in the simulator, then one low-balance alert in #kudos-admins with a top-up button', async () => {
    const p = await openConversation('U_ADMIN', 'C_ADMIN');
    await p.locator('#balance-amount').fill('420');
    await p.locator('#balance-low').click();
    await expect.poll(() => p.locator('#toast').innerText(), { timeout: 10_000 }).toContain('$420');
    expect((await stack.app.rewards.balance.get()).availableBalance.amount).toBe('420.00');
    // The periodic check (every 5 minutes in npm run dev) run now; a second one alerts no more.
    await stack.app.finance.sweep();
    await stack.app.finance.sweep();
    const alert = p.locator('#messages .msg', { hasText: 'Low Rewards balance' });
    await expect.poll(() => alert.count(), { timeout: 20_000 }).toBe(1);
    // Every notice recorded by then is posted: a second alert would be in the channel now.
    await noticesSettled(stack.app.db);
    expect(
      stack.simulator.messages('C_ADMIN').filter((m) => JSON.stringify(m).includes('Low Rewards balance')),
    ).toHaveLength(1);
    expect(await alert.innerText()).toContain('$420');
    expect(await alert.locator('button', { hasText: 'Request a top-up' }).count()).toBe(1);
    await p.screenshot({ path: 'docs/money-low-balance.png' });
  });

  it('a top-up asked by one admin is approved by the other with the button and then shows as pending', async () => {
    const sim = stack.simulator;
    await sim.slashCommand('U_ADMIN', 'topup', 'C_ADMIN');
    const view = await sim.waitFor(
      () => sim.openViews('U_ADMIN').find((v) => v.callback_id === 'finance_topup'),
      10_000,
    );
    await sim.submitView(
      view.id,
      {
        topup_amount: text('5,000'),
        topup_note: text('Q4 spot awards'),
        topup_company: text('Kudos Demo Inc.'),
        topup_phone: text('+1 555 0100'),
        topup_address: text('1 Main St'),
        topup_city: text('Springfield'),
        topup_state: text('IL'),
        topup_country: text('US'),
        topup_zip: text('62701'),
        topup_ein: text('12-3456789'),
        topup_website: text(''),
      },
      'U_ADMIN',
    );
    const p = await openConversation('U_APPROVER', 'C_ADMIN');
    const request = p.locator('#messages .msg', { hasText: 'Top-up request' });
    await request.locator('button', { hasText: 'Approve' }).waitFor({ timeout: 20_000 });
    await p.screenshot({ path: 'docs/money-top-up-request.png' });
    await request.locator('button', { hasText: 'Approve' }).click();
    if (await p.locator('.confirm-ok').count()) await p.locator('.confirm-ok').click();
    await expect.poll(() => request.innerText(), { timeout: 20_000 }).toMatch(/[Pp]ending/);
    expect(await request.locator('button', { hasText: 'Approve' }).count()).toBe(0);
    await p.screenshot({ path: 'docs/money-top-up-pending.png' });
  });

  it('App Home shows admins the Money section: balance, the pending top-up, limits and their use', async () => {
    page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
    await page.goto(`${stack.url}/?as=U_ADMIN&conv=D_U_ADMIN&page=messages`);
    await page.locator('#whoami option').first().waitFor({ state: 'attached' });
    await page.locator('#tab-home').click();
    const home = page.locator('#home');
    await expect.poll(() => home.innerText(), { timeout: 20_000 }).toMatch(/Money[\s\S]*Rewards balance/);
    const shown = await home.innerText();
    expect(shown).toContain('$5,000');
    expect(shown).toMatch(/pending/i);
    expect(await home.locator('button', { hasText: 'Request higher limits' }).count()).toBe(1);
    // The whole page, no scrolling first: Home is republished live, and an element scrolled to could be
    // replaced meanwhile (seen in CI: "Element is not attached to the DOM").
    await page.screenshot({ path: 'docs/money-app-home.png', fullPage: true });
  });

  it('/kudos ledger lists the month with its types and reconciles with the orders Kudos placed', async () => {
    const p = await openConversation('U_ADMIN', 'C_ADMIN');
    await p.locator('#composer-input').fill('/kudos ledger');
    await p.locator('#composer-input').press('Enter');
    const ledger = p.locator('#messages .msg', { hasText: 'Net order spend' });
    await expect.poll(() => ledger.count(), { timeout: 20_000 }).toBe(1);
    const shown = await ledger.innerText();
    expect(shown).toMatch(/Top-up/);
    expect(shown).toMatch(/Reconciled/);
    // The page re-renders its messages as it polls: a scroll that caught the old element is tried again.
    for (let attempt = 1; ; attempt++) {
      try {
        await ledger.scrollIntoViewIfNeeded({ timeout: 5000 });
        break;
      } catch (error) {
        if (attempt >= 3) throw error;
      }
    }
    await p.screenshot({ path: 'docs/money-ledger.png' });
  });
});
