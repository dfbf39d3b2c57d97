// Registers every listener group on the Bolt app.
import type { App } from '@slack/bolt';
import { register as registerActions } from './actions/index.js';
import { register as registerCommands } from './commands/index.js';
import type { ListenerDeps } from './listening/listener-deps.js';
import { register as registerEvents } from './events/index.js';
import { register as registerFunctions } from './automations/workflow-step.js';
import { register as registerOptions } from './sending/design-options.js';
import { register as registerShortcuts } from './sending/shortcuts.js';
import { register as registerViews } from './views/index.js';
import { answeringInTime } from './listening/answer-in-time.js';
import { teller, type Clicker } from './listening/tell-clicker.js';
import { workspaceOf } from './listening/listener-deps.js';
import { BounceFix, Campaigns, Celebrations, Finance, Home, RewardsConnect, Templates } from './ids.js';

export function registerListeners(app: App, deps: ListenerDeps, opts: { workflowStepWaitMs?: number } = {}): void {
  registerCommands(app, deps);
  // Form submissions, options lists and the buttons that open a modal answer inside Slack's 3 s, or
  // say Slack is busy (answer-in-time.ts).
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
  registerViews(inTime, deps);
  registerOptions(inTime, deps);
  registerActions(inTime, deps);
  registerEvents(app, deps);
  registerShortcuts(app, deps);
  registerFunctions(app, deps, opts.workflowStepWaitMs !== undefined ? { outcomeWaitMs: opts.workflowStepWaitMs } : {});
}
