CREATE TABLE "workspace_settings" (
	"team_id" text NOT NULL,
	"enterprise_id" text,
	"notify_channel" text,
	"approval_channel" text,
	"approver_user_ids" jsonb,
	"approver_usergroup_id" text,
	"approval_threshold_cents" integer NOT NULL,
	"monthly_budget_cents" integer,
	"default_product_id" text,
	"default_amount_cents" integer,
	"admin_user_ids" jsonb,
	"approval_expiry_hours" integer DEFAULT 72 NOT NULL,
	"updated_by" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "approval_requests" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"team_id" text NOT NULL,
	"enterprise_id" text,
	"kudos_id" uuid NOT NULL,
	"sender_user_id" text NOT NULL,
	"status" text DEFAULT 'awaiting_approval' NOT NULL,
	"reason" text NOT NULL,
	"messages" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"posted_at" timestamp with time zone,
	"post_claimed_until" timestamp with time zone,
	"decided_by" text,
	"decided_at" timestamp with time zone,
	"reject_reason" text,
	"sent_now_instead_of" timestamp with time zone,
	"last_failure_code" text,
	"last_failure_message" text,
	"reopen_count" integer DEFAULT 0 NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "approval_requests" ADD CONSTRAINT "approval_requests_kudos_id_kudos_id_fk" FOREIGN KEY ("kudos_id") REFERENCES "public"."kudos"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "workspace_settings_team_uq" ON "workspace_settings" USING btree ("team_id");--> statement-breakpoint
CREATE UNIQUE INDEX "approval_requests_kudos_uq" ON "approval_requests" USING btree ("kudos_id");--> statement-breakpoint
CREATE INDEX "approval_requests_status_expiry_idx" ON "approval_requests" USING btree ("status","expires_at");