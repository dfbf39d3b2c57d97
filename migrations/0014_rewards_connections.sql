CREATE TABLE "rewards_connections" (
	"id" text PRIMARY KEY NOT NULL,
	"team_id" text NOT NULL,
	"enterprise_id" text,
	"client_id" text NOT NULL,
	"client_secret" text,
	"webhook_secret" text,
	"status" text NOT NULL,
	"connected_by" text NOT NULL,
	"connected_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "webhook_events" ADD COLUMN "connection_id" text;--> statement-breakpoint
CREATE UNIQUE INDEX "rewards_connections_team_uq" ON "rewards_connections" USING btree ("team_id");