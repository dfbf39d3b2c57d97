// Company values for admins, from the settings modal: Manage values pushes the list, Add and Edit push
// the form over it, Remove (behind Slack's confirmation) deletes one; a saved form closes and the list
// under it is refreshed. Admins only, checked on every click and submission (a modal may be old). The
// rules are in domain/workspaces/company-values.ts.
import type { App, SlackActionMiddlewareArgs, SlackViewMiddlewareArgs } from '@slack/bolt';
import { z } from 'zod';

import type { FormErrors } from '../../domain/common/refusal.js';
import {
  checkValueForm,
  getCompanyValue,
  listCompanyValues,
  removeCompanyValue,
  saveCompanyValue,
  type ValueField,
} from '../../domain/workspaces/company-values.js';
import { CompanyValues } from '../ids.js';
import { valueLabel } from '../kit/company-value.js';
import type { ListenerDeps } from '../listening/listener-deps.js';
import { workspaceOf } from '../listening/listener-deps.js';
import {
  buttonOpeningModal,
  metadataOf,
  noValue,
  parseAtEdge,
  textOf,
  uuidValue,
  viewSubmission,
} from '../listening/payloads.js';
import { teller } from '../listening/tell-clicker.js';
import { buildValueFormModal, buildValuesListModal } from './company-value-blocks.js';

const NOT_ADMIN = ':no_entry: Only Kudos admins can manage company values.';

/** A click inside a modal (the settings modal, or the list): the view it was made in. */
const inView = { view: z.looseObject({ id: z.string().min(1) }).optional() };
const openClick = buttonOpeningModal(noValue).extend(inView);
const valueClick = buttonOpeningModal(uuidValue).extend(inView);
const formMetadata = z.object({ valueId: z.guid().optional(), listViewId: z.string().max(50).optional() });

type ClickArgs = Pick<SlackActionMiddlewareArgs, 'ack' | 'body' | 'respond'>;
type ViewArgs = Pick<SlackViewMiddlewareArgs, 'ack' | 'body'>;

export function registerCompanyValues(app: App, deps: ListenerDeps): void {
  app.action(CompanyValues.actions.manage, (args) => onManageClicked(deps, args));
  app.action(CompanyValues.actions.add, (args) => onAddClicked(deps, args));
  app.action(CompanyValues.actions.edit, (args) => onEditClicked(deps, args));
  app.action(CompanyValues.actions.remove, (args) => onRemoveClicked(deps, args));
  app.view(CompanyValues.formModal.callbackId, (args) => onValueSubmitted(deps, args));
}

async function onManageClicked(deps: ListenerDeps, { ack, body: raw, respond }: ClickArgs): Promise<void> {
  const click = parseAtEdge(openClick, raw, CompanyValues.actions.manage);
  await ack();
  const ws = workspaceOf(click);
  if (!(await deps.isAdmin(ws, click.user.id))) return teller(deps, ws, click, respond)(NOT_ADMIN);
  await deps.slack
    .for(ws)
    .pushView(click.trigger_id, buildValuesListModal(await listCompanyValues(deps.db, ws.teamId)));
}

async function onAddClicked(deps: ListenerDeps, { ack, body: raw, respond }: ClickArgs): Promise<void> {
  const click = parseAtEdge(openClick, raw, CompanyValues.actions.add);
  await ack();
  const ws = workspaceOf(click);
  if (!(await deps.isAdmin(ws, click.user.id))) return teller(deps, ws, click, respond)(NOT_ADMIN);
  await deps.slack
    .for(ws)
    .pushView(click.trigger_id, buildValueFormModal(click.view ? { listViewId: click.view.id } : {}));
}

async function onEditClicked(deps: ListenerDeps, { ack, body: raw, respond }: ClickArgs): Promise<void> {
  const click = parseAtEdge(valueClick, raw, CompanyValues.actions.edit);
  await ack();
  const ws = workspaceOf(click);
  if (!(await deps.isAdmin(ws, click.user.id))) return teller(deps, ws, click, respond)(NOT_ADMIN);
  const value = await getCompanyValue(deps.db, ws.teamId, click.actions[0].value);
  if (!value) return refreshList(deps, ws, click.view?.id, 'That value was removed meanwhile.');
  await deps.slack
    .for(ws)
    .pushView(click.trigger_id, buildValueFormModal({ value, ...(click.view ? { listViewId: click.view.id } : {}) }));
}

async function onRemoveClicked(deps: ListenerDeps, { ack, body: raw, respond }: ClickArgs): Promise<void> {
  const click = parseAtEdge(valueClick, raw, CompanyValues.actions.remove);
  await ack();
  const ws = workspaceOf(click);
  if (!(await deps.isAdmin(ws, click.user.id))) return teller(deps, ws, click, respond)(NOT_ADMIN);
  const removed = await removeCompanyValue(deps.db, ws, click.user.id, click.actions[0].value);
  deps.logger.info(removed ? 'company value removed' : 'company value already removed', {
    user: click.user.id,
    valueId: click.actions[0].value,
  });
  await refreshList(
    deps,
    ws,
    click.view?.id,
    removed ? `Removed ${valueLabel(removed)}; kudos already sent keep it.` : 'That value was removed already.',
  );
}

/** The list as it is now, in the view it is shown in (the admin may have closed it: nothing to refresh then). */
async function refreshList(
  deps: ListenerDeps,
  ws: ReturnType<typeof workspaceOf>,
  viewId: string | undefined,
  note: string,
): Promise<void> {
  if (!viewId) return;
  const values = await listCompanyValues(deps.db, ws.teamId);
  await deps.slack
    .for(ws)
    .updateView(viewId, buildValuesListModal(values, { note }))
    .catch((error: unknown) => deps.logger.info('the values list is gone', { error }));
}

const FIELD_BLOCKS: Record<ValueField, string> = CompanyValues.formModal.blocks;

function fieldErrors(errors: FormErrors<ValueField>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [field, message] of Object.entries(errors)) out[FIELD_BLOCKS[field as ValueField]] = message;
  return out;
}

async function onValueSubmitted(deps: ListenerDeps, { ack, body: raw }: ViewArgs): Promise<void> {
  const body = parseAtEdge(viewSubmission, raw, CompanyValues.formModal.callbackId);
  const ws = workspaceOf(body);
  const { blocks: B, action } = CompanyValues.formModal;
  if (!(await deps.isAdmin(ws, body.user.id)))
    return ack({ response_action: 'errors', errors: { [B.name]: 'Only Kudos admins can change company values.' } });
  const values = body.view.state.values;
  const checked = checkValueForm({
    name: textOf(values[B.name]?.[action]),
    emoji: textOf(values[B.emoji]?.[action]),
    description: textOf(values[B.description]?.[action]),
  });
  if (!checked.ok) return ack({ response_action: 'errors', errors: fieldErrors(checked.errors) });
  const { valueId, listViewId } = metadataOf(formMetadata, body.view.private_metadata, {});
  const saved = await saveCompanyValue(deps.db, ws, body.user.id, valueId, checked.input);
  if (!saved.ok) return ack({ response_action: 'errors', errors: fieldErrors(saved.errors) });
  await ack();
  deps.logger.info(valueId ? 'company value changed' : 'company value added', {
    user: body.user.id,
    valueId: saved.row.id,
  });
  await refreshList(deps, ws, listViewId, `Saved ${valueLabel(saved.row)}.`);
}
