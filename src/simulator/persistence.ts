// Keeps the simulated workspace (messages, Home tabs) in a JSON file so that a second `npm run dev`
// shows the same Slack history as the app's database remembers. Writes are debounced and atomic.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

import { z } from 'zod';

import type { PersistedState, SimulatorState } from './state.js';

const Saved = z.object({
  version: z.literal(1),
  messages: z.array(
    z.looseObject({ channel: z.string(), ts: z.string(), user: z.string(), text: z.string(), ephemeral: z.boolean() }),
  ),
  homes: z.array(
    z.object({
      userId: z.string(),
      view: z.looseObject({
        id: z.string(),
        type: z.enum(['modal', 'home']),
        blocks: z.array(z.record(z.string(), z.unknown())),
      }),
    }),
  ),
  lastTsMicros: z.number(),
  counter: z.number(),
});

/** Loads `file` into the state (a missing or unreadable file starts empty) and saves every change to it. */
export function persistTo(state: SimulatorState, file: string): { flush(): void; stop(): void } {
  if (existsSync(file)) {
    try {
      const parsed = Saved.safeParse(JSON.parse(readFileSync(file, 'utf8')));
      if (parsed.success) state.restore(parsed.data as unknown as PersistedState);
    } catch {
      // A corrupt file is ignored: the workspace starts empty and the next change overwrites it.
    }
  }
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    mkdirSync(dirname(file), { recursive: true });
    const tmp = `${file}.tmp`;
    writeFileSync(tmp, JSON.stringify(state.snapshot()));
    renameSync(tmp, file);
  };
  const off = state.onChange(() => {
    timer ??= setTimeout(flush, 300);
  });
  return {
    flush,
    stop: () => {
      off();
      if (timer) flush();
    },
  };
}
