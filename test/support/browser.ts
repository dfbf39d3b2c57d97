// Debian's chromium (never downloaded by a tool), launched headless for the browser tests.
import { existsSync, mkdirSync } from 'node:fs';

import { type Browser, chromium } from 'playwright-core';

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
