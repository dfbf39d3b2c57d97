import { z } from 'zod';

/** Fault injection for API routes (control routes are never faulted). */
export const FaultRuleSchema = z
  .object({
    method: z.string().min(1).optional(),
    path: z
      .string()
      .min(1)
      .optional()
      .refine((p) => p === undefined || isRegex(p), 'path must be a valid regular expression'),
    status: z.number().int().min(100).max(599).optional(),
    delayMs: z.number().int().min(0).max(120_000).optional(),
    drop: z.boolean().optional(),
    count: z.number().int().min(1).max(100_000).optional(),
  })
  .refine((r) => r.status !== undefined || r.delayMs !== undefined || r.drop === true, {
    message: 'a fault needs at least one of status, delayMs or drop',
  });

export type FaultRule = z.infer<typeof FaultRuleSchema>;

interface ActiveFault {
  rule: FaultRule;
  pattern: RegExp | undefined;
  remaining: number;
}

function isRegex(p: string): boolean {
  try {
    new RegExp(p);
    return true;
  } catch {
    return false;
  }
}

export class Faults {
  private active: ActiveFault[] = [];
  /** Requests a delay fault holds, not yet answered (or applied and cut). */
  private holding = 0;

  add(rule: FaultRule): void {
    this.active.push({ rule, pattern: rule.path ? new RegExp(rule.path) : undefined, remaining: rule.count ?? 1 });
  }

  /** The first rule matching this request, consuming one of its uses. */
  take(method: string, path: string): FaultRule | undefined {
    const hit = this.active.find(
      (f) =>
        (!f.rule.method || f.rule.method.toUpperCase() === method.toUpperCase()) &&
        (!f.pattern || f.pattern.test(path)),
    );
    if (!hit) return undefined;
    hit.remaining--;
    if (hit.remaining <= 0) this.active = this.active.filter((f) => f !== hit);
    return hit.rule;
  }

  list(): Array<FaultRule & { remaining: number }> {
    return this.active.map((f) => ({ ...f.rule, remaining: f.remaining }));
  }

  clear(): void {
    this.active = [];
  }

  /** Counts a request as held by a delay fault until the returned function is called. */
  hold(): () => void {
    this.holding++;
    let released = false;
    return () => {
      if (!released) this.holding--;
      released = true;
    };
  }

  /** How many requests a delay fault holds now: once none, every delayed request has been applied (or refused). */
  held(): number {
    return this.holding;
  }
}
