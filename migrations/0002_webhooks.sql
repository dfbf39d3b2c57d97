CREATE TABLE "order_checks" (
	"order_id" text PRIMARY KEY NOT NULL,
	"team_id" text,
	"enterprise_id" text,
	"kudos_id" uuid,
	"reward_link_request_id" uuid,
	"source" text NOT NULL,
	"last_status" text,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_check_at" timestamp with time zone DEFAULT now() NOT NULL,
	"claimed_until" timestamp with time zone,
	"claimed_by" text,
	"done_at" timestamp with time zone,
	"error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "webhook_events" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"team_id" text,
	"enterprise_id" text,
	"event_id" text NOT NULL,
	"event_type" text NOT NULL,
	"body" jsonb NOT NULL,
	"created_at" timestamp with time zone,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL,
	"processed_at" timestamp with time zone,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"claimed_until" timestamp with time zone,
	"outcome" text,
	"error" text
);
--> statement-breakpoint
CREATE TABLE "bounced_recipients" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"team_id" text NOT NULL,
	"enterprise_id" text,
	"kudos_id" uuid NOT NULL,
	"order_id" text NOT NULL,
	"sender_user_id" text NOT NULL,
	"email" text NOT NULL,
	"name" text DEFAULT '' NOT NULL,
	"slack_user_id" text,
	"recipient_id" text,
	"confirmed" boolean DEFAULT true NOT NULL,
	"status" text DEFAULT 'open' NOT NULL,
	"corrected_email" text,
	"dm_channel" text,
	"dm_ts" text,
	"resent_by" text,
	"resent_at" timestamp with time zone,
	"error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "notifications" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"team_id" text,
	"enterprise_id" text,
	"kind" text NOT NULL,
	"subject" text NOT NULL,
	"channel" text,
	"ts" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"posted_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "reward_link_requests" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"team_id" text NOT NULL,
	"enterprise_id" text,
	"requester_user_id" text NOT NULL,
	"product_id" text NOT NULL,
	"design_name" text NOT NULL,
	"quantity" integer NOT NULL,
	"amount_cents" integer NOT NULL,
	"idempotency_key" uuid DEFAULT gen_random_uuid() NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"order_ids" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"claimed_until" timestamp with time zone,
	"error_code" text,
	"error_message" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "order_checks_due_idx" ON "order_checks" USING btree ("next_check_at") WHERE "order_checks"."done_at" is null;--> statement-breakpoint
CREATE INDEX "order_checks_kudos_idx" ON "order_checks" USING btree ("kudos_id");--> statement-breakpoint
CREATE UNIQUE INDEX "webhook_events_event_id_uq" ON "webhook_events" USING btree ("event_id");--> statement-breakpoint
CREATE INDEX "webhook_events_pending_idx" ON "webhook_events" USING btree ("next_attempt_at") WHERE "webhook_events"."processed_at" is null;--> statement-breakpoint
CREATE INDEX "webhook_events_processed_idx" ON "webhook_events" USING btree ("processed_at");--> statement-breakpoint
CREATE UNIQUE INDEX "bounced_recipients_order_email_uq" ON "bounced_recipients" USING btree ("order_id","email");--> statement-breakpoint
CREATE INDEX "bounced_recipients_kudos_idx" ON "bounced_recipients" USING btree ("kudos_id");--> statement-breakpoint
CREATE UNIQUE INDEX "notifications_kind_subject_uq" ON "notifications" USING btree ("kind","subject");--> statement-breakpoint
CREATE UNIQUE INDEX "reward_link_requests_key_uq" ON "reward_link_requests" USING btree ("idempotency_key");--> statement-breakpoint
CREATE INDEX "reward_link_requests_status_idx" ON "reward_link_requests" USING btree ("status");