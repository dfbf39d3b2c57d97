import { startEmulator } from './server.js';

/**
 * `npm run sandbox`: the emulator alone on ${SANDBOX_HOST:-127.0.0.1}:${SANDBOX_PORT:-4010}. The
 * container's demo profile (compose.yaml) sets SANDBOX_HOST=0.0.0.0 so that the app's container reaches it.
 */
const port = Number(process.env.SANDBOX_PORT ?? 4010);
const host = process.env.SANDBOX_HOST ?? '127.0.0.1';
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`SANDBOX_PORT must be a port number, got "${process.env.SANDBOX_PORT}"`);
  process.exit(1);
}

try {
  const emulator = await startEmulator({ port, host, env: process.env });
  console.log(`Rewards API emulator listening on ${emulator.url}`);
  console.log(
    `  token: curl -s -X POST ${emulator.url}/oauth2/token -d grant_type=client_credentials -d client_id=sandbox-client -d client_secret=sandbox-secret`,
  );
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal}: stopping the emulator`);
    emulator.close().then(
      () => process.exit(0),
      (err: unknown) => {
        console.error(err);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
} catch (err) {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
}
