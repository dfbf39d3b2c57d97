// The approvers' buttons on a reward-link request.
import type { App } from '@slack/bolt';

import type { ListenerDeps } from '../listening/listener-deps.js';
import { registerLinkApprovalActions } from './link-approval-actions.js';

export function register(app: App, deps: ListenerDeps): void {
  registerLinkApprovalActions(app, deps);
}
