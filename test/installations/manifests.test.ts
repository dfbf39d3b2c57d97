// The two manifests (the README's commands and installation modes): manifest.yml stays the single-workspace one;
// manifest.distribution.yml asks for exactly the bot scopes that GET /slack/install asks for.
import { readFileSync } from 'node:fs';

import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

import { DISTRIBUTION_BOT_SCOPES } from '../../src/slack/install/scopes.js';

interface Manifest {
  oauth_config: { scopes: { bot: string[] }; redirect_urls?: string[] };
  settings: { event_subscriptions: { bot_events: string[] }; token_rotation_enabled: boolean };
}
const read = (file: string) => parse(readFileSync(file, 'utf8')) as Manifest;

describe('manifests', () => {
  it('manifest.distribution.yml: the install scopes, the redirect URL, the uninstall events, token rotation, no history scopes', () => {
    const m = read('manifest.distribution.yml');
    expect([...m.oauth_config.scopes.bot].sort()).toEqual([...DISTRIBUTION_BOT_SCOPES].sort());
    expect(m.oauth_config.redirect_urls).toEqual(['https://kudos.example.com/slack/oauth_redirect']);
    expect(m.settings.event_subscriptions.bot_events).toEqual(
      expect.arrayContaining(['app_uninstalled', 'tokens_revoked']),
    );
    expect(m.settings.token_rotation_enabled).toBe(true);
    expect(m.oauth_config.scopes.bot.filter((s) => s.endsWith(':history'))).toEqual([]);
  });

  it('docs/scopes.md gives a reason for every bot scope of either manifest', () => {
    const doc = readFileSync('docs/scopes.md', 'utf8');
    for (const scope of new Set([
      ...read('manifest.yml').oauth_config.scopes.bot,
      ...read('manifest.distribution.yml').oauth_config.scopes.bot,
    ])) {
      expect(doc).toMatch(new RegExp(`\\| \`${scope.replace('.', '\\.')}\` \\|[^|]+\\|[^|]*\\w`));
    }
  });

  it('manifest.yml stays the single-workspace manifest: no redirect URL, no rotation', () => {
    const m = read('manifest.yml');
    expect(m.oauth_config.redirect_urls).toBeUndefined();
    expect(m.settings.token_rotation_enabled).toBe(false);
  });
});
