// The approvers' Approve and Reject buttons, and the form that asks why a send is rejected.
import type { App } from '@slack/bolt';

import type { ListenerDeps } from '../listening/listener-deps.js';
import { registerApprovalActions } from './approval-actions.js';
import { registerRejectView } from './reject-view.js';

export function register(app: App, deps: ListenerDeps): void {
  registerRejectView(app, deps);
  registerApprovalActions(app, deps);
}
