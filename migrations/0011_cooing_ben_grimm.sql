ALTER TABLE "bounced_recipients" ADD COLUMN "claimed_until" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "bounced_recipients" ADD COLUMN "attempts" integer DEFAULT 0 NOT NULL;