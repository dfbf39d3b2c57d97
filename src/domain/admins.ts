// Admins: KUDOS_ADMINS when configured, otherwise Slack workspace admins and owners.
export interface SlackUserFlags {
  is_admin?: boolean;
  is_owner?: boolean;
  is_primary_owner?: boolean;
}

export function isAdmin(userId: string, configured: string[] | undefined, slackUser: SlackUserFlags | undefined): boolean {
  if (configured) return configured.includes(userId);
  return Boolean(slackUser?.is_admin || slackUser?.is_owner || slackUser?.is_primary_owner);
}
