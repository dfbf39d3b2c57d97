CREATE TABLE "campaigns" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"team_id" text NOT NULL,
	"enterprise_id" text,
	"name" text NOT NULL,
	"product_id" text NOT NULL,
	"design_name" text NOT NULL,
	"min_cents" integer NOT NULL,
	"max_cents" integer NOT NULL,
	"default_cents" integer NOT NULL,
	"template_id" text,
	"template_name" text,
	"sender_name" text,
	"subject" text,
	"status" text DEFAULT 'creating' NOT NULL,
	"api_name" text NOT NULL,
	"api_campaign_id" text,
	"api_attempt_at" timestamp with time zone,
	"source_view_id" text,
	"created_by" text NOT NULL,
	"updated_by" text,
	"archived_by" text,
	"archived_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "kudos" ADD COLUMN "campaign_id" uuid;--> statement-breakpoint
ALTER TABLE "kudos" ADD COLUMN "email_template_id" text;--> statement-breakpoint
ALTER TABLE "kudos" ADD COLUMN "email_sender_name" text;--> statement-breakpoint
ALTER TABLE "kudos" ADD COLUMN "email_subject" text;--> statement-breakpoint
CREATE UNIQUE INDEX "campaigns_source_view_uq" ON "campaigns" USING btree ("team_id","source_view_id");--> statement-breakpoint
CREATE UNIQUE INDEX "campaigns_live_name_uq" ON "campaigns" USING btree ("team_id",lower("name")) WHERE "campaigns"."status" <> 'archived';--> statement-breakpoint
CREATE INDEX "campaigns_team_status_idx" ON "campaigns" USING btree ("team_id","status");--> statement-breakpoint
CREATE INDEX "kudos_team_campaign_idx" ON "kudos" USING btree ("team_id","campaign_id") WHERE "kudos"."campaign_id" is not null;