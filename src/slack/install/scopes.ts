// The bot scopes distribution mode asks for at "Add to Slack" (GET /slack/install). They are the
// bot scopes of manifest.distribution.yml (test/installations/manifests.test.ts checks that the two
// agree); docs/scopes.md gives the reason for each. Unlike manifest.yml (single workspace) there are
// no `*:history` scopes: an app distributed outside the Slack Marketplace gets very low
// conversations.history limits, and reviewers question reading history.
export const DISTRIBUTION_BOT_SCOPES = [
  'commands',
  'chat:write',
  'im:write',
  'users:read',
  'users:read.email',
  'users.profile:read',
  'files:read',
  'files:write',
  'usergroups:read',
  'channels:read',
  'groups:read',
  'channels:join',
  'reactions:read',
] as const;
