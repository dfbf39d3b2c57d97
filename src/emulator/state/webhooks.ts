import { createHmac, randomBytes } from 'node:crypto';

import type { Clock } from '../clock.js';
import { newId } from '../ids.js';
import type { JobQueue } from '../jobs.js';
import { isoNoOffset, isoUtc } from '../time.js';

/** Event types the emulator knows; only these may be subscribed. */
export const EVENT_TYPES = ['order.created', 'balance.ach_approved', 'balance.ach_rejected'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** Delays before the 2nd..5th attempt (spec part 6). */
export const RETRY_DELAYS_S = [60, 5 * 60, 30 * 60, 2 * 3600] as const;
export const MAX_ATTEMPTS = RETRY_DELAYS_S.length + 1;
export const DELIVERY_TIMEOUT_MS = 5000;

export interface DeliveryAttempt {
  eventId: string;
  eventType: string;
  attempt: number;
  /** HTTP status of the receiver's answer, or 'timeout' / 'network_error'. */
  status: number | 'timeout' | 'network_error';
  ok: boolean;
  /** True on the last failed attempt: the delivery is marked failed. */
  failed: boolean;
  url: string;
  at: string;
}

interface Registration {
  url: string;
  events: ReadonlySet<string>;
  active: boolean;
}

export function signBody(rawBody: string, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(rawBody).digest('hex')}`;
}

export class Webhooks {
  private registration: Registration | undefined;
  private readonly attempts: DeliveryAttempt[] = [];

  constructor(
    private readonly clock: Clock,
    private readonly jobs: JobQueue,
    private readonly secret: string,
  ) {}

  current(): { url: string; events: string[]; active: boolean } | null {
    const r = this.registration;
    return r ? { url: r.url, events: [...r.events], active: r.active } : null;
  }

  deliveries(): readonly DeliveryAttempt[] {
    return this.attempts;
  }

  /** The portal's registration: posts the challenge; the endpoint is active if it echoes the token. */
  async register(url: string, events: readonly string[] | undefined): Promise<{ active: boolean }> {
    const challengeToken = randomBytes(16).toString('hex');
    const raw = JSON.stringify({ challengeToken });
    let active = false;
    try {
      const res = await post(url, raw, this.secret);
      if (res.status === 200) {
        const body = JSON.parse(res.text) as unknown;
        active =
          typeof body === 'object' &&
          body !== null &&
          (body as { challengeToken?: unknown }).challengeToken === challengeToken;
      }
    } catch {
      active = false;
    }
    this.registration = { url, events: new Set(events && events.length > 0 ? events : EVENT_TYPES), active };
    return { active };
  }

  /** Queues an event for delivery now (and its retries later) if an active registration wants it. */
  emit(eventType: EventType, data: Record<string, unknown>): void {
    const reg = this.registration;
    if (!reg || !reg.active || !reg.events.has(eventType)) return;
    const envelope = { eventId: newId.event(), eventType, createdAt: isoNoOffset(this.clock.nowMs()), data };
    // The body is fixed once: every attempt carries the same bytes, eventId and signature.
    const raw = JSON.stringify(envelope);
    this.jobs.schedule(this.clock.nowMs(), `webhook ${envelope.eventId} #1`, () =>
      this.attempt(reg.url, envelope.eventId, eventType, raw, 1),
    );
  }

  private async attempt(url: string, eventId: string, eventType: string, raw: string, attempt: number): Promise<void> {
    let status: DeliveryAttempt['status'];
    try {
      status = (await post(url, raw, this.secret)).status;
    } catch (err) {
      status = isTimeout(err) ? 'timeout' : 'network_error';
    }
    const ok = typeof status === 'number' && status >= 200 && status < 300;
    const failed = !ok && attempt >= MAX_ATTEMPTS;
    this.attempts.push({ eventId, eventType, attempt, status, ok, failed, url, at: isoUtc(this.clock.nowMs()) });
    if (!ok && attempt < MAX_ATTEMPTS) {
      const delay = RETRY_DELAYS_S[attempt - 1]!;
      this.jobs.schedule(this.clock.nowMs() + delay * 1000, `webhook ${eventId} #${attempt + 1}`, () =>
        this.attempt(url, eventId, eventType, raw, attempt + 1),
      );
    }
  }
}

async function post(url: string, raw: string, secret: string): Promise<{ status: number; text: string }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-Service-Signature': signBody(raw, secret) },
    body: raw,
    signal: AbortSignal.timeout(DELIVERY_TIMEOUT_MS),
    redirect: 'manual',
  });
  const text = await res.text();
  return { status: res.status, text };
}

function isTimeout(err: unknown): boolean {
  const name = (err as { name?: string } | null)?.name;
  const causeName = (err as { cause?: { name?: string } } | null)?.cause?.name;
  return name === 'TimeoutError' || causeName === 'TimeoutError' || name === 'AbortError';
}
