// +1 reactions on announcements.
import type { App } from '@slack/bolt';

import type { ListenerDeps } from '../listening/listener-deps.js';
import { registerPlusOneReactions } from './plus-one-reactions.js';

export function register(app: App, deps: ListenerDeps): void {
  registerPlusOneReactions(app, deps);
}
