ALTER TABLE "kudos" ADD COLUMN "cancel_requested_by" text;--> statement-breakpoint
ALTER TABLE "kudos" ADD COLUMN "cancel_requested_at" timestamp with time zone;