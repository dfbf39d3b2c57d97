// Who books the next slot of an account's rate budget in this process: at most `capacity()` requests
// hold a booked slot at once, and the others wait here, workspaces in turn (round robin: each
// workspace's oldest waiter, then the next workspace's, ...). So a workspace with a backlog of
// thousands of sends never holds another workspace's single kudos behind it: that kudos waits for
// one turn, not for the backlog.
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
  /** Waits for a turn; resolves with the function that gives it back. Rejects with the signal's reason. */
  enter(workspace: string, signal?: AbortSignal): Promise<() => void>;
}

export function createWorkspaceTurns(capacity: () => number): WorkspaceTurns {
  const queues = new Map<string, Waiter[]>();
  // Workspaces with waiters, the next to be served first; a served workspace goes to the back.
  const rotation: string[] = [];
  let holding = 0;

  function release(): void {
    holding -= 1;
    admitNext();
  }

  function admitNext(): void {
    while (holding < Math.max(1, capacity()) && rotation.length > 0) {
      const workspace = rotation.shift()!;
      const queue = queues.get(workspace)!;
      const waiter = queue.shift()!;
      if (queue.length > 0) rotation.push(workspace);
      else queues.delete(workspace);
      holding += 1;
      waiter.admit();
    }
  }

  function once(fn: () => void): () => void {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      fn();
    };
  }

  return {
    enter(workspace, signal) {
      if (signal?.aborted) return Promise.reject(signal.reason as Error);
      if (rotation.length === 0 && holding < Math.max(1, capacity())) {
        holding += 1;
        return Promise.resolve(once(release));
      }
      return new Promise((resolve, reject) => {
        const onAbort = () => {
          const queue = queues.get(workspace);
          const index = queue?.indexOf(waiter) ?? -1;
          if (!queue || index < 0) return;
          queue.splice(index, 1);
          if (queue.length === 0) {
            queues.delete(workspace);
            rotation.splice(rotation.indexOf(workspace), 1);
          }
          reject(signal!.reason as Error);
        };
        const waiter: Waiter = {
          admit() {
            signal?.removeEventListener('abort', onAbort);
            resolve(once(release));
          },
        };
        const queue = queues.get(workspace);
        if (queue) queue.push(waiter);
        else {
          queues.set(workspace, [waiter]);
          rotation.push(workspace);
        }
        signal?.addEventListener('abort', onAbort, { once: true });
      });
    },
  };
}
