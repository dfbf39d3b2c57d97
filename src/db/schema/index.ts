// The database schema, one file per aggregate. Other parts add their files here
// (approvals, settings, webhook events, notifications) and re-export them below.
export * from './workspace.js';
export * from './kudos.js';
export * from './recipient-mappings.js';
export * from './audit.js';
export * from './webhooks.js';
export * from './notifications.js';
export * from './settings.js';
export * from './approvals.js';
export * from './home.js';
export * from './recognition.js';
export * from './automations.js';
export * from './event-receipts.js';
export * from './finance.js';
export * from './installations.js';
export * from './rewards-connections.js';
export * from './rate-budgets.js';
export * from './campaigns.js';
export * from './slack-call-schedules.js';
export * from './company-values.js';
export * from './design-pictures.js';
export * from './exchange-rates.js';
export * from './people-countries.js';
