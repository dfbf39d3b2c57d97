CREATE TABLE "company_values" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"team_id" text NOT NULL,
	"enterprise_id" text,
	"name" text NOT NULL,
	"emoji" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"revision" integer DEFAULT 1 NOT NULL,
	"created_by" text NOT NULL,
	"updated_by" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "kudos" ADD COLUMN "value_id" uuid;--> statement-breakpoint
ALTER TABLE "kudos" ADD COLUMN "value_name" text;--> statement-breakpoint
ALTER TABLE "kudos" ADD COLUMN "value_emoji" text;--> statement-breakpoint
ALTER TABLE "workspace_settings" ADD COLUMN "values_required" boolean DEFAULT false NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "company_values_team_name_uq" ON "company_values" USING btree ("team_id",lower("name"));--> statement-breakpoint
CREATE INDEX "kudos_team_value_idx" ON "kudos" USING btree ("team_id","value_id") WHERE "kudos"."value_id" is not null;