// The send form (opened from shortcuts and Home, its design options, brand picker, campaign pick and submission),
// Cancel on the scheduled list, a recipient's Say thanks, and the profile changes that keep recipients' e-mails current.
import type { App } from '@slack/bolt';

import type { ListenerDeps } from '../listening/listener-deps.js';
import { registerBrandPicker } from './brand-picker.js';
import { registerCancelScheduled } from './cancel-scheduled.js';
import { registerDesignOptions } from './design-options.js';
import { registerHomeButton } from './home-button.js';
import { registerOneLineActions } from './one-line-actions.js';
import { registerSayThanks } from './say-thanks.js';
import { registerSendFormSubmission } from './send-form-submission.js';
import { registerSendFormViews } from './send-form-views.js';
import { registerCampaignPick } from './send-with-campaign.js';
import { registerShortcuts } from './shortcuts.js';
import { registerUserChange } from './user-change.js';

export function register(app: App, deps: ListenerDeps): void {
  registerSendFormSubmission(app, deps);
  registerDesignOptions(app, deps);
  registerBrandPicker(app, deps);
  registerCampaignPick(app, deps);
  registerSendFormViews(app, deps);
  registerOneLineActions(app, deps);
  registerCancelScheduled(app, deps);
  registerHomeButton(app, deps);
  registerShortcuts(app, deps);
  registerUserChange(app, deps);
  registerSayThanks(app, deps);
}
