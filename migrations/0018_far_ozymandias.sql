CREATE TABLE "workflow_step_runs" (
	"function_execution_id" text PRIMARY KEY NOT NULL,
	"team_id" text NOT NULL,
	"enterprise_id" text,
	"kudos_id" uuid NOT NULL,
	"token" text,
	"status" text DEFAULT 'waiting' NOT NULL,
	"outcome" text,
	"claimed_until" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
CREATE INDEX "workflow_step_runs_waiting_idx" ON "workflow_step_runs" USING btree ("status","created_at");