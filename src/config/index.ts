// Application configuration, read once from the environment and validated with zod
// (the README's configuration table). A missing or malformed variable stops start-up with one line naming it.
import { z } from 'zod';

import { type KeyRing, KeyRingError, parseKeyRing } from '../secrets/key-ring.js';

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  readonly code = 'CONFIG_INVALID';
  constructor(readonly problems: string[]) {
    super(problems.join('\n'));
  }
}

const slackUserIdList = z
  .string()
  .transform((raw) =>
    raw
      .split(',')
      .map((part) => part.trim())
      .filter((part) => part.length > 0),
  )
  .pipe(z.array(z.string().regex(/^[UW][A-Z0-9_]+$/, 'must be comma-separated Slack user IDs (U…/W…)')));

const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' });

const required = (what: string) =>
  z
    .string({ error: `is required (${what})` })
    .trim()
    .min(1, `is required (${what})`);

// Empty strings in the environment mean "unset" (a common shell habit: FOO= npm start).
const optional = <T extends z.ZodType>(schema: T) =>
  z.preprocess((value) => (value === '' ? undefined : value), schema.optional());

const envSchema = z.object({
  PORT: optional(z.coerce.number({ error: 'must be a port number' }).int('must be a port number').min(0).max(65535)),
  HOST: optional(
    z
      .string()
      .trim()
      .pipe(
        z.union([z.ipv4(), z.ipv6(), z.hostname()], {
          error: 'must be an IP address or a host name (0.0.0.0 for every IPv4 interface, :: for every interface)',
        }),
      ),
  ),
  METRICS_PORT: optional(
    z.coerce.number({ error: 'must be a port number' }).int('must be a port number').min(0).max(65535),
  ),
  METRICS_HOST: optional(z.string().min(1)),
  DATABASE_URL: optional(z.string().regex(/^postgres(ql)?:\/\//, 'must be a postgres:// connection string')),
  PGLITE_DIR: optional(z.string()),
  // Required unless Socket Mode (checked below, with the README's installation modes).
  SLACK_SIGNING_SECRET: optional(z.string().trim().min(1)),
  // Single-workspace mode only (checked below with the installation modes).
  SLACK_BOT_TOKEN: optional(z.string().trim().min(1)),
  SLACK_API_URL: optional(httpUrl),
  REWARDS_API_URL: required('the Rewards API base URL').pipe(httpUrl),
  // Single-workspace mode: required (checked below); distribution: each workspace connects its own.
  REWARDS_CLIENT_ID: optional(z.string().trim().min(1)),
  REWARDS_CLIENT_SECRET: optional(z.string().trim().min(1)),
  // Required unless REWARDS_WEBHOOKS=off (checked below).
  REWARDS_WEBHOOK_SECRET: optional(z.string().trim().min(1)),
  REWARDS_WEBHOOKS: optional(z.enum(['on', 'off'], { error: 'must be on or off' })),
  SLACK_APP_TOKEN: optional(
    z
      .string()
      .trim()
      .superRefine((token, ctx) => {
        // Names the kind of token found, never the token itself.
        if (/^xox[a-z]-/.test(token))
          ctx.addIssue({
            code: 'custom',
            message: `must be an app-level token (xapp-…), not a ${tokenKind(token)} token (${token.slice(0, 5)}…)`,
          });
        else if (!token.startsWith('xapp-'))
          ctx.addIssue({ code: 'custom', message: 'must be an app-level token (xapp-…, scope connections:write)' });
      }),
  ),
  // Distribution mode (the README's installation modes); required together, checked below.
  SLACK_CLIENT_ID: optional(z.string().trim().min(1)),
  SLACK_CLIENT_SECRET: optional(z.string().trim().min(1)),
  SLACK_STATE_SECRET: optional(z.string().trim().min(1)),
  // Parsed below with the key ring (its errors never echo a key).
  KUDOS_ENCRYPTION_KEY: optional(z.string()),
  // Where Slack and the Rewards API reach this app (https://kudos.example.com): the base of each
  // workspace's webhook URL shown in App Home. Unset: taken from the Slack request's Host.
  KUDOS_PUBLIC_URL: optional(httpUrl),
  KUDOS_RETENTION_DAYS: optional(
    z.coerce
      .number({ error: 'must be a whole number of days from 1 to 3650' })
      .int('must be a whole number of days from 1 to 3650')
      .min(1, 'must be a whole number of days from 1 to 3650')
      .max(3650, 'must be a whole number of days from 1 to 3650'),
  ),
  KUDOS_NOTIFY_CHANNEL: optional(z.string().regex(/^[CGD][A-Z0-9_]+$/, 'must be a Slack channel ID (C…)')),
  KUDOS_APPROVAL_CHANNEL: optional(z.string().regex(/^[CGD][A-Z0-9_]+$/, 'must be a Slack channel ID (C…)')),
  KUDOS_APPROVERS: optional(slackUserIdList),
  KUDOS_APPROVAL_THRESHOLD: optional(
    z.string().regex(/^\d+(\.\d{1,2})?$/, 'must be a non-negative amount in USD, e.g. 100 or 99.50'),
  ),
  KUDOS_ADMINS: optional(slackUserIdList),
  KUDOS_ADMIN_CHANNEL: optional(z.string().regex(/^[CGD][A-Z0-9_]+$/, 'must be a Slack channel ID (C…)')),
  KUDOS_LOW_BALANCE_THRESHOLD: optional(
    z.string().regex(/^\d{1,9}(\.\d{1,2})?$/, 'must be a non-negative amount in USD, e.g. 500 or 499.50'),
  ),
  KUDOS_WORKER_CONCURRENCY: optional(
    z.coerce
      .number({ error: 'must be a whole number from 1 to 64' })
      .int('must be a whole number from 1 to 64')
      .min(1, 'must be a whole number from 1 to 64')
      .max(64, 'must be a whole number from 1 to 64'),
  ),
  /** How long a worker holds a send it is placing before another instance may take it over (renewed while the call runs). */
  KUDOS_WORKER_LEASE_MS: optional(
    z.coerce
      .number({ error: 'must be a whole number of milliseconds from 5000 to 600000' })
      .int('must be a whole number of milliseconds from 5000 to 600000')
      .min(5000, 'must be a whole number of milliseconds from 5000 to 600000')
      .max(600_000, 'must be a whole number of milliseconds from 5000 to 600000'),
  ),
  /** Multiplies the Slack rate limits the app paces to (src/slack/web-api/pacing.ts): Slack's tiers are floors ("20+ per minute"). */
  KUDOS_SLACK_RATE_SCALE: optional(
    z.coerce
      .number({ error: 'must be a number above 0, e.g. 1 or 2.5' })
      .positive('must be a number above 0, e.g. 1 or 2.5')
      .max(1000, 'must be at most 1000'),
  ),
});

/** Every variable loadConfig reads (docs/reference.md lists each, with LOG_LEVEL of the logger). */
export const CONFIG_VARIABLES: readonly string[] = Object.keys(envSchema.shape);

/** The README's installation modes: exactly one, chosen by the environment (Socket Mode is an add-on of either). */
export type InstallationMode = 'single' | 'distribution';

/** Distribution mode's Slack OAuth client (Bolt's InstallProvider). */
export interface SlackOAuthConfig {
  clientId: string;
  clientSecret: string;
  /** Signs the OAuth `state` (and its cookie). */
  stateSecret: string;
}

export interface AppConfig {
  /** `single`: one workspace, SLACK_BOT_TOKEN; `distribution`: "Add to Slack", tokens per installation. */
  mode: InstallationMode;
  /** Set in distribution mode only. */
  slackOAuth?: SlackOAuthConfig | undefined;
  /**
   * KUDOS_ENCRYPTION_KEY parsed (src/secrets/key-ring.ts): seals every secret the app stores.
   * Always set in distribution mode; in single-workspace mode only when the variable is set.
   */
  keyRing?: KeyRing | undefined;
  /** Days an uninstalled workspace's data is kept before it is purged (KUDOS_RETENTION_DAYS). */
  retentionDays: number;
  /** KUDOS_PUBLIC_URL without a trailing slash; undefined: derived from the Slack request (App Home's webhook URL). */
  publicUrl?: string | undefined;
  port: number;
  /** Interface the app's port binds (HOST), in every mode; every IPv4 interface unless set. */
  host: string;
  /** GET /metrics is served here only, never on `port` (which faces Slack and the Rewards API). */
  metricsPort: number;
  /** Interface of the metrics server; loopback unless the operator opens it on purpose. */
  metricsHost: string;
  databaseUrl: string | undefined;
  pgliteDir: string;
  /** Undefined only in Socket Mode, where Slack's requests arrive over the socket unsigned. */
  slackSigningSecret: string | undefined;
  /** Set: Socket Mode (the README's installation modes), an outbound WebSocket instead of POST /slack/events. */
  slackAppToken: string | undefined;
  /** The bot token of single-workspace mode; undefined in distribution mode (tokens per installation). */
  slackBotToken: string | undefined;
  /** Base URL of the Slack Web API, ending with `/api/`. */
  slackApiUrl: string;
  rewardsApiUrl: string;
  /** The operator's Rewards credentials: always set in single-workspace mode, optional in distribution mode. */
  rewardsClientId: string | undefined;
  rewardsClientSecret: string | undefined;
  /** Undefined when REWARDS_WEBHOOKS=off, or in distribution mode (each workspace has its own). */
  rewardsWebhookSecret: string | undefined;
  /** `off`: order outcomes by polling only, no webhook route (REWARDS_WEBHOOKS). */
  rewardsWebhooks: 'on' | 'off';
  notifyChannel: string | undefined;
  approvalChannel: string | undefined;
  /** Undefined: workspace admins and owners approve. */
  approvers: string[] | undefined;
  /** Orders whose total is above this many cents need approval; 0 = every order. */
  approvalThresholdCents: number;
  /** Undefined: workspace admins and owners are admins. */
  admins: string[] | undefined;
  /** Channel for admin alerts (low balance, top-up requests); undefined: admins by direct message. */
  adminChannel?: string | undefined;
  /** Available balance (cents) under which admins are alerted, once per crossing; undefined: no alert. */
  lowBalanceThresholdCents?: number | undefined;
  /** Sends being placed at once per instance (operations tuning); undefined: the worker default (16). */
  workerConcurrency?: number | undefined;
  /** KUDOS_WORKER_LEASE_MS: the worker's lease (default 120 s). */
  workerLeaseMs?: number | undefined;
  /** KUDOS_SLACK_RATE_SCALE: the Slack limits the app paces to, times this (default 1: Slack's documented floors). */
  slackRateScale?: number | undefined;
}

export const DEFAULT_SLACK_API_URL = 'https://slack.com/api/';
/** The Prometheus exporter port registered for OpenTelemetry's exporter, a common scrape target. */
export const DEFAULT_METRICS_PORT = 9464;
/** HOST unset: every IPv4 interface, where a load balancer or proxy in front reaches the app. */
const DEFAULT_HOST = '0.0.0.0';

export function loadConfig(env: Record<string, string | undefined> = process.env): AppConfig {
  const parsed = envSchema.safeParse(env);
  const problems = parsed.success
    ? []
    : parsed.error.issues.map((issue) => {
        const variable = issue.path.length > 0 ? String(issue.path[0]) : 'environment';
        return `${variable} ${issue.message}`;
      });
  const mode = installationModeOf(env);
  // Both modes at once is the one line that matters: whatever else is missing follows from the choice.
  if (mode.conflict) throw new ConfigError([mode.conflict]);
  problems.push(...installationModeProblems(env, mode.mode));
  const keyRing = keyRingOf(env, mode.mode, problems);
  if (!parsed.success || problems.length > 0) throw new ConfigError([...new Set(problems)]);
  const e = parsed.data;
  const slackApiUrl = e.SLACK_API_URL ?? DEFAULT_SLACK_API_URL;
  return {
    mode: mode.mode,
    slackOAuth:
      mode.mode === 'distribution'
        ? { clientId: e.SLACK_CLIENT_ID!, clientSecret: e.SLACK_CLIENT_SECRET!, stateSecret: e.SLACK_STATE_SECRET! }
        : undefined,
    keyRing,
    retentionDays: e.KUDOS_RETENTION_DAYS ?? 30,
    publicUrl: e.KUDOS_PUBLIC_URL?.replace(/\/+$/, ''),
    port: e.PORT ?? 3000,
    host: e.HOST ?? DEFAULT_HOST,
    metricsPort: e.METRICS_PORT ?? DEFAULT_METRICS_PORT,
    metricsHost: e.METRICS_HOST ?? '127.0.0.1',
    databaseUrl: e.DATABASE_URL,
    pgliteDir: e.PGLITE_DIR ?? './.data/pglite',
    slackSigningSecret: e.SLACK_SIGNING_SECRET,
    slackAppToken: e.SLACK_APP_TOKEN,
    slackBotToken: e.SLACK_BOT_TOKEN,
    slackApiUrl: slackApiUrl.endsWith('/') ? slackApiUrl : `${slackApiUrl}/`,
    rewardsApiUrl: e.REWARDS_API_URL.replace(/\/+$/, ''),
    rewardsClientId: e.REWARDS_CLIENT_ID,
    rewardsClientSecret: e.REWARDS_CLIENT_SECRET,
    rewardsWebhookSecret: e.REWARDS_WEBHOOK_SECRET,
    rewardsWebhooks: e.REWARDS_WEBHOOKS ?? 'on',
    notifyChannel: e.KUDOS_NOTIFY_CHANNEL,
    approvalChannel: e.KUDOS_APPROVAL_CHANNEL,
    approvers: e.KUDOS_APPROVERS,
    approvalThresholdCents: thresholdToCents(e.KUDOS_APPROVAL_THRESHOLD ?? '100'),
    admins: e.KUDOS_ADMINS,
    adminChannel: e.KUDOS_ADMIN_CHANNEL,
    lowBalanceThresholdCents:
      e.KUDOS_LOW_BALANCE_THRESHOLD === undefined ? undefined : thresholdToCents(e.KUDOS_LOW_BALANCE_THRESHOLD),
    workerConcurrency: e.KUDOS_WORKER_CONCURRENCY,
    workerLeaseMs: e.KUDOS_WORKER_LEASE_MS,
    slackRateScale: e.KUDOS_SLACK_RATE_SCALE,
  };
}

const DISTRIBUTION_VARIABLES = ['SLACK_CLIENT_ID', 'SLACK_CLIENT_SECRET', 'SLACK_STATE_SECRET'] as const;

const isSet = (env: Record<string, string | undefined>, name: string) => (env[name] ?? '').trim() !== '';

/**
 * The README's installation modes: SLACK_BOT_TOKEN is single-workspace mode, the Slack OAuth client is
 * distribution mode; both at once is one line. Neither: single-workspace mode (today's), which then
 * asks for SLACK_BOT_TOKEN.
 */
function installationModeOf(env: Record<string, string | undefined>): { mode: InstallationMode; conflict?: string } {
  const distribution = DISTRIBUTION_VARIABLES.filter((name) => isSet(env, name));
  if (distribution.length === 0) return { mode: 'single' };
  if (isSet(env, 'SLACK_BOT_TOKEN'))
    return {
      mode: 'single',
      conflict: `SLACK_BOT_TOKEN and ${distribution.join(', ')} belong to two installation modes (single workspace, distribution): set the variables of one`,
    };
  return { mode: 'distribution' };
}

/**
 * The variables that depend on the mode (the README's configuration table and installation modes): the signing secret is only
 * needed without Socket Mode, the webhook secret only with webhooks in single-workspace mode, the
 * bot token and Rewards credentials only in single-workspace mode, the OAuth client only in distribution.
 */
function installationModeProblems(env: Record<string, string | undefined>, mode: InstallationMode): string[] {
  const set = (name: string) => isSet(env, name);
  const problems: string[] = [];
  if (mode === 'single') {
    if (!set('SLACK_BOT_TOKEN'))
      problems.push(
        'SLACK_BOT_TOKEN is required (the Slack bot token, xoxb-…; or the distribution mode variables SLACK_CLIENT_ID, SLACK_CLIENT_SECRET, SLACK_STATE_SECRET)',
      );
    if (!set('REWARDS_CLIENT_ID')) problems.push('REWARDS_CLIENT_ID is required (the Rewards API client id)');
    if (!set('REWARDS_CLIENT_SECRET'))
      problems.push('REWARDS_CLIENT_SECRET is required (the Rewards API client secret)');
    if (env.REWARDS_WEBHOOKS?.trim() !== 'off' && !set('REWARDS_WEBHOOK_SECRET'))
      problems.push(
        'REWARDS_WEBHOOK_SECRET is required (the Rewards webhook signing secret; not needed with REWARDS_WEBHOOKS=off)',
      );
  } else {
    for (const name of DISTRIBUTION_VARIABLES)
      if (!set(name))
        problems.push(
          `${name} is required in distribution mode (${DISTRIBUTION_VARIABLES.filter(set).join(', ')} set)`,
        );
  }
  if (!set('SLACK_APP_TOKEN') && !set('SLACK_SIGNING_SECRET'))
    problems.push(
      'SLACK_SIGNING_SECRET is required (the Slack app signing secret; not needed in Socket Mode, with SLACK_APP_TOKEN)',
    );
  return problems;
}

/** KUDOS_ENCRYPTION_KEY: required in distribution mode, optional in single-workspace mode; a bad value is one line. */
function keyRingOf(
  env: Record<string, string | undefined>,
  mode: InstallationMode,
  problems: string[],
): KeyRing | undefined {
  const value = env.KUDOS_ENCRYPTION_KEY;
  if (mode === 'single' && (value ?? '').trim() === '') return undefined;
  try {
    return parseKeyRing(value);
  } catch (error) {
    if (!(error instanceof KeyRingError)) throw error;
    problems.push(
      mode === 'distribution' && (value ?? '').trim() === ''
        ? `${error.message} (distribution mode seals every installation's tokens with it)`
        : error.message,
    );
    return undefined;
  }
}

function tokenKind(token: string): string {
  if (token.startsWith('xoxb-')) return 'bot';
  if (token.startsWith('xoxp-')) return 'user';
  return 'different kind of';
}

function thresholdToCents(decimal: string): number {
  const [whole = '0', fraction = ''] = decimal.split('.');
  return Number(whole) * 100 + Number(fraction.padEnd(2, '0'));
}
