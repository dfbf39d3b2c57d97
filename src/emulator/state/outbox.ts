import type { EnvName } from './auth.js';

/** Every e-mail the emulator "sent": card deliveries, resends and test e-mails. */
export interface OutboxEmail {
  kind: 'card' | 'resend' | 'test';
  environment: EnvName;
  to: string;
  bounced: boolean;
  subject: string;
  senderName: string;
  message: string | null;
  templateId: string | null;
  orderId: string | null;
  cardType: string;
  cardName: string;
  amount: number;
  currency: string;
  rewardLink: string | null;
  sentAt: string;
}

export class Outbox {
  private readonly emails: OutboxEmail[] = [];
  add(email: OutboxEmail): void {
    this.emails.push(email);
  }
  list(): readonly OutboxEmail[] {
    return this.emails;
  }
}

export const BOUNCE_DOMAIN = 'bounce.test';

export function bounces(email: string): boolean {
  return email.toLowerCase().endsWith(`@${BOUNCE_DOMAIN}`);
}
