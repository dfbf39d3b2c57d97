CREATE TABLE "slack_call_schedules" (
	"team_id" text NOT NULL,
	"key" text NOT NULL,
	"next_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"blocked_until" timestamp (3) with time zone,
	"rate_limited" integer DEFAULT 0 NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "slack_call_schedules_team_id_key_pk" PRIMARY KEY("team_id","key")
);
--> statement-breakpoint
CREATE INDEX "slack_call_schedules_updated_at" ON "slack_call_schedules" USING btree ("updated_at");