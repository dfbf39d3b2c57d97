// Waiting for a part of the app to stop, within a bound: close() must end before main.ts's hard stop
// whatever a background pass in flight is waiting for.

/**
 * Waits for `stopping` (its failure counts as stopped: the part is done either way) at most `ms`;
 * past that, calls `onLate` and returns, leaving the part to end on its own.
 */
export async function stopWithin(
  stopping: Promise<unknown> | undefined,
  ms: number,
  onLate: () => void,
): Promise<void> {
  if (!stopping) return;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), ms);
    timer.unref();
  });
  const outcome = await Promise.race([
    stopping.then(
      () => 'stopped' as const,
      () => 'stopped' as const,
    ),
    late,
  ]);
  clearTimeout(timer);
  if (outcome === 'late') onLate();
}
