// The smallest environment loadConfig accepts: the required variables, with placeholder values.
export const REQUIRED_ENV = {
  SLACK_SIGNING_SECRET: 'secret',
  SLACK_BOT_TOKEN: 'xoxb-1',
  REWARDS_API_URL: 'http://127.0.0.1:4010/',
  REWARDS_CLIENT_ID: 'id',
  REWARDS_CLIENT_SECRET: 'client-secret',
  REWARDS_WEBHOOK_SECRET: 'webhook-secret',
} as const;
