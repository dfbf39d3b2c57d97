/**
 * Awaits an event a test means (a deferred promise a fake resolves), failing with `what` if it has
 * not happened within `boundMs`: a guard against a hang, not a measure, so it is generous.
 */
export async function within<T>(event: Promise<T>, what: string, boundMs = 30_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: did not happen within ${boundMs} ms`)), boundMs);
  });
  try {
    return await Promise.race([event, bound]);
  } finally {
    clearTimeout(timer);
  }
}
