ALTER TABLE "workspace_settings" ADD COLUMN "max_series_per_person" integer DEFAULT 20 NOT NULL;--> statement-breakpoint
ALTER TABLE "workspace_settings" ADD COLUMN "max_series_per_workspace" integer DEFAULT 500 NOT NULL;--> statement-breakpoint
ALTER TABLE "recurring_series" ADD COLUMN "source_view_id" text;--> statement-breakpoint
CREATE UNIQUE INDEX "recurring_series_team_view_uq" ON "recurring_series" USING btree ("team_id","source_view_id");