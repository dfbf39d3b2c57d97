// Who gets this process's next booked slot of an account's rate budget: workspaces in turn. The
// slots this process booked in the shared schedule are given out in the order they come due to
// whichever request is next by workspace, round robin (each workspace's oldest waiter, then the next
// workspace's, ...), not to the request that booked them; a workspace that had nothing waiting goes
// first (its single kudos is not held behind a backlog's turn). So a workspace with a backlog of
// thousands never holds another workspace's single kudos behind it: that kudos takes this process's
// next slot, and the backlog's request takes a later one.
//
// A waiter either brings the slot it booked (`wait`), or comes without one (`enqueue`, a backlog's
// request: rewards-rate-budget.ts books its slots a little ahead only, see `unslotted`).
import { AsyncLocalStorage } from 'node:async_hooks';

const workspaceOfCall = new AsyncLocalStorage<string>();

/** Runs `work` with its Rewards requests counted as `teamId`'s in the budget's turns. */
export function asWorkspace<T>(teamId: string, work: () => Promise<T>): Promise<T> {
  return workspaceOfCall.run(teamId, work);
}

/** The workspace whose work is running ('' outside any: a request from Slack, a background pass). */
export function currentWorkspace(): string {
  return workspaceOfCall.getStore() ?? '';
}

interface Waiter {
  admit(): void;
}

export interface WorkspaceTurns {
  /**
   * Adds the slot the caller booked (epoch ms) to this process's slots and waits until a slot is
   * given to it, in its workspace's turn. Rejects with the signal's reason (its slot goes to the next).
   */
  wait(workspace: string, slotAt: number, signal?: AbortSignal): Promise<void>;
  /** Waits, like `wait`, for a slot that someone else books (`addSlot`). */
  enqueue(workspace: string, signal?: AbortSignal): Promise<void>;
  /** A slot (epoch ms) booked for the waiters that came without one. */
  addSlot(slotAt: number): void;
  /** Waiters beyond the slots booked: how many slots are still to be booked. */
  unslotted(): number;
}

export function createWorkspaceTurns(): WorkspaceTurns {
  const slots: number[] = []; // ascending
  const queues = new Map<string, Waiter[]>();
  let waiters = 0;
  // Workspaces with waiters, the next to be served first; a served workspace goes to the back.
  const rotation: string[] = [];
  let timer: NodeJS.Timeout | undefined;
  let timerAt = 0;

  function arm(): void {
    if (slots.length === 0) {
      if (timer) clearTimeout(timer);
      timer = undefined;
      return;
    }
    const at = slots[0]!;
    if (timer && timerAt === at) return;
    if (timer) clearTimeout(timer);
    timerAt = at;
    timer = setTimeout(fire, Math.max(0, at - Date.now()));
  }

  function fire(): void {
    timer = undefined;
    const now = Date.now();
    while (slots.length > 0 && slots[0]! <= now) {
      slots.shift();
      admitNext(); // no one waiting (they gave up): the slot goes unused
    }
    arm();
  }

  function admitNext(): void {
    const workspace = rotation.shift();
    if (workspace === undefined) return;
    const queue = queues.get(workspace)!;
    const waiter = queue.shift()!;
    waiters -= 1;
    if (queue.length > 0) rotation.push(workspace);
    else queues.delete(workspace);
    waiter.admit();
  }

  function addSlot(slotAt: number): void {
    let i = slots.length;
    while (i > 0 && slots[i - 1]! > slotAt) i -= 1;
    slots.splice(i, 0, slotAt);
    arm();
  }

  function enqueue(workspace: string, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        const queue = queues.get(workspace);
        const index = queue?.indexOf(waiter) ?? -1;
        if (!queue || index < 0) return;
        queue.splice(index, 1);
        waiters -= 1;
        if (queue.length === 0) {
          queues.delete(workspace);
          rotation.splice(rotation.indexOf(workspace), 1);
        }
        reject(signal!.reason as Error);
      };
      const waiter: Waiter = {
        admit() {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      waiters += 1;
      const queue = queues.get(workspace);
      if (queue) queue.push(waiter);
      else {
        queues.set(workspace, [waiter]);
        // It had nothing waiting: served before the workspaces with a queue (after others like it).
        let at = 0;
        while (at < rotation.length && queues.get(rotation[at]!)!.length <= 1) at += 1;
        rotation.splice(at, 0, workspace);
      }
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  return {
    wait(workspace, slotAt, signal) {
      if (signal?.aborted) return Promise.reject(signal.reason as Error);
      const waiting = enqueue(workspace, signal);
      addSlot(slotAt);
      return waiting;
    },
    enqueue,
    addSlot,
    unslotted: () => waiters - slots.length,
  };
}
