// Top-ups, spending limits, e-mail templates and campaigns: their forms and buttons.
import type { App } from '@slack/bolt';

import type { ListenerDeps } from '../listening/listener-deps.js';
import { registerCampaigns } from './campaigns.js';
import { registerTemplates } from './email-templates.js';
import { registerFinanceActions } from './finance-actions.js';
import { registerFinanceViews } from './finance-views.js';

export function register(app: App, deps: ListenerDeps): void {
  registerFinanceViews(app, deps);
  registerFinanceActions(app, deps);
  registerTemplates(app, deps);
  registerCampaigns(app, deps);
}
