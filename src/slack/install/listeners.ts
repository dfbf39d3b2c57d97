// Distribution mode: the events that end an installation.
import type { App } from '@slack/bolt';

import type { ListenerDeps } from '../listening/listener-deps.js';
import { registerInstallationEvents } from './installation-events.js';

export function register(app: App, deps: ListenerDeps): void {
  registerInstallationEvents(app, deps);
}
