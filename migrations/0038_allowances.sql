CREATE TABLE "sender_allowances" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"team_id" text NOT NULL,
	"enterprise_id" text,
	"subject_kind" text NOT NULL,
	"subject_id" text NOT NULL,
	"allowance_cents" integer,
	"updated_by" text,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "workspace_settings" ADD COLUMN "over_allowance" text DEFAULT 'approval' NOT NULL;--> statement-breakpoint
ALTER TABLE "workspace_settings" ADD COLUMN "card_senders" text DEFAULT 'everyone' NOT NULL;--> statement-breakpoint
ALTER TABLE "workspace_settings" ADD COLUMN "sender_usergroup_id" text;--> statement-breakpoint
CREATE UNIQUE INDEX "sender_allowances_subject_uq" ON "sender_allowances" USING btree ("team_id","subject_kind","subject_id");