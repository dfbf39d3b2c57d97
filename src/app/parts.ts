// The running app is a list of parts, each started in turn; close() stops them in reverse.
import type { Logger } from '../config/logger.js';
import { stopWithin } from '../lib/stop-within.js';

/** One part of the running app: what it does when the app closes, each step optional. */
export interface AppPart {
  /** At once, before any part stops: stop accepting work and stop waiting (rate budgets, schedules). */
  interrupt?(): void;
  /** Ends the part's work in flight; every part's stop runs side by side. */
  stop?(): Promise<void>;
  /** Once every part has stopped: lets go of what the part holds (clients, connections). */
  release?(): Promise<void>;
}

/**
 * Stops the parts in reverse order of starting: first every interrupt, then every stop side by side
 * (a worker's grace and the passes in flight must all end well inside main.ts's 10 s hard limit), then
 * every release one after another.
 */
export async function stopParts(parts: readonly AppPart[]): Promise<void> {
  const reversed = [...parts].reverse();
  for (const part of reversed) part.interrupt?.();
  await Promise.all(reversed.map((part) => part.stop?.() ?? Promise.resolve()));
  for (const part of reversed) await part.release?.();
}

/** How long close() waits for a pass to stop (a pass in flight: the worker's default grace, so they end together). */
const PASS_STOP_BOUND_MS = 6000;

/**
 * Stops named passes side by side, each within PASS_STOP_BOUND_MS. A pass still running past its bound
 * is left (the database closes under it; its work is done again by the next pass of any instance), so
 * close() ends in time and in order.
 */
export async function stopPassesWithin(
  passes: Record<string, { stop(): Promise<void> } | undefined>,
  logger: Logger,
): Promise<void> {
  await Promise.all(
    Object.entries(passes).map(([name, pass]) =>
      stopWithin(pass?.stop(), PASS_STOP_BOUND_MS, () =>
        logger.warn('a part did not stop in time; closing without it', { part: name }),
      ),
    ),
  );
}
