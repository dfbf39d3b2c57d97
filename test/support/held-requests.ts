// Requests the Rewards emulator holds under a delay fault (GET /_emulator/faults answers `held`). A
// client that timed out has moved on while the emulator still applies its request when the delay
// ends: a test counts orders (or the balance) only once none is held.
import { eventually } from './app.js';

/** How many requests a delay fault of the emulator at `emulatorUrl` holds now. */
export async function heldRequests(emulatorUrl: string): Promise<number> {
  const res = await fetch(`${emulatorUrl}/_emulator/faults`);
  if (!res.ok) throw new Error(`emulator GET /_emulator/faults answered ${res.status}`);
  return ((await res.json()) as { held: number }).held;
}

/** Resolves once every request a delay fault held has been applied (or refused); `timeoutMs` only guards a hang. */
export async function untilNoneHeld(emulatorUrl: string, timeoutMs = 30_000): Promise<void> {
  await eventually(async () => (await heldRequests(emulatorUrl)) === 0, timeoutMs);
}
