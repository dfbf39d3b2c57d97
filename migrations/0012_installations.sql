CREATE TABLE "installations" (
	"installation_key" text PRIMARY KEY NOT NULL,
	"team_id" text,
	"team_name" text,
	"enterprise_id" text,
	"enterprise_name" text,
	"is_enterprise_install" boolean DEFAULT false NOT NULL,
	"app_id" text,
	"installer_user_id" text,
	"bot_id" text,
	"bot_user_id" text,
	"bot_scopes" jsonb,
	"bot_token" text,
	"bot_refresh_token" text,
	"bot_token_expires_at" timestamp with time zone,
	"user_scopes" jsonb,
	"user_token" text,
	"user_refresh_token" text,
	"user_token_expires_at" timestamp with time zone,
	"enterprise_url" text,
	"installed_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"uninstalled_at" timestamp with time zone,
	"purge_after" timestamp with time zone,
	"purged_at" timestamp with time zone
);
--> statement-breakpoint
CREATE UNIQUE INDEX "installations_team_uq" ON "installations" USING btree ("team_id");--> statement-breakpoint
CREATE INDEX "installations_enterprise_idx" ON "installations" USING btree ("enterprise_id");--> statement-breakpoint
CREATE INDEX "installations_purge_idx" ON "installations" USING btree ("purge_after");