// App Home: publishing it when opened, and its buttons (its "Give kudos" opens the send form: sending/).
import type { App } from '@slack/bolt';

import type { ListenerDeps } from '../listening/listener-deps.js';
import { registerHomeActions } from './home-actions.js';
import { registerHomeOpened } from './home-opened.js';

export function register(app: App, deps: ListenerDeps): void {
  registerHomeActions(app, deps);
  registerHomeOpened(app, deps);
}
