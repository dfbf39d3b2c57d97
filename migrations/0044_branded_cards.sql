CREATE TABLE "people_countries" (
	"team_id" text NOT NULL,
	"enterprise_id" text,
	"slack_user_id" text NOT NULL,
	"country_code" text NOT NULL,
	"source" text NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "kudos" ADD COLUMN "card_type" text DEFAULT 'CHOICE_CARD' NOT NULL;--> statement-breakpoint
ALTER TABLE "kudos" ADD COLUMN "face_currency" text;--> statement-breakpoint
ALTER TABLE "kudos" ADD COLUMN "face_cents" integer;--> statement-breakpoint
ALTER TABLE "kudos" ADD COLUMN "usd_basis" text;--> statement-breakpoint
ALTER TABLE "reward_link_requests" ADD COLUMN "card_type" text DEFAULT 'CHOICE_CARD' NOT NULL;--> statement-breakpoint
ALTER TABLE "reward_link_requests" ADD COLUMN "face_currency" text;--> statement-breakpoint
ALTER TABLE "reward_link_requests" ADD COLUMN "face_cents" integer;--> statement-breakpoint
ALTER TABLE "reward_link_requests" ADD COLUMN "cost_cents" integer;--> statement-breakpoint
ALTER TABLE "workspace_settings" ADD COLUMN "default_country" text;--> statement-breakpoint
ALTER TABLE "workspace_settings" ADD COLUMN "country_profile_field_id" text;--> statement-breakpoint
ALTER TABLE "celebration_rules" ADD COLUMN "card_type" text DEFAULT 'CHOICE_CARD' NOT NULL;--> statement-breakpoint
ALTER TABLE "celebration_rules" ADD COLUMN "currency" text DEFAULT 'USD' NOT NULL;--> statement-breakpoint
ALTER TABLE "recurring_series" ADD COLUMN "card_type" text DEFAULT 'CHOICE_CARD' NOT NULL;--> statement-breakpoint
ALTER TABLE "recurring_series" ADD COLUMN "currency" text DEFAULT 'USD' NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "people_countries_team_user_uq" ON "people_countries" USING btree ("team_id","slack_user_id");