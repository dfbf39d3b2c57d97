import type { HttpBindings } from '@hono/node-server';
import type { Grant } from '../state/auth.js';

export interface EmulatorVars {
  requestId: string;
  grant: Grant;
}

export type EmulatorEnv = { Bindings: HttpBindings; Variables: EmulatorVars };
