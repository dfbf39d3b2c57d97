// Settings (the form, company values, people's countries, deleting the workspace's data) and connecting the Rewards account.
import type { App } from '@slack/bolt';

import type { ListenerDeps } from '../listening/listener-deps.js';
import { registerCompanyValues } from './company-values.js';
import { registerDataDeletionActions } from './data-deletion-actions.js';
import { registerPeopleCountriesCsv } from './people-countries-csv.js';
import { registerRewardsConnect } from './rewards-connect-view.js';
import { registerSettingsView } from './settings-view.js';

export function register(app: App, deps: ListenerDeps): void {
  registerSettingsView(app, deps);
  registerCompanyValues(app, deps);
  registerPeopleCountriesCsv(app, deps);
  registerRewardsConnect(app, deps);
  registerDataDeletionActions(app, deps);
}
