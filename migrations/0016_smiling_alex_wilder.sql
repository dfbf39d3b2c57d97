ALTER TABLE "reward_link_requests" ADD COLUMN "approval_reason" text;--> statement-breakpoint
ALTER TABLE "reward_link_requests" ADD COLUMN "approval_messages" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "reward_link_requests" ADD COLUMN "decided_by" text;--> statement-breakpoint
ALTER TABLE "reward_link_requests" ADD COLUMN "decided_at" timestamp with time zone;