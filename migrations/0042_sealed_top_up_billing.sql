ALTER TABLE "top_up_requests" ALTER COLUMN "billing" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "top_up_requests" ADD COLUMN "billing_sealed" text;--> statement-breakpoint
CREATE INDEX "top_up_requests_plain_billing_idx" ON "top_up_requests" USING btree ("id") WHERE "top_up_requests"."billing" is not null;