// A bounced card: "Fix address and resend" and its form.
import type { App } from '@slack/bolt';

import type { ListenerDeps } from '../listening/listener-deps.js';
import { registerResendActions } from './resend-actions.js';
import { registerResendViews } from './resend-view.js';

export function register(app: App, deps: ListenerDeps): void {
  registerResendViews(app, deps);
  registerResendActions(app, deps);
}
