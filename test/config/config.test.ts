import { describe, expect, it } from 'vitest';

import { ConfigError, loadConfig } from '../../src/config/index.js';
import { REQUIRED_ENV } from '../support/config.js';

function problemsOf(env: Record<string, string | undefined>): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig', () => {
  it('applies the defaults of the README configuration table', () => {
    const config = loadConfig(REQUIRED_ENV);
    expect(config).toMatchObject({
      port: 3000,
      databaseUrl: undefined,
      pgliteDir: './.data/pglite',
      slackApiUrl: 'https://slack.com/api/',
      rewardsApiUrl: 'http://127.0.0.1:4010',
      notifyChannel: undefined,
      approvalChannel: undefined,
      approvers: undefined,
      admins: undefined,
      approvalThresholdCents: 10_000,
    });
  });

  it('reads every optional variable', () => {
    const config = loadConfig({
      ...REQUIRED_ENV,
      PORT: '8080',
      DATABASE_URL: 'postgres://u@h:5432/db',
      PGLITE_DIR: 'memory://',
      SLACK_API_URL: 'http://127.0.0.1:9999/api',
      KUDOS_NOTIFY_CHANNEL: 'C123',
      KUDOS_APPROVAL_CHANNEL: 'C456',
      KUDOS_APPROVERS: 'U1, U2',
      KUDOS_APPROVAL_THRESHOLD: '0',
      KUDOS_ADMINS: 'W9',
      KUDOS_WORKER_CONCURRENCY: '8',
      KUDOS_WORKER_LEASE_MS: '10000',
    });
    expect(config).toMatchObject({
      port: 8080,
      workerLeaseMs: 10_000,
      databaseUrl: 'postgres://u@h:5432/db',
      pgliteDir: 'memory://',
      slackApiUrl: 'http://127.0.0.1:9999/api/',
      notifyChannel: 'C123',
      approvalChannel: 'C456',
      approvers: ['U1', 'U2'],
      approvalThresholdCents: 0,
      admins: ['W9'],
      workerConcurrency: 8,
    });
    expect(loadConfig({ ...REQUIRED_ENV, KUDOS_APPROVAL_THRESHOLD: '99.5' }).approvalThresholdCents).toBe(9950);
  });

  it('names each missing required variable on its own line', () => {
    const problems = problemsOf({});
    for (const name of Object.keys(REQUIRED_ENV)) {
      expect(problems.filter((p) => p.startsWith(`${name} `))).toHaveLength(1);
    }
    expect(problems).toHaveLength(Object.keys(REQUIRED_ENV).length);
  });

  it('names each malformed variable, and nothing else', () => {
    const problems = problemsOf({
      ...REQUIRED_ENV,
      PORT: 'eighty',
      REWARDS_API_URL: 'ftp://example.com',
      KUDOS_ADMINS: 'U1,not-a-user',
      KUDOS_APPROVAL_THRESHOLD: '-5',
      KUDOS_NOTIFY_CHANNEL: '#kudos',
      DATABASE_URL: 'mysql://x',
      KUDOS_WORKER_CONCURRENCY: '0',
      KUDOS_WORKER_LEASE_MS: '100',
    });
    expect(problems.map((p) => p.split(' ')[0]).sort()).toEqual(
      [
        'DATABASE_URL',
        'KUDOS_ADMINS',
        'KUDOS_APPROVAL_THRESHOLD',
        'KUDOS_NOTIFY_CHANNEL',
        'KUDOS_WORKER_CONCURRENCY',
        'KUDOS_WORKER_LEASE_MS',
        'PORT',
        'REWARDS_API_URL',
      ].sort(),
    );
    expect(problems.every((p) => !p.includes('\n'))).toBe(true);
  });

  it('treats an empty optional variable as unset', () => {
    expect(loadConfig({ ...REQUIRED_ENV, KUDOS_NOTIFY_CHANNEL: '', PORT: '' })).toMatchObject({
      notifyChannel: undefined,
      port: 3000,
    });
  });
});

describe('installation modes (README: configuration, installation modes)', () => {
  const { SLACK_SIGNING_SECRET: _secret, REWARDS_WEBHOOK_SECRET: _webhookSecret, ...withoutSecrets } = REQUIRED_ENV;

  it('Socket Mode: SLACK_APP_TOKEN (xapp-) makes the signing secret optional', () => {
    const config = loadConfig({ ...withoutSecrets, REWARDS_WEBHOOK_SECRET: 'w', SLACK_APP_TOKEN: 'xapp-1-A1-2-abc' });
    expect(config).toMatchObject({
      slackAppToken: 'xapp-1-A1-2-abc',
      slackSigningSecret: undefined,
      rewardsWebhooks: 'on',
    });
    expect(loadConfig({ ...REQUIRED_ENV, SLACK_APP_TOKEN: 'xapp-1-A1-2-abc' }).slackSigningSecret).toBe('secret');
    expect(loadConfig(REQUIRED_ENV).slackAppToken).toBeUndefined();
  });

  it.each([
    ['xoxb-123-456-abc', 'not a bot token'],
    ['xoxp-123-456-abc', 'not a user token'],
    ['abc123', 'app-level token (xapp-'],
  ])('a token of the wrong kind in SLACK_APP_TOKEN (%s) is one line naming the variable', (token, says) => {
    const problems = problemsOf({ ...REQUIRED_ENV, SLACK_APP_TOKEN: token });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^SLACK_APP_TOKEN /);
    expect(problems[0]).toContain(says);
    expect(problems[0]).not.toContain(token);
  });

  it('without SLACK_APP_TOKEN, the signing secret is required (one line)', () => {
    expect(problemsOf({ ...withoutSecrets, REWARDS_WEBHOOK_SECRET: 'w' })).toEqual([
      expect.stringMatching(/^SLACK_SIGNING_SECRET is required/),
    ]);
  });

  it('REWARDS_WEBHOOKS=off makes the webhook secret optional; anything but on/off is refused', () => {
    expect(loadConfig({ ...withoutSecrets, SLACK_SIGNING_SECRET: 's', REWARDS_WEBHOOKS: 'off' })).toMatchObject({
      rewardsWebhooks: 'off',
      rewardsWebhookSecret: undefined,
    });
    expect(problemsOf({ ...withoutSecrets, SLACK_SIGNING_SECRET: 's' })).toEqual([
      expect.stringMatching(/^REWARDS_WEBHOOK_SECRET is required/),
    ]);
    expect(problemsOf({ ...REQUIRED_ENV, REWARDS_WEBHOOKS: 'sometimes' })).toEqual([
      'REWARDS_WEBHOOKS must be on or off',
    ]);
  });

  it('the variables of two installation modes at once stop start-up with one line, Socket Mode or not', () => {
    for (const extra of [{}, { SLACK_APP_TOKEN: 'xapp-1-A1-2-abc' }]) {
      const problems = problemsOf({ ...REQUIRED_ENV, ...extra, SLACK_CLIENT_ID: '123.456', SLACK_CLIENT_SECRET: 'c' });
      expect(problems).toEqual([
        expect.stringMatching(
          /^SLACK_BOT_TOKEN and SLACK_CLIENT_ID, SLACK_CLIENT_SECRET belong to two installation modes/,
        ),
      ]);
    }
  });

  const KEY = Buffer.alloc(32, 7).toString('base64');
  const DISTRIBUTION_ENV = {
    SLACK_CLIENT_ID: '123.456',
    SLACK_CLIENT_SECRET: 'client-secret',
    SLACK_STATE_SECRET: 'state-secret',
    SLACK_SIGNING_SECRET: 'signing-secret',
    KUDOS_ENCRYPTION_KEY: `k1:${KEY}`,
    REWARDS_API_URL: 'http://127.0.0.1:4010/',
  };

  it('single-workspace mode is the default; the key ring is optional there, retention defaults to 30 days', () => {
    const config = loadConfig(REQUIRED_ENV);
    expect(config).toMatchObject({
      mode: 'single',
      slackBotToken: 'xoxb-1',
      slackOAuth: undefined,
      keyRing: undefined,
      retentionDays: 30,
    });
    const withKey = loadConfig({ ...REQUIRED_ENV, KUDOS_ENCRYPTION_KEY: KEY, KUDOS_RETENTION_DAYS: '7' });
    expect(withKey.keyRing?.open(withKey.keyRing.seal('x', 'ctx'), 'ctx')).toBe('x');
    expect(withKey.retentionDays).toBe(7);
  });

  it('distribution mode: the OAuth client, the signing secret and the key ring; no bot token or Rewards credentials', () => {
    const config = loadConfig(DISTRIBUTION_ENV);
    expect(config).toMatchObject({
      mode: 'distribution',
      slackOAuth: { clientId: '123.456', clientSecret: 'client-secret', stateSecret: 'state-secret' },
      slackBotToken: undefined,
      rewardsClientId: undefined,
      rewardsWebhookSecret: undefined,
      retentionDays: 30,
    });
    expect(config.keyRing?.primaryKeyId).toBe('k1');
    // Socket Mode is an add-on: the signing secret becomes optional.
    const { SLACK_SIGNING_SECRET: _s, ...withoutSigning } = DISTRIBUTION_ENV;
    expect(loadConfig({ ...withoutSigning, SLACK_APP_TOKEN: 'xapp-1-A1-2-abc' })).toMatchObject({
      mode: 'distribution',
      slackAppToken: 'xapp-1-A1-2-abc',
    });
  });

  it('distribution mode names each missing variable on its own line, the encryption key included', () => {
    const {
      SLACK_STATE_SECRET: _st,
      KUDOS_ENCRYPTION_KEY: _k,
      SLACK_SIGNING_SECRET: _si,
      ...partial
    } = DISTRIBUTION_ENV;
    const problems = problemsOf(partial);
    expect(problems.map((p) => p.split(' ')[0]).sort()).toEqual([
      'KUDOS_ENCRYPTION_KEY',
      'SLACK_SIGNING_SECRET',
      'SLACK_STATE_SECRET',
    ]);
    expect(problems.every((p) => !p.includes('\n'))).toBe(true);
  });

  it.each([
    ['not base64 at all', 'not 32 bytes'],
    [Buffer.alloc(16, 1).toString('base64'), 'not 32 bytes'],
    [`bad id!:${Buffer.alloc(32, 1).toString('base64')}`, 'invalid key id'],
  ])('a wrong KUDOS_ENCRYPTION_KEY (%s) is one line that never echoes the key, in either mode', (value, says) => {
    for (const env of [DISTRIBUTION_ENV, REQUIRED_ENV]) {
      const problems = problemsOf({ ...env, KUDOS_ENCRYPTION_KEY: value });
      expect(problems).toHaveLength(1);
      expect(problems[0]).toMatch(/^KUDOS_ENCRYPTION_KEY/);
      expect(problems[0]).toContain(says);
      expect(problems[0]).not.toContain(value);
    }
  });

  it('both modes at once is exactly one line, whatever else is set or missing', () => {
    expect(problemsOf({ ...DISTRIBUTION_ENV, SLACK_BOT_TOKEN: 'xoxb-1' })).toEqual([
      'SLACK_BOT_TOKEN and SLACK_CLIENT_ID, SLACK_CLIENT_SECRET, SLACK_STATE_SECRET belong to two installation modes (single workspace, distribution): set the variables of one',
    ]);
    expect(problemsOf({ SLACK_BOT_TOKEN: 'xoxb-1', SLACK_STATE_SECRET: 's' })).toHaveLength(1);
  });

  it('KUDOS_RETENTION_DAYS must be a whole number of days', () => {
    expect(problemsOf({ ...REQUIRED_ENV, KUDOS_RETENTION_DAYS: '0' })).toEqual([
      'KUDOS_RETENTION_DAYS must be a whole number of days from 1 to 3650',
    ]);
  });
});
