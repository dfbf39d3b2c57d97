// Submissions of the celebration rule modal, the CSV upload modal and the recurring form: read the
// state with zod, check in the domain, errors inline (response_action: errors), else save.
import type { App, SlackViewMiddlewareArgs } from '@slack/bolt';
import { z } from 'zod';

import type { RecurringSeriesRow } from '../../db/schema/index.js';
import { checkRuleForm, checkSeriesForm } from '../../domain/automations/automation-forms.js';
import { createSeriesWithinCaps, planSeries, saveCelebrationRule } from '../../domain/automations/automation-runner.js';
import {
  importCelebrationDates,
  MAX_CSV_BYTES,
  MAX_CSV_ROWS,
  parseCelebrationCsv,
} from '../../domain/automations/celebration-csv.js';
import { isChatRefusal } from '../../domain/common/ports.js';
import type { FormErrors } from '../../domain/common/refusal.js';
import type { Workspace } from '../../domain/common/workspace.js';
import { recordAudit } from '../../domain/workspaces/audit-trail.js';
import { Celebrations, Recurring } from '../ids.js';
import { ANSWER_BUDGET_MS, answerBy, NotReadInTime, secondsToWait } from '../listening/deadline.js';
import type { ListenerDeps } from '../listening/listener-deps.js';
import { workspaceOf } from '../listening/listener-deps.js';
import { parseAtEdge, viewSubmission } from '../listening/payloads.js';
import { buildCsvReport, buildRecurringSaveModal, seriesCapMessage } from './automation-blocks.js';

const leaf = z
  .object({
    value: z.string().nullish(),
    selected_users: z.array(z.string()).nullish(),
    selected_user: z.string().nullish(),
    selected_conversation: z.string().nullish(),
    selected_time: z.string().nullish(),
    selected_option: z.object({ value: z.string() }).nullish(),
    files: z.array(z.object({ id: z.string() }).passthrough()).nullish(),
  })
  .passthrough();

const stateSchema = z.record(z.string(), z.record(z.string(), leaf));
type Leaf = z.infer<typeof leaf>;

function reader(raw: unknown) {
  const parsed = stateSchema.safeParse(raw);
  const values = parsed.success ? parsed.data : {};
  return (block: string, action: string): Leaf => values[block]?.[action] ?? {};
}

const blockErrors = <F extends string>(errors: FormErrors<F>, blocks: Record<F, string>) =>
  Object.fromEntries(Object.entries(errors).map(([field, message]) => [blocks[field as F], message as string]));

/** `work`'s outcome, or 'late' when it is not there by `dueAt` (the work goes on). */
async function beforeDue<T>(work: Promise<T>, dueAt: number): Promise<T | 'late'> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>(
    (resolve) => (timer = setTimeout(() => resolve('late'), Math.max(0, dueAt - Date.now()))),
  );
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** What a view submission's handler reads: the payload, and the ack that answers Slack. */
type ViewArgs = Pick<SlackViewMiddlewareArgs, 'ack' | 'body'>;

export function registerAutomationViews(app: App, deps: ListenerDeps): void {
  app.view(Celebrations.ruleModal.callbackId, (args) => onRuleSubmitted(deps, args));
  app.view(Celebrations.csvModal.callbackId, (args) => onCsvSubmitted(deps, args));
  app.view(Recurring.modal.callbackId, (args) => onRecurringSubmitted(deps, args));
}

/** A new series' runs of the next 30 days, planned after the answer (the periodic pass would, later). */
async function planNewSeries(deps: ListenerDeps, series: RecurringSeriesRow): Promise<void> {
  await planSeries(deps.db, series, deps.now()).catch((error: unknown) =>
    deps.logger.warn('planning the new series failed', { seriesId: series.id, error }),
  );
}

async function onRuleSubmitted(deps: ListenerDeps, { ack, body: raw }: ViewArgs): Promise<void> {
  const body = parseAtEdge(viewSubmission, raw, Celebrations.ruleModal.callbackId);
  const view = body.view;
  const ws = workspaceOf(body);
  const kind = view.private_metadata === 'anniversary' ? 'anniversary' : 'birthday';
  if (!(await deps.isAdmin(ws, body.user.id)))
    return ack({
      response_action: 'errors',
      errors: { [Celebrations.ruleModal.blocks.enabled]: 'Only Kudos admins can change celebrations.' },
    });
  const { blocks: B, actions: A } = Celebrations.ruleModal;
  const get = reader(view.state.values);
  const checked = await checkRuleForm(
    deps.catalog.of(ws),
    {
      enabled: get(B.enabled, A.enabled).selected_option?.value === 'on',
      amount: get(B.amount, A.amount).value ?? undefined,
      productId: get(B.design, A.design).selected_option?.value,
      brandId: get(B.brand, A.brand).selected_option?.value,
      template: get(B.template, A.template).value ?? undefined,
      senderUserId: get(B.sender, A.sender).selected_user ?? undefined,
      channelId: get(B.channel, A.channel).selected_conversation ?? undefined,
      profileFieldId: get(B.profileField, A.profileField).selected_option?.value,
    },
    { db: deps.db, brands: deps.brands.of(ws), ws },
  );
  if (!checked.ok)
    return ack({
      response_action: 'errors',
      errors: blockErrors(checked.errors, {
        amount: B.amount,
        design: B.design,
        brand: B.brand,
        template: B.template,
        sender: B.sender,
      }),
    });
  await saveCelebrationRule(deps.db, ws, kind, checked.value, body.user.id);
  await recordAudit(deps.db, {
    ...ws,
    actorUserId: body.user.id,
    action: 'settings.changed',
    subjectType: 'celebration_rule',
    subjectId: kind,
    details: { ...checked.value },
  });
  await ack();
  // A newly mapped profile field is read now rather than at the next pass.
  if (checked.value.profileFieldId && checked.value.enabled)
    deps.automations.tick().catch((error: unknown) => deps.logger.warn('reading the profile dates failed', { error }));
  // The admin's Home shows the rules: re-published with the new one (from Home or the command alike).
  deps.home
    .publish(ws, body.user.id, { flash: `${kind === 'birthday' ? 'Birthday' : 'Anniversary'} rule saved.` })
    .catch((error: unknown) => deps.logger.warn('re-publishing Home failed', { error }));
}

async function onCsvSubmitted(deps: ListenerDeps, { ack, body: raw }: ViewArgs): Promise<void> {
  const body = parseAtEdge(viewSubmission, raw, Celebrations.csvModal.callbackId);
  const answerDueAt = Date.now() + ANSWER_BUDGET_MS;
  const view = body.view;
  const ws = workspaceOf(body);
  const block = Celebrations.csvModal.blocks.csv;
  if (!(await deps.isAdmin(ws, body.user.id)))
    return ack({ response_action: 'errors', errors: { [block]: 'Only Kudos admins can upload dates.' } });
  const get = reader(view.state.values);
  const fileBlock = Celebrations.csvModal.blocks.file;
  const fileId = get(fileBlock, Celebrations.csvModal.actions.file).files?.[0]?.id;
  const pasted = get(block, Celebrations.csvModal.actions.csv).value ?? '';
  // The uploaded file, else the pasted text; the error goes under the one that was used.
  let text = pasted;
  let errorBlock: string = block;
  if (fileId) {
    errorBlock = fileBlock;
    const file = await deps.slack.for(ws).readUploadedFile(fileId, MAX_CSV_BYTES);
    if ('error' in file) {
      const message =
        file.error === 'too_large'
          ? `The file is larger than ${MAX_CSV_BYTES / 1024} KB; split it (at most ${MAX_CSV_ROWS} rows each).`
          : 'Slack did not find that file; upload it again.';
      return ack({ response_action: 'errors', errors: { [fileBlock]: message } });
    }
    text = file.text;
  } else if (pasted.trim() === '')
    return ack({ response_action: 'errors', errors: { [block]: 'Upload a CSV file or paste CSV.' } });
  const parsed = parseCelebrationCsv(text, deps.now().toISOString());
  if (!parsed.ok) return ack({ response_action: 'errors', errors: { [errorBlock]: parsed.message } });
  // The workspace's people: read at Slack's pace (users.list, Tier 2) and kept 10 minutes, the read
  // big groups use; a read that cannot finish before Slack's 3 s goes on, and a later press finds it.
  let report: Awaited<ReturnType<typeof importCelebrationDates>>;
  try {
    report = await answerBy(answerDueAt, () =>
      importCelebrationDates(
        { db: deps.db, listUsers: () => (deps.slack.everyone ? deps.slack.everyone(ws) : deps.slack.listUsers(ws)) },
        ws,
        parsed,
      ),
    );
  } catch (error) {
    if (isChatRefusal(error, 'rate_limited')) {
      const message = `Slack is busy right now (its rate limit), so your workspace's people could not be read. Nothing was imported. Press Import again in ${secondsToWait(error.retryAfterSeconds)} s.`;
      return ack({ response_action: 'errors', errors: { [errorBlock]: message } });
    }
    if (!isChatRefusal(error) && !(error instanceof NotReadInTime)) throw error;
    deps.logger.warn('reading the workspace people for a CSV import failed', { teamId: ws.teamId, error });
    return ack({
      response_action: 'errors',
      errors: {
        [errorBlock]:
          "Slack did not give us your workspace's people just now. Nothing was imported. Press Import again.",
      },
    });
  }
  await ack({ response_action: 'update', view: buildCsvReport(report) as never });
}

async function onRecurringSubmitted(deps: ListenerDeps, { ack, body: raw }: ViewArgs): Promise<void> {
  const answerDueAt = Date.now() + ANSWER_BUDGET_MS;
  const body = parseAtEdge(viewSubmission, raw, Recurring.modal.callbackId);
  const view = body.view;
  const ws = workspaceOf(body);
  const { blocks: B, actions: A } = Recurring.modal;
  const get = reader(view.state.values);
  // The sender's time zone, read from Slack before the answer: under Slack's 3 s (deadline.ts).
  let sender: Awaited<ReturnType<ReturnType<typeof deps.slack.for>['userInfo']>>;
  try {
    sender = await answerBy(answerDueAt, () => deps.slack.for(ws).userInfo(body.user.id));
  } catch (error) {
    if (!isChatRefusal(error, 'rate_limited')) throw error;
    const message = `Slack is busy right now (its rate limit), so your time zone could not be read. Nothing was saved. Press Save again in ${secondsToWait(error.retryAfterSeconds)} s.`;
    return ack({ response_action: 'errors', errors: { [B.time]: message } });
  }
  const checked = await checkSeriesForm(
    deps.catalog.of(ws),
    {
      senderUserId: body.user.id,
      recipientUserIds: get(B.recipients, A.recipients).selected_users ?? [],
      productId: get(B.design, A.design).selected_option?.value,
      brandId: get(B.brand, A.brand).selected_option?.value,
      amount: get(B.amount, A.amount).value ?? undefined,
      message: get(B.message, A.message).value ?? '',
      cadence: get(B.cadence, A.cadence).selected_option?.value,
      weekday: get(B.weekday, A.weekday).selected_option?.value,
      day: get(B.day, A.day).value ?? undefined,
      time: get(B.time, A.time).selected_time ?? undefined,
      timezone: sender?.tz,
    },
    { db: deps.db, brands: deps.brands.of(ws), ws },
  );
  if (!checked.ok) {
    return ack({
      response_action: 'errors',
      errors: blockErrors(checked.errors, {
        recipients: B.recipients,
        amount: B.amount,
        design: B.design,
        brand: B.brand,
        cadence: B.cadence,
        weekday: B.weekday,
        day: B.day,
        time: B.time,
      }),
    });
  }
  const settings = await deps.settings.get(ws);
  // Keyed by the view: Slack sending the form again, or a second press of Start, finds it saved.
  const saving = createSeriesWithinCaps(
    deps.db,
    { ...ws, senderUserId: body.user.id, ...checked.value, startsAt: deps.now(), sourceViewId: view.id },
    { perPerson: settings.maxSeriesPerPerson, perWorkspace: settings.maxSeriesPerWorkspace },
  );
  const saved = await beforeDue(saving, answerDueAt);
  if (saved === 'late') {
    await ack({ response_action: 'update', view: buildRecurringSaveModal('saving') as never });
    return tellLateSeriesOutcome(deps, ws, view.id, saving);
  }
  if (saved.outcome === 'at_cap')
    return ack({ response_action: 'errors', errors: { [B.recipients]: seriesCapMessage(saved.cap, saved.limit) } });
  await ack();
  if (saved.outcome === 'created') await planNewSeries(deps, saved.series);
}

/**
 * The database was busy and Slack's 3 s nearly up, so the modal was answered "being saved": it then
 * says what became of the series; nothing is lost, nothing is saved twice.
 */
async function tellLateSeriesOutcome(
  deps: ListenerDeps,
  ws: Workspace,
  viewId: string,
  saving: ReturnType<typeof createSeriesWithinCaps>,
): Promise<void> {
  const outcome = await saving.catch((error: unknown) => {
    deps.logger.error('saving a recurring series failed', { error });
    return undefined;
  });
  if (outcome?.outcome === 'created') await planNewSeries(deps, outcome.series);
  const shown = !outcome
    ? 'failed'
    : outcome.outcome === 'at_cap'
      ? { cap: outcome.cap, limit: outcome.limit }
      : 'saved';
  await deps.slack
    .for(ws)
    .updateView(viewId, buildRecurringSaveModal(shown))
    .catch((error: unknown) => deps.logger.warn('telling a recurring series’ outcome failed', { error }));
}
