import { z } from 'zod';

/** Emulator settings from EMULATOR_* variables (docs/architecture/emulator.md), validated with zod. */
export interface EmulatorConfig {
  sandboxClientId: string;
  sandboxClientSecret: string;
  productionClientId: string;
  productionClientSecret: string;
  signingSecret: string;
  rateLimit: number;
  rateWindowSeconds: number;
  /** Run due background work by a real-time timer (default on; EMULATOR_BACKGROUND=off disables). */
  backgroundTimer: boolean;
  bodyLimitBytes: number;
}

const positiveInt = z.coerce.number().int().positive();

const EnvSchema = z.object({
  EMULATOR_SANDBOX_CLIENT_ID: z.string().min(1).default('sandbox-client'),
  EMULATOR_SANDBOX_CLIENT_SECRET: z.string().min(1).default('sandbox-secret'),
  EMULATOR_PRODUCTION_CLIENT_ID: z.string().min(1).default('production-client'),
  EMULATOR_PRODUCTION_CLIENT_SECRET: z.string().min(1).default('production-secret'),
  EMULATOR_SIGNING_SECRET: z.string().min(1).default('emulator-signing-secret'),
  EMULATOR_RATE_LIMIT: positiveInt.default(1000),
  EMULATOR_RATE_WINDOW_S: positiveInt.default(10),
  EMULATOR_BACKGROUND: z.enum(['on', 'off']).default('on'),
  EMULATOR_BODY_LIMIT_BYTES: positiveInt.default(1024 * 1024),
});

export function loadEmulatorConfig(env: Record<string, string | undefined> = {}): EmulatorConfig {
  // Empty strings count as unset.
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = EnvSchema.safeParse(cleaned);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    throw new Error(`Invalid emulator configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  return {
    sandboxClientId: e.EMULATOR_SANDBOX_CLIENT_ID,
    sandboxClientSecret: e.EMULATOR_SANDBOX_CLIENT_SECRET,
    productionClientId: e.EMULATOR_PRODUCTION_CLIENT_ID,
    productionClientSecret: e.EMULATOR_PRODUCTION_CLIENT_SECRET,
    signingSecret: e.EMULATOR_SIGNING_SECRET,
    rateLimit: e.EMULATOR_RATE_LIMIT,
    rateWindowSeconds: e.EMULATOR_RATE_WINDOW_S,
    backgroundTimer: e.EMULATOR_BACKGROUND === 'on',
    bodyLimitBytes: e.EMULATOR_BODY_LIMIT_BYTES,
  };
}
