import { type Clock, createClock } from '../clock.js';
import type { EmulatorConfig } from '../config.js';
import { JobQueue } from '../jobs.js';
import { AddressBookService } from './addressbook.js';
import { AuthState, type EnvName } from './auth.js';
import { BalanceLedger } from './balance-ledger.js';
import { CampaignsService } from './campaigns.js';
import { Catalog } from './catalog.js';
import { seedEnv } from './env.js';
import { ExchangeRates } from './exchange-rates.js';
import { Faults } from './faults.js';
import type { EnvState } from './model.js';
import { OrdersService } from './orders.js';
import { Outbox } from './outbox.js';
import { RateLimiter } from './rate-limit.js';
import { TemplatesService } from './templates.js';
import { Webhooks } from './webhooks.js';

/**
 * Everything the emulator knows, apart from HTTP. Services (orders, campaigns...) read and change
 * it; `reset` returns it to the seed. Issued tokens survive a reset (the apps are the same).
 */
export class EmulatorCore {
  readonly clock: Clock;
  readonly jobs: JobQueue;
  readonly catalog = new Catalog();
  readonly exchangeRates = new ExchangeRates();
  readonly ledger: BalanceLedger;
  readonly auth: AuthState;
  readonly faults = new Faults();
  readonly rateLimiter: RateLimiter;
  readonly orders = new OrdersService(this);
  readonly campaigns = new CampaignsService(this);
  readonly templates = new TemplatesService(this);
  readonly addressBook = new AddressBookService(this);
  envs!: Record<EnvName, EnvState>;
  outbox!: Outbox;
  webhooks!: Webhooks;

  constructor(readonly config: EmulatorConfig) {
    this.clock = createClock();
    this.jobs = new JobQueue(this.clock, (label, err) => console.error(`[emulator] job ${label} failed:`, err));
    this.ledger = new BalanceLedger(this.clock);
    this.auth = new AuthState(config, this.clock);
    this.rateLimiter = new RateLimiter(this.clock, config.rateLimit, config.rateWindowSeconds);
    this.reset();
  }

  reset(): void {
    this.clock.reset();
    this.jobs.clear();
    this.faults.clear();
    this.rateLimiter.clear();
    this.catalog.restore();
    this.exchangeRates.restore();
    const now = this.clock.nowMs();
    this.envs = {
      sandbox: seedEnv('sandbox', now, this.ledger),
      production: seedEnv('production', now, this.ledger),
    };
    this.outbox = new Outbox();
    this.webhooks = new Webhooks(this.clock, this.jobs, this.config.signingSecret);
  }

  env(name: EnvName): EnvState {
    return this.envs[name];
  }
}
