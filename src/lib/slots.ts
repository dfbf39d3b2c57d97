// A counting semaphore: at most `size` tasks run at once, the others wait their turn in order.
// Small enough to keep here (no package in the tree does only this).

export interface Slots {
  /** Runs `task` once a slot is free; the slot is given back when it settles. */
  run<T>(task: () => Promise<T>): Promise<T>;
}

export function createSlots(size: number): Slots {
  const limit = Math.max(1, Math.floor(size));
  let busy = 0;
  const waiting: Array<() => void> = [];
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else busy--;
  };
  return {
    async run<T>(task: () => Promise<T>): Promise<T> {
      if (busy < limit) busy++;
      else await new Promise<void>((resolve) => waiting.push(resolve));
      try {
        return await task();
      } finally {
        release();
      }
    },
  };
}
