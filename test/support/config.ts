// The smallest environment loadConfig accepts: the required variables, with placeholder values.
export const REQUIRED_ENV = {
  SLACK_SIGNING_SECRET: 'secret',
  SLACK_BOT_TOKEN: 'xoxb-1',
  REWARDS_API_URL: 'http://127.0.0.1:4010/',
  REWARDS_CLIENT_ID: 'id',
  REWARDS_CLIENT_SECRET: 'client-secret',
  REWARDS_WEBHOOK_SECRET: 'webhook-secret',
} as const;

/**
 * Distribution mode's environment with placeholder secrets and the given encryption key; the Slack
 * and Rewards URLs point at a closed port (nothing here is meant to call them).
 */
export function distributionEnv(encryptionKey: string) {
  return {
    SLACK_CLIENT_ID: '1111.2222',
    SLACK_CLIENT_SECRET: 'client-secret-0123456789',
    SLACK_STATE_SECRET: 'state-secret-0123456789',
    SLACK_SIGNING_SECRET: 'signing-secret-0123456789',
    KUDOS_ENCRYPTION_KEY: encryptionKey,
    SLACK_API_URL: 'http://127.0.0.1:9/api/',
    REWARDS_API_URL: 'http://127.0.0.1:9',
  };
}

/** A Bolt logger that prints nothing. */
export const silentBoltLogger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
  setLevel() {},
  getLevel: () => 'error' as never,
  setName() {},
};
