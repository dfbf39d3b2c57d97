import { z } from 'zod';

import type { FaultRule } from './faults.js';

/**
 * Probabilistic faults (chaos runs): each API or token request matching `method`/`path` gets a fault
 * with `probability`, the kind drawn by weight from `kinds`. Kinds behave exactly like the counted
 * faults of /_emulator/faults: `status` answers without applying the request, `drop` applies it then
 * cuts the connection, `delayMs` alone applies it and answers late. A `seed` makes a run repeatable.
 */
const FaultKindSchema = z
  .object({
    status: z.number().int().min(100).max(599).optional(),
    delayMs: z.number().int().min(0).max(120_000).optional(),
    drop: z.boolean().optional(),
    weight: z.number().positive().max(1000).default(1),
  })
  .refine((k) => k.status !== undefined || k.delayMs !== undefined || k.drop === true, {
    message: 'a fault kind needs at least one of status, delayMs or drop',
  });

/** The mix a chaos run asks for when it names no kinds: 429 with headers, 500, 503, dropped connections, 3 s delays. */
export const DEFAULT_FAULT_KINDS = [
  { status: 429, weight: 1 },
  { status: 500, weight: 1 },
  { status: 503, weight: 1 },
  { drop: true, weight: 1 },
  { delayMs: 3000, weight: 1 },
];

export const RandomFaultsSchema = z.object({
  probability: z.number().min(0).max(1),
  method: z.string().min(1).optional(),
  path: z
    .string()
    .min(1)
    .optional()
    .refine((p) => p === undefined || isRegex(p), 'path must be a valid regular expression'),
  kinds: z.array(FaultKindSchema).min(1).max(20).default(DEFAULT_FAULT_KINDS),
  seed: z.number().int().optional(),
});

export type RandomFaultsConfig = z.infer<typeof RandomFaultsSchema>;

function isRegex(p: string): boolean {
  try {
    new RegExp(p);
    return true;
  } catch {
    return false;
  }
}

/** mulberry32: a small seeded PRNG, enough for picking faults repeatably. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface RandomFaultsState {
  config: RandomFaultsConfig | undefined;
  /** Requests seen while active, and faults injected, by kind (`status:503`, `drop`, `delay:3000`). */
  seen: number;
  injected: Record<string, number>;
}

export class RandomFaults {
  private config: RandomFaultsConfig | undefined;
  private pattern: RegExp | undefined;
  private random: () => number = Math.random;
  private seen = 0;
  private injected: Record<string, number> = {};

  set(config: RandomFaultsConfig): void {
    this.config = config;
    this.pattern = config.path ? new RegExp(config.path) : undefined;
    this.random = config.seed === undefined ? Math.random : seededRandom(config.seed);
    this.seen = 0;
    this.injected = {};
  }

  clear(): void {
    this.config = undefined;
    this.pattern = undefined;
  }

  /** The fault for this request, if the dice say so. */
  take(method: string, path: string): FaultRule | undefined {
    const c = this.config;
    if (!c) return undefined;
    if (c.method && c.method.toUpperCase() !== method.toUpperCase()) return undefined;
    if (this.pattern && !this.pattern.test(path)) return undefined;
    this.seen++;
    if (this.random() >= c.probability) return undefined;
    const total = c.kinds.reduce((sum, k) => sum + k.weight, 0);
    let pick = this.random() * total;
    const kind = c.kinds.find((k) => (pick -= k.weight) < 0) ?? c.kinds[c.kinds.length - 1]!;
    const label = kind.status !== undefined ? `status:${kind.status}` : kind.drop ? 'drop' : `delay:${kind.delayMs}`;
    this.injected[label] = (this.injected[label] ?? 0) + 1;
    return {
      ...(kind.status !== undefined ? { status: kind.status } : {}),
      ...(kind.delayMs !== undefined ? { delayMs: kind.delayMs } : {}),
      ...(kind.drop ? { drop: true } : {}),
    };
  }

  state(): RandomFaultsState {
    return { config: this.config, seen: this.seen, injected: { ...this.injected } };
  }
}

// Kept beside the core rather than inside it, so the core's shape does not change for a chaos tool.
const byCore = new WeakMap<object, RandomFaults>();

export function randomFaultsOf(core: object): RandomFaults {
  let faults = byCore.get(core);
  if (!faults) {
    faults = new RandomFaults();
    byCore.set(core, faults);
  }
  return faults;
}
