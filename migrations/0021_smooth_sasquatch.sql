DROP INDEX "kudos_work_idx";--> statement-breakpoint
ALTER TABLE "kudos" ADD COLUMN "order_ids" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "kudos" ADD COLUMN "parts_placed" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "kudos" ADD COLUMN "parts_completed" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
CREATE INDEX "kudos_work_idx" ON "kudos" USING btree ("next_attempt_at") WHERE "kudos"."status" in ('pending', 'unknown') or ("kudos"."status" in ('placed', 'scheduled', 'failed', 'partial') and "kudos"."notified_at" is null);