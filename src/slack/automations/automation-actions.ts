// Buttons of the celebrations and recurring lists: skip one, edit a rule, upload dates, opt out,
// pause/resume/delete a series. Each answer replaces the (ephemeral) list in place.
import type { App, RespondFn, SlackActionMiddlewareArgs } from '@slack/bolt';
import { z } from 'zod';

import {
  celebrationRulesOf,
  setCelebrationPreference,
  setSeriesStatus,
  skipOccurrence,
} from '../../domain/automations/automation-runner.js';
import { Celebrations, Recurring } from '../ids.js';
import type { ListenerDeps } from '../listening/listener-deps.js';
import { workspaceOf } from '../listening/listener-deps.js';
import { buttonClick, buttonOpeningModal, noValue, oneOf, parseAtEdge, uuidValue } from '../listening/payloads.js';
import { buildCsvModal, buildRuleModal } from './automation-blocks.js';
import { celebrationsMessage, recurringMessage } from './automations-command.js';

/** Matches a button's action_id with or without its item id (`celebration_skip:<id>`). */
const idOf = (actionId: string) => new RegExp(`^${actionId}(:.*)?$`);

/** Each button's value as the builders (automations/automation-blocks.ts) write it; anything else is a 400. */
const occurrenceClick = buttonClick(uuidValue);
const seriesClick = buttonClick(uuidValue);
const pageClick = buttonClick(z.string().regex(/^\d{1,6}$/));
const modalClick = buttonOpeningModal(noValue);
const optOutClick = buttonClick(oneOf(['out', 'in']));
const publicPostClick = buttonClick(oneOf(['private', 'public']));

type Click = {
  user: { id: string; team_id?: string | undefined };
  response_url?: string | undefined;
  team?: { id: string } | null | undefined;
  enterprise?: { id: string } | null | undefined;
};
/** What an answer needs: the click (its response_url) and Bolt's respond. */
type ActionArgs = { body: Click; respond: RespondFn };

/**
 * Answers a click: in a message (the ephemeral list), the list is replaced in place; on App Home
 * (no response_url) the person's Home is re-published with `note` on top.
 */
async function answer(
  deps: ListenerDeps,
  args: ActionArgs,
  note: string,
  list: () => Promise<{ text: string; blocks?: unknown[] }>,
): Promise<void> {
  if (args.body.response_url)
    await args.respond({ replace_original: true, response_type: 'ephemeral', ...((await list()) as { text: string }) });
  else await deps.home.publish(workspaceOf(args.body), args.body.user.id, { flash: note });
}

/** What a click's handler reads: the payload, Bolt's ack and respond. */
type ClickArgs = Pick<SlackActionMiddlewareArgs, 'ack' | 'body' | 'respond'>;

export function registerAutomationActions(app: App, deps: ListenerDeps): void {
  app.action(idOf(Celebrations.actions.skip), (args) => onCelebrationSkipClicked(deps, args));
  for (const [actionId, kind] of [
    [Celebrations.actions.editBirthday, 'birthday'],
    [Celebrations.actions.editAnniversary, 'anniversary'],
  ] as const)
    app.action(idOf(actionId), (args) => onEditRuleClicked(deps, actionId, kind, args));
  app.action(idOf(Celebrations.actions.uploadCsv), (args) => onUploadCsvClicked(deps, args));
  app.action(idOf(Celebrations.actions.optOut), (args) => onOptOutClicked(deps, args));
  app.action(idOf(Celebrations.actions.noPublicPost), (args) => onNoPublicPostClicked(deps, args));
  for (const [actionId, status] of [
    [Recurring.actions.pause, 'paused'],
    [Recurring.actions.resume, 'active'],
    [Recurring.actions.delete, 'deleted'],
  ] as const)
    app.action(idOf(actionId), (args) => onSeriesStatusClicked(deps, actionId, status, args));
  app.action(idOf(Recurring.actions.page), (args) => onRecurringPageClicked(deps, args));
  app.action(idOf(Recurring.actions.skip), (args) => onRecurringSkipClicked(deps, args));
}

/** True for a Kudos admin; anyone else is told only admins change celebrations. */
async function adminOnly(deps: ListenerDeps, args: ActionArgs): Promise<boolean> {
  const ws = workspaceOf(args.body);
  if (await deps.isAdmin(ws, args.body.user.id)) return true;
  const text = ':no_entry: Only Kudos admins can change celebrations.';
  await answer(deps, args, text, () => Promise.resolve({ text }));
  return false;
}

async function onCelebrationSkipClicked(deps: ListenerDeps, { ack, body: raw, respond }: ClickArgs): Promise<void> {
  const args = { body: parseAtEdge(occurrenceClick, raw, Celebrations.actions.skip), respond };
  await ack();
  if (!(await adminOnly(deps, args))) return;
  const ws = workspaceOf(args.body);
  const skipped = await skipOccurrence(deps.db, ws, args.body.actions[0].value, args.body.user.id);
  const note = skipped
    ? ':fast_forward: Skipped: that celebration will not be sent.'
    : ':warning: That celebration was already sent or skipped.';
  await answer(deps, args, note, () => celebrationsMessage(deps, ws, args.body.user.id, note));
}

async function onEditRuleClicked(
  deps: ListenerDeps,
  actionId: string,
  kind: 'birthday' | 'anniversary',
  { ack, body: raw, respond }: ClickArgs,
): Promise<void> {
  const args = { body: parseAtEdge(modalClick, raw, actionId), respond };
  await ack();
  if (!(await adminOnly(deps, args))) return;
  const ws = workspaceOf(args.body);
  const [rules, designs, profileFields] = await Promise.all([
    celebrationRulesOf(deps.db, ws),
    deps.catalog
      .of(ws)
      .search('')
      .catch(() => []),
    // The workspace's custom profile fields, to map one to this date (none: CSV only).
    deps.slack.profileFields(ws).catch((error: unknown) => {
      deps.logger.warn('reading the custom profile fields failed', { error });
      return [];
    }),
  ]);
  await deps.slack
    .for(ws)
    .openView(
      args.body.trigger_id,
      buildRuleModal({ kind, rule: rules.find((r) => r.kind === kind), designs, profileFields }),
    );
}

async function onUploadCsvClicked(deps: ListenerDeps, { ack, body: raw, respond }: ClickArgs): Promise<void> {
  const args = { body: parseAtEdge(modalClick, raw, Celebrations.actions.uploadCsv), respond };
  await ack();
  if (!(await adminOnly(deps, args))) return;
  await deps.slack.for(workspaceOf(args.body)).openView(args.body.trigger_id, buildCsvModal());
}

async function onOptOutClicked(deps: ListenerDeps, { ack, body: raw, respond }: ClickArgs): Promise<void> {
  const args = { body: parseAtEdge(optOutClick, raw, Celebrations.actions.optOut), respond };
  await ack();
  const ws = workspaceOf(args.body);
  const optOut = args.body.actions[0].value === 'out';
  await setCelebrationPreference(deps.db, ws, args.body.user.id, { optOut });
  const note = optOut ? 'You are opted out of celebrations.' : 'You are opted back in.';
  await answer(deps, args, note, () => celebrationsMessage(deps, ws, args.body.user.id, note));
}

async function onNoPublicPostClicked(deps: ListenerDeps, { ack, body: raw, respond }: ClickArgs): Promise<void> {
  const args = { body: parseAtEdge(publicPostClick, raw, Celebrations.actions.noPublicPost), respond };
  await ack();
  const ws = workspaceOf(args.body);
  const noPublicPost = args.body.actions[0].value === 'private';
  await setCelebrationPreference(deps.db, ws, args.body.user.id, { noPublicPost });
  const note = noPublicPost ? 'No public posts for your celebrations.' : 'Your celebrations will be announced.';
  await answer(deps, args, note, () => celebrationsMessage(deps, ws, args.body.user.id, note));
}

async function onSeriesStatusClicked(
  deps: ListenerDeps,
  actionId: string,
  status: 'paused' | 'active' | 'deleted',
  { ack, body: raw, respond }: ClickArgs,
): Promise<void> {
  const args = { body: parseAtEdge(seriesClick, raw, actionId), respond };
  await ack();
  const ws = workspaceOf(args.body);
  const actor = { userId: args.body.user.id, isAdmin: await deps.isAdmin(ws, args.body.user.id) };
  const changed = await setSeriesStatus(deps.db, ws, args.body.actions[0].value, status, actor, deps.now());
  const note = changed
    ? `Series ${status === 'active' ? 'resumed' : status}.`
    : ':warning: Only its sender or an admin can change that series (or it changed already).';
  await answer(deps, args, note, () => recurringMessage(deps, ws, args.body.user.id, note));
}

/** Another page of the list, in place. */
async function onRecurringPageClicked(deps: ListenerDeps, { ack, body: raw, respond }: ClickArgs): Promise<void> {
  const args = { body: parseAtEdge(pageClick, raw, Recurring.actions.page), respond };
  await ack();
  const ws = workspaceOf(args.body);
  const list = await recurringMessage(deps, ws, args.body.user.id, undefined, Number(args.body.actions[0].value));
  await answer(deps, args, list.text, () => Promise.resolve(list));
}

async function onRecurringSkipClicked(deps: ListenerDeps, { ack, body: raw, respond }: ClickArgs): Promise<void> {
  const args = { body: parseAtEdge(occurrenceClick, raw, Recurring.actions.skip), respond };
  await ack();
  const ws = workspaceOf(args.body);
  const admin = await deps.isAdmin(ws, args.body.user.id);
  // Only the series' sender or an admin: the list shows only those, and the skip checks the team.
  const skipped = await skipOccurrence(
    deps.db,
    ws,
    args.body.actions[0].value,
    args.body.user.id,
    admin ? undefined : args.body.user.id,
  );
  const note = skipped ? 'Skipped that one; the series goes on.' : ':warning: That run was already sent or skipped.';
  await answer(deps, args, note, () => recurringMessage(deps, ws, args.body.user.id, note));
}
