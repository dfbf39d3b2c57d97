// Celebrations and recurring kudos (their forms and buttons), and the Workflow Builder step.
import type { App } from '@slack/bolt';

import type { ListenerDeps } from '../listening/listener-deps.js';
import { registerAutomationActions } from './automation-actions.js';
import { registerAutomationViews } from './automation-views.js';
import { registerBrandOptions } from './brand-options.js';
import { registerWorkflowStep } from './workflow-step.js';

export function register(app: App, deps: ListenerDeps): void {
  registerAutomationViews(app, deps);
  registerAutomationActions(app, deps);
  registerWorkflowStep(app, deps);
  registerBrandOptions(app, deps);
}
