CREATE TABLE "rewards_rate_budgets" (
	"account" text PRIMARY KEY NOT NULL,
	"limit_per_window" integer,
	"window_ms" integer,
	"interval_ms" double precision,
	"next_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"blocked_until" timestamp (3) with time zone,
	"rate_limited" integer DEFAULT 0 NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
