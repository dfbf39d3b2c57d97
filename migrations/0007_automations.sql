CREATE TABLE "automation_occurrences" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"team_id" text NOT NULL,
	"enterprise_id" text,
	"key" text NOT NULL,
	"source" text NOT NULL,
	"series_id" uuid,
	"subject_user_id" text,
	"local_date" text NOT NULL,
	"due_at" timestamp with time zone NOT NULL,
	"years" integer,
	"status" text DEFAULT 'planned' NOT NULL,
	"kudos_id" uuid,
	"error" text,
	"skipped_by" text,
	"claimed_until" timestamp with time zone,
	"claimed_by" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "celebration_dates" (
	"team_id" text NOT NULL,
	"enterprise_id" text,
	"slack_user_id" text NOT NULL,
	"email" text NOT NULL,
	"birthday" text,
	"start_date" text,
	"source" text NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "celebration_preferences" (
	"team_id" text NOT NULL,
	"enterprise_id" text,
	"slack_user_id" text NOT NULL,
	"opt_out" boolean DEFAULT false NOT NULL,
	"no_public_post" boolean DEFAULT false NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "celebration_rules" (
	"team_id" text NOT NULL,
	"enterprise_id" text,
	"kind" text NOT NULL,
	"enabled" boolean DEFAULT false NOT NULL,
	"amount_cents" integer NOT NULL,
	"product_id" text NOT NULL,
	"message_template" text NOT NULL,
	"sender_user_id" text NOT NULL,
	"channel_id" text,
	"profile_field_id" text,
	"updated_by" text,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "recurring_series" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"team_id" text NOT NULL,
	"enterprise_id" text,
	"sender_user_id" text NOT NULL,
	"recipient_user_ids" jsonb NOT NULL,
	"product_id" text NOT NULL,
	"amount_cents" integer NOT NULL,
	"message" text DEFAULT '' NOT NULL,
	"cadence" text NOT NULL,
	"weekday" integer,
	"day_of_month" integer,
	"time_of_day" text NOT NULL,
	"timezone" text NOT NULL,
	"status" text DEFAULT 'active' NOT NULL,
	"starts_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "kudos" ADD COLUMN "announce_to" text;--> statement-breakpoint
CREATE UNIQUE INDEX "automation_occurrences_team_key_uq" ON "automation_occurrences" USING btree ("team_id","key");--> statement-breakpoint
CREATE INDEX "automation_occurrences_due_idx" ON "automation_occurrences" USING btree ("status","due_at");--> statement-breakpoint
CREATE UNIQUE INDEX "celebration_dates_team_user_uq" ON "celebration_dates" USING btree ("team_id","slack_user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "celebration_preferences_team_user_uq" ON "celebration_preferences" USING btree ("team_id","slack_user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "celebration_rules_team_kind_uq" ON "celebration_rules" USING btree ("team_id","kind");--> statement-breakpoint
CREATE INDEX "recurring_series_team_idx" ON "recurring_series" USING btree ("team_id","status");