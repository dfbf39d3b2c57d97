import { startEmulator } from '../../src/emulator/server.js';

/** A started Rewards API emulator (127.0.0.1, free port) with typed access to its control routes. */
export interface TestEmulator {
  url: string;
  reset(): Promise<void>;
  advance(seconds: number): Promise<string>;
  now(): Promise<string>;
  faults(rule: {
    method?: string;
    path?: string;
    status?: number;
    delayMs?: number;
    drop?: boolean;
    count?: number;
  }): Promise<void>;
  /** The counted faults not used up yet, each with how many uses it has left. */
  faultsLeft(): Promise<Array<{ method?: string; path?: string; remaining: number }>>;
  emails(): Promise<unknown[]>;
  deliveries(): Promise<
    Array<{ eventId: string; eventType: string; attempt: number; status: number | string; at: string }>
  >;
  registerWebhook(url: string, events?: string[]): Promise<{ active: boolean }>;
  /** Extras: operator-side settings (see docs/architecture/emulator.md). */
  setBalance(amount: number, environment?: 'sandbox' | 'production'): Promise<void>;
  setLimits(
    limits: { dailyLimitUsd: number; monthlyLimitUsd: number },
    environment?: 'sandbox' | 'production',
  ): Promise<void>;
  processTopUp(fundingNo: string, outcome: 'approve' | 'reject'): Promise<void>;
  /** Extra: the provider takes a choice-card design out of the catalog (reset puts it back). */
  removeDesign(productId: string): Promise<void>;
  /** Extra: the provider takes a branded product out of the catalog (reset puts it back). */
  removeBrand(productId: string): Promise<void>;
  /** Extra: the current exchange rates (USD per unit of each currency), what branded orders are charged at. */
  exchangeRates(): Promise<Array<{ currency: string; usdPerUnit: number }>>;
  /** Extra: changes one currency's rate (reset restores the seeded rates). */
  setExchangeRate(currency: string, usdPerUnit: number): Promise<void>;
  /** Extra: a promotion, reward refund or transfer row (moves the production balance). */
  addMovement(
    kind: 'promotion' | 'rewardRefund' | 'transferSent' | 'transferReceived',
    amount: number,
    environment?: 'sandbox' | 'production',
  ): Promise<{ referenceNumber: string }>;
  close(): Promise<void>;
}

export async function startTestEmulator(env?: Record<string, string>): Promise<TestEmulator> {
  const emulator = await startEmulator({ port: 0, host: '127.0.0.1', env: env ?? {} });
  const url = emulator.url;

  async function control<T>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await fetch(`${url}/_emulator${path}`, {
      method,
      headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
      body: body === undefined ? null : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`emulator ${method} ${path} answered ${res.status}: ${text}`);
    return (text ? JSON.parse(text) : undefined) as T;
  }

  return {
    url,
    async reset() {
      await control('POST', '/reset');
    },
    async advance(seconds) {
      return (await control<{ now: string }>('POST', '/clock/advance', { seconds })).now;
    },
    async now() {
      return (await control<{ now: string }>('GET', '/clock')).now;
    },
    async faults(rule) {
      await control('POST', '/faults', rule);
    },
    async faultsLeft() {
      return (await control<{ faults: Array<{ method?: string; path?: string; remaining: number }> }>('GET', '/faults'))
        .faults;
    },
    async emails() {
      return (await control<{ emails: unknown[] }>('GET', '/emails')).emails;
    },
    async deliveries() {
      return (
        await control<{
          deliveries: Array<{
            eventId: string;
            eventType: string;
            attempt: number;
            status: number | string;
            at: string;
          }>;
        }>('GET', '/webhook/deliveries')
      ).deliveries;
    },
    async registerWebhook(webhookUrl, events) {
      return control<{ active: boolean }>(
        'PUT',
        '/webhook',
        events ? { url: webhookUrl, events } : { url: webhookUrl },
      );
    },
    async setBalance(amount, environment = 'production') {
      await control('POST', '/balance', { amount, environment });
    },
    async setLimits(limits, environment = 'production') {
      await control('POST', '/limits', { ...limits, environment });
    },
    async processTopUp(fundingNo, outcome) {
      await control('POST', `/fundings/${encodeURIComponent(fundingNo)}/process`, { outcome });
    },
    async removeDesign(productId) {
      await control('DELETE', `/catalog/choice-cards/${encodeURIComponent(productId)}`);
    },
    async removeBrand(productId) {
      await control('DELETE', `/catalog/branded-cards/${encodeURIComponent(productId)}`);
    },
    async exchangeRates() {
      return (await control<{ rates: Array<{ currency: string; usdPerUnit: number }> }>('GET', '/exchange-rates'))
        .rates;
    },
    async setExchangeRate(currency, usdPerUnit) {
      await control('PUT', '/exchange-rates', { currency, usdPerUnit });
    },
    async addMovement(kind, amount, environment = 'production') {
      return (await control<{ data: { referenceNumber: string } }>('POST', '/ledger', { kind, amount, environment }))
        .data;
    },
    close: () => emulator.close(),
  };
}
