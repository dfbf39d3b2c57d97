CREATE TABLE "finance_state" (
	"team_id" text NOT NULL,
	"enterprise_id" text,
	"balance_state" text DEFAULT 'above' NOT NULL,
	"crossings" integer DEFAULT 0 NOT NULL,
	"last_balance_cents" bigint,
	"last_checked_at" timestamp with time zone,
	"environment" text,
	"daily_limit_cents" bigint,
	"monthly_limit_cents" bigint,
	"limits_source" text,
	"limits_updated_at" timestamp with time zone,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "limit_increase_requests" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"team_id" text NOT NULL,
	"enterprise_id" text,
	"requester_user_id" text NOT NULL,
	"current_daily_cents" bigint NOT NULL,
	"current_monthly_cents" bigint NOT NULL,
	"requested_daily_cents" bigint NOT NULL,
	"requested_monthly_cents" bigint NOT NULL,
	"status" text DEFAULT 'sending' NOT NULL,
	"message" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "top_up_requests" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"team_id" text NOT NULL,
	"enterprise_id" text,
	"requester_user_id" text NOT NULL,
	"amount_cents" bigint NOT NULL,
	"note" text DEFAULT '' NOT NULL,
	"billing" jsonb NOT NULL,
	"status" text DEFAULT 'awaiting_approval' NOT NULL,
	"decider_user_id" text,
	"decided_at" timestamp with time zone,
	"funding_no" text,
	"error_code" text,
	"error_message" text,
	"messages" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "workspace_settings" ADD COLUMN "admin_channel" text;--> statement-breakpoint
ALTER TABLE "workspace_settings" ADD COLUMN "low_balance_threshold_cents" integer;--> statement-breakpoint
CREATE UNIQUE INDEX "finance_state_team_uq" ON "finance_state" USING btree ("team_id");--> statement-breakpoint
CREATE INDEX "limit_increase_requests_team_idx" ON "limit_increase_requests" USING btree ("team_id","created_at");--> statement-breakpoint
CREATE INDEX "top_up_requests_team_idx" ON "top_up_requests" USING btree ("team_id","status");