import type { HttpBindings } from '@hono/node-server';
import type { Hono } from 'hono';

import type { Grant } from '../state/auth.js';

export interface EmulatorVars {
  requestId: string;
  grant: Grant;
}

export type EmulatorEnv = { Bindings: HttpBindings; Variables: EmulatorVars };

/** The emulator's Hono app, as routes see it. */
export type EmulatorApp = Hono<EmulatorEnv>;
