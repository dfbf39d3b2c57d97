ALTER TABLE "home_visits" ADD COLUMN "flash" text;--> statement-breakpoint
ALTER TABLE "home_visits" ADD COLUMN "flash_until" timestamp with time zone;