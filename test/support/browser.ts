// Debian's chromium (never downloaded by a tool), launched headless for the browser tests.
import { existsSync, mkdirSync } from 'node:fs';

import { type Browser, chromium, type Locator, type Page } from 'playwright-core';
import { expect } from 'vitest';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Where the browser tests put screenshots that are not the docs' own. */
export const SHOTS = 'test-results/screenshots';

/** Launches chromium, or says how to install it; makes the screenshot folder. */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} not found: apt-get install -y chromium`);
  mkdirSync(SHOTS, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

/** Types a message (a slash command) into the simulator's composer and sends it. */
export async function runCommand(p: Page, text: string): Promise<void> {
  await p.locator('#composer-input').fill(text);
  await p.locator('#composer-input').press('Enter');
}

/** Types into an external select's search and picks the first option that has `text`. */
export async function pickExternal(scope: Locator, actionId: string, search: string, text: string): Promise<void> {
  const select = scope.locator(`select[data-action-id="${actionId}"]`);
  await scope.locator(`input.ext-search[data-for-action="${actionId}"]`).fill(search);
  await expect.poll(() => select.locator('option', { hasText: text }).count(), { timeout: 10_000 }).toBeGreaterThan(0);
  const value = await select.locator('option', { hasText: text }).first().getAttribute('value');
  await select.selectOption(value);
}
