// Registers every feature's listeners on the Bolt app.
import type { App } from '@slack/bolt';

import * as approvals from './approvals/listeners.js';
import * as automations from './automations/listeners.js';
import * as finance from './finance/listeners.js';
import * as home from './home/listeners.js';
import { BounceFix, Campaigns, Celebrations, Finance, Home, RewardsConnect, Templates } from './ids.js';
import * as install from './install/listeners.js';
import * as kudosCommand from './kudos-command/listeners.js';
import { answeringInTime } from './listening/answer-in-time.js';
import type { ListenerDeps } from './listening/listener-deps.js';
import { workspaceOf } from './listening/listener-deps.js';
import { type Clicker, teller } from './listening/tell-clicker.js';
import * as orders from './orders/listeners.js';
import * as recognition from './recognition/listeners.js';
import * as rewardLinks from './reward-links/listeners.js';
import * as sending from './sending/listeners.js';
import * as workspaces from './workspaces/listeners.js';

/** Each feature folder's one entry point (`<feature>/listeners.ts`). */
const FEATURES: ReadonlyArray<{ name: string; register(app: App, deps: ListenerDeps): void }> = [
  { name: 'kudos-command', register: kudosCommand.register },
  { name: 'sending', register: sending.register },
  { name: 'orders', register: orders.register },
  { name: 'approvals', register: approvals.register },
  { name: 'workspaces', register: workspaces.register },
  { name: 'finance', register: finance.register },
  { name: 'automations', register: automations.register },
  { name: 'reward-links', register: rewardLinks.register },
  { name: 'home', register: home.register },
  { name: 'recognition', register: recognition.register },
  { name: 'install', register: install.register },
];

export function registerListeners(app: App, deps: ListenerDeps): void {
  // Form submissions, options lists and the buttons that open a modal answer inside Slack's 3 s, or
  // say Slack is busy (answer-in-time.ts). The wrapper changes only view, options and action
  // listeners; every other registration (the /kudos middleware, events, shortcuts, the workflow
  // step) reaches the app as it is.
  const inTime = answeringInTime(app, {
    modalButtons: new Set([
      Finance.actions.openTopUp,
      Finance.actions.openLimits,
      Celebrations.actions.editBirthday,
      Celebrations.actions.editAnniversary,
      Celebrations.actions.uploadCsv,
      Templates.actions.create,
      Templates.actions.edit,
      Campaigns.actions.create,
      Campaigns.actions.edit,
      BounceFix.actions.open,
      RewardsConnect.actions.open,
      Home.actions.openSettings,
    ]),
    tellClicker: async (raw, respond, text) => {
      const body = raw as Clicker & Parameters<typeof workspaceOf>[0] & { view?: { type?: string } | null };
      const ws = workspaceOf(body);
      if (body.view?.type === 'home') await deps.home.publish(ws, body.user.id, { flash: text });
      else await teller(deps, ws, body, respond)(text);
    },
  });
  for (const feature of FEATURES) feature.register(inTime, deps);
}
