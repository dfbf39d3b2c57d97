// One app instance of the scale benchmark's fleet (bench/scale.ts) in a process of its own, started
// as src/main.ts starts the app (configured from the environment, stopped by SIGTERM), with the rate
// budget variant the run compares: BENCH_RATE_BUDGET is the budget's options as JSON, or `off` (each
// client pacing itself). Every variant, the measured one included, runs through this one script.
import { startApp } from '../src/app.js';
import { loadConfig } from '../src/config/index.js';
import { createLogger } from '../src/config/logger.js';
import type { RateBudgetOptions } from '../src/domain/pacing/rewards-rate-budget.js';

const variant = process.env.BENCH_RATE_BUDGET ?? '{}';
// JSON has no Infinity: a null backlogAheadMs is the booking with no horizon (the baseline before it).
const rateBudget =
  variant === 'off'
    ? false
    : (JSON.parse(variant, (key, value: unknown) =>
        key === 'backlogAheadMs' && value === null ? Infinity : value,
      ) as RateBudgetOptions);
const logger = createLogger();
const app = await startApp({ config: loadConfig(), logger, tuning: { rateBudget } });

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    setTimeout(() => process.exit(1), 10_000).unref();
    app.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}
