DROP INDEX "kudos_work_idx";--> statement-breakpoint
ALTER TABLE "notifications" ADD COLUMN "dm_user_id" text;--> statement-breakpoint
ALTER TABLE "notifications" ADD COLUMN "thread_ts" text;--> statement-breakpoint
ALTER TABLE "notifications" ADD COLUMN "message" jsonb;--> statement-breakpoint
ALTER TABLE "notifications" ADD COLUMN "claimed_until" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "notifications" ADD COLUMN "attempted_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "notifications" ADD COLUMN "attempts" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "notifications" ADD COLUMN "failed_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "notifications" ADD COLUMN "error" text;--> statement-breakpoint
CREATE INDEX "notifications_unposted_idx" ON "notifications" USING btree ("claimed_until") WHERE "notifications"."posted_at" is null and "notifications"."failed_at" is null;--> statement-breakpoint
CREATE INDEX "kudos_work_idx" ON "kudos" USING btree ("next_attempt_at") WHERE "kudos"."status" = 'pending' or ("kudos"."status" in ('placed', 'scheduled', 'failed') and "kudos"."notified_at" is null);