ALTER TABLE "finance_state" ADD COLUMN "billing_details" text;--> statement-breakpoint
ALTER TABLE "finance_state" ADD COLUMN "billing_updated_by" text;--> statement-breakpoint
ALTER TABLE "finance_state" ADD COLUMN "billing_updated_at" timestamp with time zone;