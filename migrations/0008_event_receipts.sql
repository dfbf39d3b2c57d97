CREATE TABLE "event_receipts" (
	"team_id" text NOT NULL,
	"event_id" text NOT NULL,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "event_receipts_team_id_event_id_pk" PRIMARY KEY("team_id","event_id")
);
--> statement-breakpoint
CREATE INDEX "event_receipts_received_idx" ON "event_receipts" USING btree ("received_at");