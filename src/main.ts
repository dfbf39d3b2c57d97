// `npm start`: the production server, configured from the environment (the README's configuration table).
import { startApp } from './app.js';
import { ConfigError, loadConfig } from './config/index.js';
import { createLogger } from './config/logger.js';

const logger = createLogger();
let config;
try {
  config = loadConfig();
} catch (error) {
  if (error instanceof ConfigError) {
    for (const problem of error.problems) console.error(`config: ${problem}`);
    process.exit(1);
  }
  throw error;
}

const app = await startApp({ config, logger }).catch((error: unknown) => {
  logger.error('start-up failed', { error });
  process.exit(1);
});

let stopping = false;
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    logger.info('stopping', { signal });
    // Hard limit: whatever happens, exit within 10 s.
    setTimeout(() => process.exit(1), 10_000).unref();
    app.close().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error('stop failed', { error });
        process.exit(1);
      },
    );
  });
}
