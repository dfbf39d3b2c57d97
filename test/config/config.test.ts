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
  it('applies the defaults of CONTRACT.md section 3', () => {
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
    });
    expect(config).toMatchObject({
      port: 8080,
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
    });
    expect(problems.map((p) => p.split(' ')[0]).sort()).toEqual(
      ['DATABASE_URL', 'KUDOS_ADMINS', 'KUDOS_APPROVAL_THRESHOLD', 'KUDOS_NOTIFY_CHANNEL', 'KUDOS_WORKER_CONCURRENCY', 'PORT', 'REWARDS_API_URL'].sort(),
    );
    expect(problems.every((p) => !p.includes('\n'))).toBe(true);
  });

  it('treats an empty optional variable as unset', () => {
    expect(loadConfig({ ...REQUIRED_ENV, KUDOS_NOTIFY_CHANNEL: '', PORT: '' })).toMatchObject({ notifyChannel: undefined, port: 3000 });
  });
});
