// Registers every listener group on the Bolt app.
import type { App } from '@slack/bolt';
import { register as registerActions } from './actions/index.js';
import { register as registerCommands } from './commands/index.js';
import type { ListenerDeps } from './deps.js';
import { register as registerEvents } from './events/index.js';
import { register as registerFunctions } from './functions/index.js';
import { register as registerOptions } from './options/index.js';
import { register as registerShortcuts } from './shortcuts/index.js';
import { register as registerViews } from './views/index.js';

export function registerListeners(app: App, deps: ListenerDeps, opts: { workflowStepWaitMs?: number } = {}): void {
  registerCommands(app, deps);
  registerViews(app, deps);
  registerOptions(app, deps);
  registerActions(app, deps);
  registerEvents(app, deps);
  registerShortcuts(app, deps);
  registerFunctions(app, deps, opts.workflowStepWaitMs !== undefined ? { outcomeWaitMs: opts.workflowStepWaitMs } : {});
}
