import { RATE_SCALE } from '../money.js';

/**
 * The seeded exchange rates: USD per one unit of each currency the seeded catalog uses, in micro-units
 * (1.0 = 1_000_000). Documented in docs/architecture/emulator.md; `PUT /_emulator/exchange-rates`
 * changes one, `POST /_emulator/reset` restores these.
 */
export const EXCHANGE_RATE_SEED: Readonly<Record<string, number>> = {
  USD: RATE_SCALE,
  EUR: 1_085_000,
  GBP: 1_270_000,
};

export interface ExchangeRateJson {
  currency: string;
  usdPerUnit: number;
}

/**
 * The organization's current exchange rates, per currency (spec 4.3: branded orders and reward links
 * are charged "converted at the product's current exchange rate"). USD is always 1.
 */
export class ExchangeRates {
  private rates = new Map<string, number>(Object.entries(EXCHANGE_RATE_SEED));

  /** The current rate of a currency in micro-units; undefined when the emulator has none. */
  microsFor(currency: string): number | undefined {
    return this.rates.get(currency);
  }

  /** Sets one currency's rate (micro-units, > 0). USD cannot be changed: false. */
  set(currency: string, micros: number): boolean {
    if (currency === 'USD') return false;
    this.rates.set(currency, micros);
    return true;
  }

  list(): ExchangeRateJson[] {
    return [...this.rates.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([currency, micros]) => ({ currency, usdPerUnit: micros / RATE_SCALE }));
  }

  restore(): void {
    this.rates = new Map(Object.entries(EXCHANGE_RATE_SEED));
  }
}
