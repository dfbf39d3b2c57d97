CREATE TABLE "learned_exchange_rates" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"team_id" text NOT NULL,
	"enterprise_id" text,
	"currency" text NOT NULL,
	"face_cents" bigint NOT NULL,
	"cost_cents" bigint NOT NULL,
	"order_id" text,
	"learned_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "learned_exchange_rates_team_currency_uq" ON "learned_exchange_rates" USING btree ("team_id","currency");