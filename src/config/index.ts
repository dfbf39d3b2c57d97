// Application configuration, read once from the environment and validated with zod
// (CONTRACT.md section 3). A missing or malformed variable stops start-up with one line naming it.
import { z } from 'zod';

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  readonly code = 'CONFIG_INVALID';
  constructor(readonly problems: string[]) {
    super(problems.join('\n'));
  }
}

const slackUserIdList = z
  .string()
  .transform((raw) => raw.split(',').map((part) => part.trim()).filter((part) => part.length > 0))
  .pipe(z.array(z.string().regex(/^[UW][A-Z0-9_]+$/, 'must be comma-separated Slack user IDs (U…/W…)')));

const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' });

const required = (what: string) => z.string({ error: `is required (${what})` }).trim().min(1, `is required (${what})`);

// Empty strings in the environment mean "unset" (a common shell habit: FOO= npm start).
const optional = <T extends z.ZodType>(schema: T) =>
  z.preprocess((value) => (value === '' ? undefined : value), schema.optional());

const envSchema = z.object({
  PORT: optional(z.coerce.number({ error: 'must be a port number' }).int('must be a port number').min(0).max(65535)),
  DATABASE_URL: optional(z.string().regex(/^postgres(ql)?:\/\//, 'must be a postgres:// connection string')),
  PGLITE_DIR: optional(z.string()),
  SLACK_SIGNING_SECRET: required('the Slack app signing secret'),
  SLACK_BOT_TOKEN: required('the Slack bot token, xoxb-…'),
  SLACK_API_URL: optional(httpUrl),
  REWARDS_API_URL: required('the Rewards API base URL').pipe(httpUrl),
  REWARDS_CLIENT_ID: required('the Rewards API client id'),
  REWARDS_CLIENT_SECRET: required('the Rewards API client secret'),
  REWARDS_WEBHOOK_SECRET: required('the Rewards webhook signing secret'),
  KUDOS_NOTIFY_CHANNEL: optional(z.string().regex(/^[CGD][A-Z0-9_]+$/, 'must be a Slack channel ID (C…)')),
  KUDOS_APPROVAL_CHANNEL: optional(z.string().regex(/^[CGD][A-Z0-9_]+$/, 'must be a Slack channel ID (C…)')),
  KUDOS_APPROVERS: optional(slackUserIdList),
  KUDOS_APPROVAL_THRESHOLD: optional(
    z.string().regex(/^\d+(\.\d{1,2})?$/, 'must be a non-negative amount in USD, e.g. 100 or 99.50'),
  ),
  KUDOS_ADMINS: optional(slackUserIdList),
  KUDOS_WORKER_CONCURRENCY: optional(z.coerce.number({ error: 'must be a whole number from 1 to 64' }).int('must be a whole number from 1 to 64').min(1, 'must be a whole number from 1 to 64').max(64, 'must be a whole number from 1 to 64')),
});

export interface AppConfig {
  port: number;
  databaseUrl: string | undefined;
  pgliteDir: string;
  slackSigningSecret: string;
  slackBotToken: string;
  /** Base URL of the Slack Web API, ending with `/api/`. */
  slackApiUrl: string;
  rewardsApiUrl: string;
  rewardsClientId: string;
  rewardsClientSecret: string;
  rewardsWebhookSecret: string;
  notifyChannel: string | undefined;
  approvalChannel: string | undefined;
  /** Undefined: workspace admins and owners approve. */
  approvers: string[] | undefined;
  /** Orders whose total is above this many cents need approval; 0 = every order. */
  approvalThresholdCents: number;
  /** Undefined: workspace admins and owners are admins. */
  admins: string[] | undefined;
  /** Sends being placed at once per instance (operations tuning); undefined: the worker default (16). */
  workerConcurrency?: number | undefined;
}

export const DEFAULT_SLACK_API_URL = 'https://slack.com/api/';

export function loadConfig(env: Record<string, string | undefined> = process.env): AppConfig {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => {
      const variable = issue.path.length > 0 ? String(issue.path[0]) : 'environment';
      return `${variable} ${issue.message}`;
    });
    throw new ConfigError([...new Set(problems)]);
  }
  const e = parsed.data;
  const slackApiUrl = e.SLACK_API_URL ?? DEFAULT_SLACK_API_URL;
  return {
    port: e.PORT ?? 3000,
    databaseUrl: e.DATABASE_URL,
    pgliteDir: e.PGLITE_DIR ?? './.data/pglite',
    slackSigningSecret: e.SLACK_SIGNING_SECRET,
    slackBotToken: e.SLACK_BOT_TOKEN,
    slackApiUrl: slackApiUrl.endsWith('/') ? slackApiUrl : `${slackApiUrl}/`,
    rewardsApiUrl: e.REWARDS_API_URL.replace(/\/+$/, ''),
    rewardsClientId: e.REWARDS_CLIENT_ID,
    rewardsClientSecret: e.REWARDS_CLIENT_SECRET,
    rewardsWebhookSecret: e.REWARDS_WEBHOOK_SECRET,
    notifyChannel: e.KUDOS_NOTIFY_CHANNEL,
    approvalChannel: e.KUDOS_APPROVAL_CHANNEL,
    approvers: e.KUDOS_APPROVERS,
    approvalThresholdCents: thresholdToCents(e.KUDOS_APPROVAL_THRESHOLD ?? '100'),
    admins: e.KUDOS_ADMINS,
    workerConcurrency: e.KUDOS_WORKER_CONCURRENCY,
  };
}

function thresholdToCents(decimal: string): number {
  const [whole = '0', fraction = ''] = decimal.split('.');
  return Number(whole) * 100 + Number(fraction.padEnd(2, '0'));
}
