// Slack gives 3 seconds (and a trigger_id lives 3 seconds): lookups that only make a view nicer
// get a budget, after which the caller goes on without them.
export async function withinBudget<T, F>(work: Promise<T>, budgetMs: number, fallback: F): Promise<T | F> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<F>((resolve) => {
    timer = setTimeout(() => resolve(fallback), budgetMs);
  });
  work.catch(() => {}); // a late failure must not become an unhandled rejection
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Lookups made before opening a modal (the trigger_id expires 3 s after the click). */
export const OPEN_LOOKUP_BUDGET_MS = 800;
