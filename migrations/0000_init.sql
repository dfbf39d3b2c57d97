CREATE TABLE "kudos" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"team_id" text NOT NULL,
	"enterprise_id" text,
	"sender_user_id" text NOT NULL,
	"sender_name" text NOT NULL,
	"origin_channel_id" text,
	"source_view_id" text,
	"recipients" jsonb NOT NULL,
	"recipient_count" integer NOT NULL,
	"slack_usergroup_id" text,
	"recipient_group_id" text,
	"recipient_group_name" text,
	"product_id" text NOT NULL,
	"design_name" text NOT NULL,
	"amount_cents" integer NOT NULL,
	"total_cents" integer NOT NULL,
	"currency" text DEFAULT 'USD' NOT NULL,
	"message" text DEFAULT '' NOT NULL,
	"refund_option_days" integer,
	"scheduled_at" timestamp with time zone,
	"schedule_timezone" text,
	"schedule_local" text,
	"status" text DEFAULT 'pending' NOT NULL,
	"idempotency_key" uuid DEFAULT gen_random_uuid() NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"claimed_until" timestamp with time zone,
	"claimed_by" text,
	"order_id" text,
	"order_status" text,
	"cost_cents" integer,
	"cost_currency" text,
	"error_code" text,
	"error_message" text,
	"announcement_channel" text,
	"announcement_ts" text,
	"confirmation_channel" text,
	"confirmation_ts" text,
	"notified_at" timestamp with time zone,
	"canceled_by" text,
	"canceled_at" timestamp with time zone,
	"placed_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "recipient_mappings" (
	"team_id" text NOT NULL,
	"enterprise_id" text,
	"slack_user_id" text NOT NULL,
	"recipient_id" text NOT NULL,
	"email" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "audit_events" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"team_id" text NOT NULL,
	"enterprise_id" text,
	"actor_user_id" text NOT NULL,
	"action" text NOT NULL,
	"subject_type" text NOT NULL,
	"subject_id" text NOT NULL,
	"details" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "kudos_idempotency_key_uq" ON "kudos" USING btree ("idempotency_key");--> statement-breakpoint
CREATE UNIQUE INDEX "kudos_source_view_uq" ON "kudos" USING btree ("team_id","source_view_id");--> statement-breakpoint
CREATE INDEX "kudos_work_idx" ON "kudos" USING btree ("status","next_attempt_at") WHERE "kudos"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "kudos_team_sender_idx" ON "kudos" USING btree ("team_id","sender_user_id","status");--> statement-breakpoint
CREATE INDEX "kudos_order_idx" ON "kudos" USING btree ("order_id");--> statement-breakpoint
CREATE UNIQUE INDEX "recipient_mappings_team_user_uq" ON "recipient_mappings" USING btree ("team_id","slack_user_id");--> statement-breakpoint
CREATE INDEX "recipient_mappings_team_recipient_idx" ON "recipient_mappings" USING btree ("team_id","recipient_id");--> statement-breakpoint
CREATE INDEX "audit_events_subject_idx" ON "audit_events" USING btree ("subject_type","subject_id");