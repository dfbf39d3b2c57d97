CREATE INDEX "workspace_settings_updated_at_idx" ON "workspace_settings" USING btree ("updated_at");--> statement-breakpoint
CREATE INDEX "installations_updated_at_idx" ON "installations" USING btree ("updated_at");--> statement-breakpoint
CREATE INDEX "rewards_connections_updated_at_idx" ON "rewards_connections" USING btree ("updated_at");