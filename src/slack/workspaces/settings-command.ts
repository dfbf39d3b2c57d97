// `/kudos settings`: admins get the settings modal, prefilled; anyone else an ephemeral refusal.
import type { AckFn, RespondArguments } from '@slack/bolt';

import type { Logger } from '../../config/logger.js';
import { isRewardsNotConnected } from '../../domain/accounts/rewards-accounts.js';
import type { Workspace } from '../../domain/common/workspace.js';
import { listAllowanceOverrides } from '../../domain/workspaces/allowance-overrides.js';
import { listCompanyValues } from '../../domain/workspaces/company-values.js';
import { countPeopleCountries } from '../../domain/workspaces/people-countries.js';
import type { ListenerDeps } from '../listening/listener-deps.js';
import { workspaceOf } from '../listening/listener-deps.js';
import type { SlashCommandPayload as SlashCommand } from '../listening/payloads.js';
import { buildSettingsModal } from './settings-blocks.js';

export async function handleSettingsCommand(
  deps: ListenerDeps,
  input: { ack: AckFn<string | RespondArguments>; command: SlashCommand },
): Promise<void> {
  const { ack, command } = input;
  const ws = workspaceOf(command);
  if (!(await deps.isAdmin(ws, command.user_id))) {
    return ack({ text: ':no_entry: Only Kudos admins can change settings. Ask one of them, or a workspace admin.' });
  }
  await ack();
  await openSettingsModal(deps, ws, command.trigger_id);
}

/** The settings modal, prefilled (from the command, or Home's Settings button); the caller checked the admin. */
export async function openSettingsModal(deps: ListenerDeps, ws: Workspace, triggerId: string): Promise<void> {
  // The trigger_id dies 3 s after the click: the option lists may come back empty rather than late.
  const [settings, values, usergroups, designs, allowances, profileFields, knownCountries] = await Promise.all([
    deps.settings.get(ws),
    listCompanyValues(deps.db, ws.teamId),
    orEmpty(deps.slack.for(ws).listUsergroups(), (error) =>
      deps.logger.warn('listing user groups for settings failed', { error }),
    ),
    orEmpty(deps.catalog.of(ws).search(''), (error) => logDesignsFailure(deps.logger, error)),
    listAllowanceOverrides(deps.db, ws.teamId),
    // The workspace's custom profile fields, to map the one holding people's country (none: CSV only).
    orEmpty(deps.slack.profileFields(ws), (error) =>
      deps.logger.warn('listing profile fields for settings failed', { error }),
    ),
    countPeopleCountries(deps.db, ws),
  ]);
  await deps.slack.for(ws).openView(
    triggerId,
    buildSettingsModal({
      settings,
      values,
      usergroups,
      designs,
      allowances,
      profileFields,
      knownCountries,
      deleteData: Boolean(deps.installations?.requestDeletion),
    }),
  );
}

const OPTION_LISTS_BUDGET_MS = 1500;

/**
 * The designs come from the workspace's Rewards account. In distribution mode an admin opens the
 * settings before connecting one (App Home's first step): an empty list is expected then, not a warning.
 */
function logDesignsFailure(logger: Logger, error: unknown): void {
  if (isRewardsNotConnected(error)) logger.debug('no designs for settings: no Rewards account connected yet');
  else logger.warn('loading designs for settings failed', { error });
}

function orEmpty<T>(work: Promise<T[]>, onError: (error: unknown) => void): Promise<T[]> {
  const late = new Promise<T[]>((resolve) => setTimeout(() => resolve([]), OPTION_LISTS_BUDGET_MS).unref());
  return Promise.race([
    work.catch((error: unknown) => {
      onError(error);
      return [];
    }),
    late,
  ]);
}
