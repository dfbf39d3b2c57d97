// The install pages over real HTTP: a Content-Security-Policy that allows the page's own style block and
// nothing else, never framed, and the OAuth state cookie SameSite=Lax (set on the install page, deleted
// on the redirect), through a whole install and a failed one.
import { createHash } from 'node:crypto';

import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import { type RunningApp, startApp } from '../../src/app.js';
import { loadConfig } from '../../src/config/index.js';
import { generateKey } from '../../src/secrets/key-ring.js';
import { type SlackSimulator, startSlackSimulator } from '../../src/simulator/slack.js';
import { testLogger } from '../support/app.js';
import { useTestDatabase } from '../support/db.js';
import { startTestEmulator, type TestEmulator } from '../support/emulator.js';

const CLIENT_ID = '1111.2222';
const CLIENT_SECRET = 'pages-client-secret-abcdef0123';

const testDb = useTestDatabase();
let emulator: TestEmulator;
let sim: SlackSimulator;
let app: RunningApp;

beforeAll(async () => {
  emulator = await startTestEmulator();
});
afterAll(async () => {
  await emulator?.close();
});
beforeEach(async () => {
  sim = await startSlackSimulator({
    signingSecret: 'pages-signing-secret-0123456789',
    emulatorUrl: emulator.url,
    oauth: { clientId: CLIENT_ID, clientSecret: CLIENT_SECRET },
  });
  const config = loadConfig({
    SLACK_CLIENT_ID: CLIENT_ID,
    SLACK_CLIENT_SECRET: CLIENT_SECRET,
    SLACK_STATE_SECRET: 'pages-state-secret-fedcba9876',
    SLACK_SIGNING_SECRET: 'pages-signing-secret-0123456789',
    KUDOS_ENCRYPTION_KEY: generateKey('k1'),
    SLACK_API_URL: sim.apiUrl,
    REWARDS_API_URL: emulator.url,
  });
  app = await startApp({
    config,
    port: 0,
    metricsPort: 0,
    host: '127.0.0.1',
    db: testDb.db,
    logger: testLogger(),
    tuning: { worker: { enabled: false }, purgeMs: 0 },
  });
  sim.setAppUrl(app.url);
});
afterEach(async () => {
  await app?.close();
  await sim?.close();
});

/** The CSP's directives by name. */
function directives(csp: string | null): Map<string, string> {
  return new Map((csp ?? '').split(';').map((d) => d.trim().split(/\s+(.*)/s, 2) as [string, string]));
}

/** A page answered with the install pages' headers: its CSP allows exactly its own <style> block, by hash. */
async function expectProtected(res: Response): Promise<string> {
  const html = await res.text();
  expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
  const csp = directives(res.headers.get('content-security-policy'));
  expect(csp.get('default-src')).toBe("'none'");
  expect(csp.get('frame-ancestors')).toBe("'none'");
  expect(csp.get('base-uri')).toBe("'none'");
  expect(csp.get('form-action')).toBe("'none'");
  const styles = [...html.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((m) => m[1]!);
  expect(styles).toHaveLength(1);
  expect(csp.get('style-src')).toBe(`'sha256-${createHash('sha256').update(styles[0]!).digest('base64')}'`);
  // Nothing else is allowed: no script, image, font or connection source.
  expect([...csp.keys()].sort()).toEqual(['base-uri', 'default-src', 'form-action', 'frame-ancestors', 'style-src']);
  expect(html).not.toMatch(/<script|<img|<iframe|<form|style="/i);
  expect(res.headers.get('x-frame-options')).toBe('DENY');
  expect(res.headers.get('referrer-policy')).toBe('no-referrer');
  expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  expect(res.headers.get('cache-control')).toBe('no-store');
  return html;
}

const attributes = (cookie: string) => cookie.split(';').map((a) => a.trim().toLowerCase());

describe('install pages', () => {
  it('the install page: CSP, never framed, and a state cookie that is SameSite=Lax, HttpOnly and Secure', async () => {
    const res = await fetch(`${app.url}/slack/install`);
    expect(res.status).toBe(200);
    const html = await expectProtected(res);
    expect(html).toContain('id="add-to-slack"');
    const cookies = res.headers.getSetCookie();
    expect(cookies).toHaveLength(1);
    expect(cookies[0]).toMatch(/^slack-app-oauth-state=/);
    expect(attributes(cookies[0]!)).toEqual(expect.arrayContaining(['samesite=lax', 'httponly', 'secure', 'path=/']));
  });

  it('the redirect: the success page and a failure page are protected the same, and the cookie is deleted SameSite=Lax', async () => {
    const done = await sim.distribution!.install({ teamId: 'T0KUDOS' });
    expect(done.status).toBe(200);
    // The install again through its redirect, to read the answer's headers (the simulator's helper reads the body only).
    const page = await fetch(`${app.url}/slack/install`);
    const cookie = page.headers.getSetCookie()[0]!.split(';')[0]!;
    const state = /state=([^&"]+)/.exec((await page.text()).replace(/&amp;/g, '&'))![1]!;
    const refused = await fetch(`${app.url}/slack/oauth_redirect?error=access_denied&state=${state}`, {
      headers: { cookie },
    });
    expect(refused.status).toBe(403);
    await expectProtected(refused);
    // A state that does not match the cookie: the failure page, and the cookie deleted, SameSite=Lax too.
    const forged = await fetch(`${app.url}/slack/oauth_redirect?code=abc&state=${state}x`, { headers: { cookie } });
    expect(forged.status).toBe(400);
    await expectProtected(forged);
    const deletion = forged.headers.getSetCookie();
    expect(deletion).toHaveLength(1);
    expect(deletion[0]).toMatch(/^slack-app-oauth-state=deleted/);
    expect(attributes(deletion[0]!)).toContain('samesite=lax');

    // A whole install, its redirect fetched here: the success page carries the same headers.
    const success = await installThroughRedirect('T_SECOND');
    expect(success.status).toBe(200);
    expect(await expectProtected(success)).toContain('Kudos is installed');
    expect(attributes(success.headers.getSetCookie()[0]!)).toContain('samesite=lax');
  });
});

/** "Add to Slack" → the simulator's authorize page (allow) → our redirect, whose Response is returned. */
async function installThroughRedirect(teamId: string): Promise<Response> {
  const page = await fetch(`${app.url}/slack/install`);
  const cookie = page.headers.getSetCookie()[0]!.split(';')[0]!;
  const authorize = new URL(/id="add-to-slack" href="([^"]+)"/.exec(await page.text())![1]!.replace(/&amp;/g, '&'));
  const decision = new URLSearchParams({
    client_id: authorize.searchParams.get('client_id')!,
    scope: authorize.searchParams.get('scope')!,
    state: authorize.searchParams.get('state')!,
    team: teamId,
    user: 'U_ADMIN',
    decision: 'allow',
  });
  const approved = await fetch(`${new URL(sim.url).origin}/oauth/v2/authorize`, {
    method: 'POST',
    body: decision,
    redirect: 'manual',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
  });
  const location = approved.headers.get('location')!;
  await approved.body?.cancel();
  return fetch(location, { headers: { cookie }, redirect: 'manual' });
}
