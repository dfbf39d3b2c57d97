// Buttons of the celebrations and recurring lists: skip one, edit a rule, upload dates, opt out,
// pause/resume/delete a series. Each answer replaces the (ephemeral) list in place.
import type { App, BlockAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import { z } from 'zod';
import { celebrationRulesOf, setCelebrationPreference, setSeriesStatus, skipOccurrence } from '../../domain/automations.js';
import { buildCsvModal, buildRuleModal } from '../blocks/automations.js';
import { celebrationsMessage, recurringMessage } from '../commands/automations.js';
import type { ListenerDeps } from '../deps.js';
import { workspaceOf } from '../deps.js';
import { Celebrations, Recurring } from '../ids.js';

const Value = z.string().min(1).max(100);
type ActionArgs = SlackActionMiddlewareArgs<BlockAction> & { body: BlockAction };

/** Matches a button's action_id with or without its item id (`celebration_skip:<id>`). */
const idOf = (actionId: string) => new RegExp(`^${actionId}(:.*)?$`);

function valueOf(action: unknown): string | undefined {
  const parsed = Value.safeParse((action as { value?: unknown }).value);
  return parsed.success ? parsed.data : undefined;
}

async function answer(args: ActionArgs, content: { text: string; blocks?: unknown[] }): Promise<void> {
  // From a message (the ephemeral list): replace it; from App Home: nothing to replace.
  if (args.body.response_url) await args.respond({ replace_original: true, response_type: 'ephemeral', ...(content as { text: string }) });
}

export function register(app: App, deps: ListenerDeps): void {
  const adminOnly = async (args: ActionArgs): Promise<boolean> => {
    const ws = workspaceOf(args.body as never);
    if (await deps.isAdmin(ws, args.body.user.id)) return true;
    await answer(args, { text: ':no_entry: Only Kudos admins can change celebrations.' });
    return false;
  };

  app.action<BlockAction>(idOf(Celebrations.actions.skip), async (args) => {
    await args.ack();
    if (!(await adminOnly(args))) return;
    const ws = workspaceOf(args.body as never);
    const id = valueOf(args.action);
    const skipped = id ? await skipOccurrence(deps.db, ws, id, args.body.user.id) : false;
    await answer(
      args,
      await celebrationsMessage(deps, ws, args.body.user.id, skipped ? ':fast_forward: Skipped: that celebration will not be sent.' : ':warning: That celebration was already sent or skipped.'),
    );
  });

  for (const [actionId, kind] of [
    [Celebrations.actions.editBirthday, 'birthday'],
    [Celebrations.actions.editAnniversary, 'anniversary'],
  ] as const) {
    app.action<BlockAction>(idOf(actionId), async (args) => {
      await args.ack();
      if (!(await adminOnly(args))) return;
      const ws = workspaceOf(args.body as never);
      const [rules, designs] = await Promise.all([
        celebrationRulesOf(deps.db, ws),
        deps.catalog
          .of(ws)
          .search('')
          .catch(() => []),
      ]);
      await deps.slack.openView(args.body.trigger_id, buildRuleModal({ kind, rule: rules.find((r) => r.kind === kind), designs }));
    });
  }

  app.action<BlockAction>(idOf(Celebrations.actions.uploadCsv), async (args) => {
    await args.ack();
    if (!(await adminOnly(args))) return;
    await deps.slack.openView(args.body.trigger_id, buildCsvModal());
  });

  app.action<BlockAction>(idOf(Celebrations.actions.optOut), async (args) => {
    await args.ack();
    const ws = workspaceOf(args.body as never);
    const optOut = valueOf(args.action) === 'out';
    await setCelebrationPreference(deps.db, ws, args.body.user.id, { optOut });
    await answer(args, await celebrationsMessage(deps, ws, args.body.user.id, optOut ? 'You are opted out of celebrations.' : 'You are opted back in.'));
  });

  app.action<BlockAction>(idOf(Celebrations.actions.noPublicPost), async (args) => {
    await args.ack();
    const ws = workspaceOf(args.body as never);
    const noPublicPost = valueOf(args.action) === 'private';
    await setCelebrationPreference(deps.db, ws, args.body.user.id, { noPublicPost });
    await answer(args, await celebrationsMessage(deps, ws, args.body.user.id, noPublicPost ? 'No public posts for your celebrations.' : 'Your celebrations will be announced.'));
  });

  for (const [actionId, status] of [
    [Recurring.actions.pause, 'paused'],
    [Recurring.actions.resume, 'active'],
    [Recurring.actions.delete, 'deleted'],
  ] as const) {
    app.action<BlockAction>(idOf(actionId), async (args) => {
      await args.ack();
      const ws = workspaceOf(args.body as never);
      const actor = { userId: args.body.user.id, isAdmin: await deps.isAdmin(ws, args.body.user.id) };
      const id = valueOf(args.action);
      const changed = id && /^[0-9a-f-]{36}$/.test(id) ? await setSeriesStatus(deps.db, ws, id, status, actor, deps.now()) : undefined;
      const note = changed ? `Series ${status === 'active' ? 'resumed' : status}.` : ':warning: Only its sender or an admin can change that series (or it changed already).';
      await answer(args, await recurringMessage(deps, ws, args.body.user.id, note));
    });
  }

  app.action<BlockAction>(idOf(Recurring.actions.skip), async (args) => {
    await args.ack();
    const ws = workspaceOf(args.body as never);
    const id = valueOf(args.action);
    const admin = await deps.isAdmin(ws, args.body.user.id);
    // Only the series' sender or an admin: the list shows only those, and the skip checks the team.
    const skipped = id && /^[0-9a-f-]{36}$/.test(id) ? await skipOccurrence(deps.db, ws, id, args.body.user.id, admin ? undefined : args.body.user.id) : false;
    await answer(args, await recurringMessage(deps, ws, args.body.user.id, skipped ? 'Skipped that one; the series goes on.' : ':warning: That run was already sent or skipped.'));
  });
}
