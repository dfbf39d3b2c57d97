CREATE TABLE "recipient_creations" (
	"team_id" text NOT NULL,
	"enterprise_id" text,
	"email" text NOT NULL,
	"claimed_by" text NOT NULL,
	"claimed_until" timestamp with time zone NOT NULL,
	"recipient_id" text,
	"done_at" timestamp with time zone,
	CONSTRAINT "recipient_creations_team_id_email_pk" PRIMARY KEY("team_id","email")
);
