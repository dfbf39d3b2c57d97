DROP INDEX "kudos_work_idx";--> statement-breakpoint
ALTER TABLE "order_checks" ADD COLUMN "watch_from" timestamp with time zone DEFAULT now() NOT NULL;--> statement-breakpoint
CREATE INDEX "kudos_work_idx" ON "kudos" USING btree ("next_attempt_at") WHERE "kudos"."status" in ('pending', 'unknown') or ("kudos"."status" in ('placed', 'scheduled', 'failed') and "kudos"."notified_at" is null);