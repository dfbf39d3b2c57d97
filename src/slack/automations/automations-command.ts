// `/kudos celebrations [optout|optin|private|public]` and `/kudos recurring [new]`: answered as
// ephemeral messages (lists with buttons) or a modal; admins also see the rules and the next 30 days.
import type { AckFn, RespondArguments } from '@slack/bolt';

import {
  celebrationPreferenceOf,
  celebrationRulesOf,
  listSeries,
  setCelebrationPreference,
  upcomingCelebrations,
  upcomingOfSeriesList,
} from '../../domain/automations/automation-runner.js';
import type { Workspace } from '../../domain/common/workspace.js';
import type { SlackMessageContent } from '../kit/mrkdwn.js';
import type { ListenerDeps } from '../listening/listener-deps.js';
import { workspaceOf } from '../listening/listener-deps.js';
import type { SlashCommandPayload } from '../listening/payloads.js';
import {
  buildCelebrationsMessage,
  buildRecurringList,
  buildRecurringModal,
  RECURRING_PAGE_SIZE,
} from './automation-blocks.js';

export async function celebrationsMessage(
  deps: ListenerDeps,
  ws: Workspace,
  userId: string,
  note?: string,
): Promise<SlackMessageContent> {
  const [admin, prefs, user] = await Promise.all([
    deps.isAdmin(ws, userId),
    celebrationPreferenceOf(deps.db, ws, userId),
    deps.slack.for(ws).userInfo(userId),
  ]);
  const now = deps.now();
  const rules = admin ? await celebrationRulesOf(deps.db, ws) : [];
  const adminView = admin
    ? {
        rules,
        upcoming: await upcomingCelebrations(deps.db, ws, now),
        designNames: await designNamesOf(deps, ws, rules),
      }
    : undefined;
  return buildCelebrationsMessage({
    ...(adminView ? { admin: adminView } : {}),
    prefs,
    zone: user?.tz ?? 'UTC',
    ...(note ? { note } : {}),
  });
}

/** The rules' design names from the (cached) catalog; a design it cannot name is left out. */
async function designNamesOf(
  deps: ListenerDeps,
  ws: Workspace,
  rules: Array<{ productId: string }>,
): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  await Promise.all(
    rules.map(async ({ productId }) => {
      const design = await deps.catalog
        .of(ws)
        .get(productId)
        .catch(() => undefined);
      if (design) names.set(productId, design.name);
    }),
  );
  return names;
}

/** One page of the series a person sees (an admin: everyone's), each with its next runs: three queries whatever their number. */
export async function recurringMessage(
  deps: ListenerDeps,
  ws: Workspace,
  userId: string,
  note?: string,
  pageNumber = 0,
): Promise<SlackMessageContent> {
  const admin = await deps.isAdmin(ws, userId);
  const now = deps.now();
  const listed = async (page: number) => ({
    page,
    ...(await listSeries(deps.db, ws, {
      senderUserId: admin ? undefined : userId,
      offset: page * RECURRING_PAGE_SIZE,
      limit: RECURRING_PAGE_SIZE,
    })),
  });
  let shown = await listed(Math.max(0, pageNumber));
  // A page emptied meanwhile (series deleted): its last page instead.
  if (shown.series.length === 0 && shown.page > 0 && shown.total > 0)
    shown = await listed(Math.ceil(shown.total / RECURRING_PAGE_SIZE) - 1);
  const next = await upcomingOfSeriesList(
    deps.db,
    ws,
    shown.series.map((s) => s.id),
    now,
    3,
  );
  const items = shown.series.map((s) => ({ series: s, next: next.get(s.id) ?? [] }));
  return buildRecurringList(items, {
    showSender: admin,
    ...(note ? { note } : {}),
    page: { number: shown.page, total: shown.total },
  });
}

const PREFERENCE_WORDS: Record<string, { optOut?: boolean; noPublicPost?: boolean; note: string }> = {
  optout: { optOut: true, note: 'You are opted out: no birthday or anniversary cards.' },
  optin: { optOut: false, note: 'You are opted back in to birthday and anniversary cards.' },
  private: { noPublicPost: true, note: 'Your celebrations will not be posted in a channel.' },
  public: { noPublicPost: false, note: 'Your celebrations will be announced in the channel.' },
};

export async function handleCelebrationsCommand(
  deps: ListenerDeps,
  input: { ack: AckFn<string | RespondArguments>; command: SlashCommandPayload; arg: string },
): Promise<void> {
  const ws = workspaceOf(input.command);
  const userId = input.command.user_id;
  const change = PREFERENCE_WORDS[input.arg.toLowerCase()];
  if (input.arg && !change)
    return input.ack({ text: `Use \`/kudos celebrations\`, or \`/kudos celebrations optout|optin|private|public\`.` });
  if (change) await setCelebrationPreference(deps.db, ws, userId, change);
  return input.ack(await celebrationsMessage(deps, ws, userId, change?.note));
}

export async function handleRecurringCommand(
  deps: ListenerDeps,
  input: { ack: AckFn<string | RespondArguments>; command: SlashCommandPayload; arg: string },
): Promise<void> {
  const ws = workspaceOf(input.command);
  if (input.arg.toLowerCase() === 'new') {
    await input.ack();
    await deps.slack.for(ws).openView(input.command.trigger_id, buildRecurringModal({}));
    return;
  }
  if (input.arg)
    return input.ack({
      text: 'Use `/kudos recurring` to see your recurring kudos, or `/kudos recurring new` to start one.',
    });
  return input.ack(await recurringMessage(deps, ws, input.command.user_id));
}
