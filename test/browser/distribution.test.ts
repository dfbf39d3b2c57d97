// `npm run dev -- --distribution` in a real browser (Debian's chromium): each workspace shows its own
// #kudos, "Add to Slack" from a workspace's page preselects that workspace on the authorize page, and
// once installed the page follows the install to it.
import { existsSync, mkdirSync } from 'node:fs';

import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { type DevStack, startDevStack } from '../../src/dev/stack.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SHOTS = 'test-results/screenshots';

let stack: DevStack;
let browser: Browser;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} not found: apt-get install -y chromium`);
  mkdirSync(SHOTS, { recursive: true });
  stack = await startDevStack({ port: 0, pgliteDir: 'memory://', logLevel: 'error', distribution: true });
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-sync', '--no-first-run'],
  });
});

afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

describe('npm run dev -- --distribution in the browser', () => {
  it('keeps #kudos per workspace; Add to Slack from Second Co preselects it, and the page follows the install', async () => {
    const page: Page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${stack.url}/?as=U_EMP2&conv=C_KUDOS&page=messages`);
    await page.locator('#workspace option').first().waitFor({ state: 'attached' });
    expect(await page.locator('#team-name').innerText()).toBe('Kudos Demo');
    await page.locator('#composer-input').fill('Hello from Kudos Demo');
    await page.locator('#composer-input').press('Enter');
    await page.locator('#messages .msg', { hasText: 'Hello from Kudos Demo' }).waitFor();

    // Grid Sales has a #kudos of its own.
    await page.locator('#workspace').selectOption('T_GRID_A');
    await expect.poll(() => page.locator('#team-name').innerText()).toBe('Grid Sales');
    await expect.poll(() => page.locator('#messages').innerText()).not.toContain('Hello from Kudos Demo');

    // Second Co, not installed: "Add to Slack" opens the app's install page, then Slack's authorize page.
    await page.locator('#workspace').selectOption('T_SECOND');
    await expect.poll(() => page.locator('#workspace-install').innerText()).toContain('not installed');
    const [install] = await Promise.all([
      page.context().waitForEvent('page'),
      page.locator('#workspace-install a', { hasText: 'Add to Slack' }).click(),
    ]);
    await install.locator('#add-to-slack').click();
    await install.locator('#allow').waitFor();
    expect(await install.locator('input[name=team]:checked').getAttribute('value')).toBe('T_SECOND');
    await install.screenshot({ path: `${SHOTS}/simulator-authorize.png` });
    // Meanwhile the simulator's page is back in Kudos Demo; then Allow.
    await page.locator('#workspace').selectOption('T0KUDOS');
    await expect.poll(() => page.locator('#team-name').innerText()).toBe('Kudos Demo');
    expect(await page.locator('#messages').innerText()).toContain('Hello from Kudos Demo');
    await install.locator('#allow').click();
    await install.waitForURL(/\/slack\/oauth_redirect/);

    // The simulator's page follows the install: Second Co, installed.
    await expect
      .poll(() => page.locator('#workspace-install').innerText(), { timeout: 20_000 })
      .toContain('workspace install');
    expect(await page.locator('#team-name').innerText()).toBe('Second Co');
    expect(await page.locator('#workspace').inputValue()).toBe('T_SECOND');
    await page.screenshot({ path: `${SHOTS}/simulator-distribution.png` });
  });
});
