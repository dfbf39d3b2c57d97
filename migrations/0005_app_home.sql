CREATE TABLE "health_warnings" (
	"team_id" text NOT NULL,
	"enterprise_id" text,
	"kind" text NOT NULL,
	"subject" text NOT NULL,
	"error" text NOT NULL,
	"count" integer DEFAULT 1 NOT NULL,
	"first_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_at" timestamp with time zone DEFAULT now() NOT NULL,
	"resolved_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "home_visits" (
	"team_id" text NOT NULL,
	"enterprise_id" text,
	"user_id" text NOT NULL,
	"is_approver" boolean DEFAULT false NOT NULL,
	"is_admin" boolean DEFAULT false NOT NULL,
	"pages" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"opened_at" timestamp with time zone DEFAULT now() NOT NULL,
	"published_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "kudos_reactions" (
	"team_id" text NOT NULL,
	"enterprise_id" text,
	"kudos_id" uuid NOT NULL,
	"user_id" text NOT NULL,
	"reaction" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "stats_opt_outs" (
	"team_id" text NOT NULL,
	"enterprise_id" text,
	"user_id" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "kudos" ADD COLUMN "source_message_url" text;--> statement-breakpoint
ALTER TABLE "workspace_settings" ADD COLUMN "reaction_emoji" text DEFAULT 'gift' NOT NULL;--> statement-breakpoint
ALTER TABLE "workspace_settings" ADD COLUMN "weekly_digest" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "workspace_settings" ADD COLUMN "leaderboard_amounts" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "kudos_reactions" ADD CONSTRAINT "kudos_reactions_kudos_id_kudos_id_fk" FOREIGN KEY ("kudos_id") REFERENCES "public"."kudos"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "health_warnings_team_kind_subject_uq" ON "health_warnings" USING btree ("team_id","kind","subject");--> statement-breakpoint
CREATE INDEX "health_warnings_open_idx" ON "health_warnings" USING btree ("team_id","resolved_at");--> statement-breakpoint
CREATE UNIQUE INDEX "home_visits_team_user_uq" ON "home_visits" USING btree ("team_id","user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "kudos_reactions_uq" ON "kudos_reactions" USING btree ("kudos_id","user_id");--> statement-breakpoint
CREATE INDEX "kudos_reactions_team_idx" ON "kudos_reactions" USING btree ("team_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "stats_opt_outs_uq" ON "stats_opt_outs" USING btree ("team_id","user_id");