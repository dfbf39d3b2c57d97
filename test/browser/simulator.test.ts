// The whole product in the simulator's page (Debian's chromium against the dev stack), as a newcomer
// tries it: a card to the seeded person whose address bounces and its repair, the recipient's rendered
// e-mail, the message shortcut on a plain message, a +1 reaction on an announcement, the Workflow
// Builder step, and a pending top-up finished from the emulator panel. Screenshots go to
// test-results/screenshots/.

import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import { type DevStack, startDevStack } from '../../src/dev/stack.js';
import { sendModalValues } from '../support/app.js';
import { launchChromium, SHOTS } from '../support/browser.js';
import { topUpValues } from '../support/top-up-form.js';

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

async function open(as: string, conv: string): Promise<Page> {
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(`${stack.url}/?as=${as}&conv=${conv}&page=messages`);
  await page.locator('#whoami option').first().waitFor({ state: 'attached' });
  return page;
}

async function composer(p: Page, text: string): Promise<void> {
  await p.locator('#composer-input').fill(text);
  await p.locator('#composer-input').press('Enter');
}

describe('the simulator shows the whole product', () => {
  it('a card to Bruno (his address bounces): the sender repairs it from the DM, and the inbox shows both e-mails as rendered', async () => {
    const sim = stack.simulator;
    expect(sim.workspace.users.find((u) => u.id === 'U_BOUNCE')?.email).toBe('bruno@bounce.test');
    await sim.slashCommand('U_MANAGER', '', 'C_KUDOS');
    const view = await sim.waitFor(() => sim.openViews('U_MANAGER').find((v) => v.callback_id === 'kudos_send'));
    await sim.submitView(
      view.id,
      sendModalValues({ users: ['U_BOUNCE'], design: 'CC-THANK-YOU', amount: '20', message: 'Thanks, Bruno!' }),
      'U_MANAGER',
    );

    const p = await open('U_MANAGER', 'D_U_MANAGER');
    const fix = p.locator('#messages button', { hasText: 'Fix address and resend' });
    await fix.waitFor({ timeout: 60_000 });
    await p.screenshot({ path: `${SHOTS}/simulator-bounce-dm.png` });
    await fix.click();
    const modal = p.locator('#modal-overlay .modal');
    await modal.waitFor();
    await modal.locator('input[type=email]').fill('bruno@example.com');
    await modal.locator('.modal-submit').click();
    await expect.poll(() => p.locator('#modal-overlay').isHidden(), { timeout: 20_000 }).toBe(true);
    await expect.poll(() => p.locator('#messages').innerText(), { timeout: 20_000 }).toContain('bruno@example.com');

    await p.locator('#open-inbox').click();
    const bounced = p.locator('#inbox tr.email', { hasText: 'bruno@bounce.test' });
    await bounced.waitFor({ timeout: 20_000 });
    expect(await bounced.innerText()).toContain('(bounced)');
    await bounced.locator('.view-email').click();
    await expect.poll(() => p.locator('#email-view').innerText()).toContain('Undeliverable');
    const resent = p.locator('#inbox tr.email', { hasText: 'bruno@example.com' });
    await resent.waitFor({ timeout: 20_000 });
    await resent.locator('.view-email').click();
    const email = p.locator('#email-view');
    await expect.poll(() => email.innerText()).toContain('bruno@example.com');
    const shown = await email.innerText();
    expect(shown).toContain('$20.00');
    expect(shown).toContain('Thanks, Bruno!');
    expect(shown).not.toContain('Undeliverable');
    expect(await email.locator('a.email-redeem').getAttribute('href')).toMatch(/^https:\/\/rewards\.emulator\.test\//);
    await p.screenshot({ path: `${SHOTS}/simulator-email.png`, fullPage: true });
  });

  it('"Give kudos for this" under a plain message opens the send form for its author', async () => {
    let p = await open('U_EMP2', 'C_GENERAL');
    await composer(p, 'I fixed the flaky build');
    await p.locator('#messages .msg', { hasText: 'I fixed the flaky build' }).waitFor();
    await p.close();

    p = await open('U_MANAGER', 'C_GENERAL');
    const message = p.locator('#messages .msg', { hasText: 'I fixed the flaky build' });
    await message.locator('.msg-more').click();
    await p.locator('#message-menu button', { hasText: 'Give kudos for this' }).click();
    const modal = p.locator('#modal-overlay .modal');
    await modal.waitFor({ timeout: 20_000 });
    // The author is the recipient already.
    await expect
      .poll(() => modal.locator('select[data-action-id="recipients"] option:checked').allInnerTexts())
      .toContain('Erin Designer');
    await p.screenshot({ path: `${SHOTS}/simulator-message-shortcut.png` });
    await modal.locator('.modal-x').click();
    await expect.poll(() => p.locator('#modal-overlay').isHidden()).toBe(true);
  });

  it('a :gift: reaction on an announcement counts as a +1 in /kudos stats; clicking it again takes it back', async () => {
    const p = await open('U_EMP3', 'C_KUDOS');
    const announcement = p.locator('#messages .msg', { hasText: 'Thanks, Bruno!' }).first();
    await announcement.waitFor({ timeout: 20_000 });
    // The announcement's own actions and reactions, not those of the notice in its thread.
    await announcement.locator(':scope > .msg-main > .msg-head .msg-react').click();
    await p.locator('#message-menu button[data-reaction="gift"]').click();
    const pill = announcement.locator(':scope > .msg-main > .reactions .reaction[data-reaction="gift"]');
    await expect.poll(() => pill.innerText(), { timeout: 10_000 }).toContain('1');
    expect(await pill.getAttribute('aria-pressed')).toBe('true');
    await composer(p, '/kudos stats');
    const stats = p.locator('#messages .msg', { hasText: '+1s' }).last();
    await expect.poll(() => stats.innerText(), { timeout: 20_000 }).toMatch(/\b1 \+1s/);
    await p.screenshot({ path: `${SHOTS}/simulator-reaction.png` });

    // Taken back: the pill goes, and the app hears reaction_removed.
    await pill.click();
    await expect
      .poll(() => announcement.locator(':scope > .msg-main > .reactions .reaction').count(), { timeout: 10_000 })
      .toBe(0);
    await expect.poll(() => stack.simulator.messages('C_KUDOS').some((m) => m.reactions?.length)).toBe(false);
  });

  it('"Run a workflow step" sends kudos through the send_kudos step, which the app completes', async () => {
    const p = await open('U_MANAGER', 'C_KUDOS');
    await p.locator('#open-workflow').click();
    const form = p.locator('#workflow-form');
    await form.waitFor();
    // The sender is who you are, as {{workflow.user_id}}.
    expect(await form.locator('select[name=sender]').inputValue()).toBe('U_MANAGER');
    // Without recipients: one clear line, nothing run.
    await form.locator('input[name=amount]').fill('15');
    await form.locator('button[type=submit]').click();
    await expect.poll(() => p.locator('#toast').innerText()).toContain('Fill in To');
    await form.locator('select[name=recipients]').selectOption(['U_EMP1']);
    await form.locator('input[name=message]').fill('Sent by a workflow');
    await form.locator('button[type=submit]').click();
    const run = p.locator('#workflow-runs .workflow-run').first();
    await expect.poll(() => run.innerText(), { timeout: 20_000 }).toMatch(/completed.*status: (placed|scheduled)/);
    await p.screenshot({ path: `${SHOTS}/simulator-workflow-step.png` });
    await p.locator('#channels [data-conv="C_KUDOS"]').click();
    await expect.poll(() => p.locator('#messages').innerText(), { timeout: 20_000 }).toContain('Sent by a workflow');
  });

  it('a top-up requested and approved in Slack is finished from the emulator panel: "Transfer arrived"', async () => {
    const sim = stack.simulator;
    await sim.slashCommand('U_ADMIN', 'topup', 'C_ADMIN');
    const view = await sim.waitFor(
      () => sim.openViews('U_ADMIN').find((v) => v.callback_id === 'finance_topup'),
      10_000,
    );
    await sim.submitView(view.id, topUpValues('2,500'), 'U_ADMIN');
    const p = await open('U_APPROVER', 'C_ADMIN');
    const request = p.locator('#messages .msg', { hasText: 'Top-up request' });
    await request.locator('button', { hasText: 'Approve' }).waitFor({ timeout: 20_000 });
    await request.locator('button', { hasText: 'Approve' }).click();
    if (await p.locator('.confirm-ok').count()) await p.locator('.confirm-ok').click();
    await expect.poll(() => request.innerText(), { timeout: 20_000 }).toMatch(/[Pp]ending/);

    const arrived = p.locator('#fundings button', { hasText: 'Transfer arrived' });
    await arrived.waitFor({ timeout: 20_000 });
    expect(await p.locator('#fundings').innerText()).toContain('$2500.00');
    await p.screenshot({ path: `${SHOTS}/simulator-pending-top-up.png` });
    await arrived.click();
    await expect.poll(() => p.locator('#toast').innerText()).toContain('approved by the provider');
    // Kudos reads the ledger at its periodic balance check (every 5 minutes in npm run dev): run it now.
    await stack.app.finance.sweep();
    await expect.poll(() => request.innerText(), { timeout: 30_000 }).toContain('Completed');
    await expect.poll(() => p.locator('#fundings button').count(), { timeout: 10_000 }).toBe(0);
  });
});
