// Distribution mode (the README's installation modes): one row per installation of the app, written by Bolt's
// InstallProvider through our installationStore (src/slack/install/installation-store.ts). Keyed by the
// workspace (`team:T…`), or by the Enterprise Grid org for an org-wide install (`enterprise:E…`, team_id null).
// Every token is sealed with the KUDOS_ENCRYPTION_KEY key ring (src/secrets/key-ring.ts) under a
// context naming this row and the token's role, so a sealed value copied to another row or column
// does not open. Uninstalling clears the tokens at once and keeps the row (uninstalled_at) until the
// workspace's data is purged, KUDOS_RETENTION_DAYS later or when an admin asks for it.
import { boolean, index, jsonb, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';

export const installations = pgTable(
  'installations',
  {
    /** `team:<team id>` for a workspace install, `enterprise:<enterprise id>` for an org-wide install. */
    installationKey: text('installation_key').primaryKey(),
    /** Null for an org-wide install (it serves every workspace of the org). */
    teamId: text('team_id'),
    teamName: text('team_name'),
    enterpriseId: text('enterprise_id'),
    enterpriseName: text('enterprise_name'),
    isEnterpriseInstall: boolean('is_enterprise_install').notNull().default(false),
    appId: text('app_id'),
    /** Who installed (Slack user id). */
    installerUserId: text('installer_user_id'),
    botId: text('bot_id'),
    botUserId: text('bot_user_id'),
    botScopes: jsonb('bot_scopes').$type<string[]>(),
    /** Sealed (enc:v1:…); null once uninstalled or revoked. */
    botToken: text('bot_token'),
    /** Sealed; set only with token rotation. */
    botRefreshToken: text('bot_refresh_token'),
    botTokenExpiresAt: timestamp('bot_token_expires_at', { withTimezone: true }),
    userScopes: jsonb('user_scopes').$type<string[]>(),
    /** Sealed; the installer's user token when user scopes were asked for (none today). */
    userToken: text('user_token'),
    userRefreshToken: text('user_refresh_token'),
    userTokenExpiresAt: timestamp('user_token_expires_at', { withTimezone: true }),
    enterpriseUrl: text('enterprise_url'),
    installedAt: timestamp('installed_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    /** app_uninstalled or tokens_revoked (bot): tokens cleared, scheduled work stops calling Slack. */
    uninstalledAt: timestamp('uninstalled_at', { withTimezone: true }),
    /** When the workspace's data is deleted: uninstalled_at + KUDOS_RETENTION_DAYS, or sooner on an admin's request. */
    purgeAfter: timestamp('purge_after', { withTimezone: true }),
    /** Set by the purge: the data is gone, the row stays as the record that it was deleted. */
    purgedAt: timestamp('purged_at', { withTimezone: true }),
  },
  // updated_at: the change feed's poll (src/domain/workspaces/change-feed.ts) asks for the rows changed since its last.
  (t) => [
    uniqueIndex('installations_team_uq').on(t.teamId),
    index('installations_enterprise_idx').on(t.enterpriseId),
    index('installations_purge_idx').on(t.purgeAfter),
    index('installations_updated_at_idx').on(t.updatedAt),
  ],
);

export type InstallationRow = typeof installations.$inferSelect;
export type NewInstallationRow = typeof installations.$inferInsert;
