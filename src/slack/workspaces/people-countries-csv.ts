// People's countries uploaded as CSV, from the settings modal: "Upload countries (CSV)" pushes the
// upload modal over the settings; its submission reads the file (or the pasted text), imports it in
// the domain and answers with the report (how many imported, each row not imported and why). Admins
// only, checked on the click and the submission (a modal may be old). As the celebration dates' upload.
import type { App, SlackActionMiddlewareArgs, SlackViewMiddlewareArgs } from '@slack/bolt';
import { z } from 'zod';

import { isChatRefusal } from '../../domain/common/ports.js';
import {
  importPeopleCountries,
  MAX_COUNTRIES_CSV_BYTES,
  MAX_COUNTRIES_CSV_ROWS,
  parseCountriesCsv,
} from '../../domain/workspaces/people-countries-csv.js';
import { PeopleCountries } from '../ids.js';
import { ANSWER_BUDGET_MS, answerBy, NotReadInTime, secondsToWait } from '../listening/deadline.js';
import type { ListenerDeps } from '../listening/listener-deps.js';
import { workspaceOf } from '../listening/listener-deps.js';
import { buttonOpeningModal, noValue, parseAtEdge, textOf, viewSubmission } from '../listening/payloads.js';
import { teller } from '../listening/tell-clicker.js';
import { buildCountriesCsvModal, buildCountriesCsvReport } from './people-countries-blocks.js';

type ClickArgs = Pick<SlackActionMiddlewareArgs, 'ack' | 'body' | 'respond'>;
type ViewArgs = Pick<SlackViewMiddlewareArgs, 'ack' | 'body'>;

const uploadClick = buttonOpeningModal(noValue);
/** The file_input's state: the files picked (only the first is read). */
const fileLeaf = z.looseObject({ files: z.array(z.looseObject({ id: z.string().min(1) })).nullish() });

const { blocks: B, actions: A } = PeopleCountries.csvModal;
const TOO_LARGE = `The file is larger than ${MAX_COUNTRIES_CSV_BYTES / 1024} KB; split it (at most ${MAX_COUNTRIES_CSV_ROWS} rows each).`;

export function registerPeopleCountriesCsv(app: App, deps: ListenerDeps): void {
  app.action(PeopleCountries.actions.uploadCsv, (args) => onUploadClicked(deps, args));
  app.view(PeopleCountries.csvModal.callbackId, (args) => onCsvSubmitted(deps, args));
}

async function onUploadClicked(deps: ListenerDeps, { ack, body: raw, respond }: ClickArgs): Promise<void> {
  const click = parseAtEdge(uploadClick, raw, PeopleCountries.actions.uploadCsv);
  await ack();
  const ws = workspaceOf(click);
  if (!(await deps.isAdmin(ws, click.user.id)))
    return teller(deps, ws, click, respond)(':no_entry: Only Kudos admins can upload countries.');
  await deps.slack.for(ws).pushView(click.trigger_id, buildCountriesCsvModal());
}

type Errors = { response_action: 'errors'; errors: Record<string, string> };
const errorsUnder = (block: string, message: string): Errors => ({
  response_action: 'errors',
  errors: { [block]: message },
});

/** The CSV text of the submission: the uploaded file, else the pasted text; or the error to show under the one used. */
async function csvTextOf(
  deps: ListenerDeps,
  body: ReturnType<typeof parseAtEdge<typeof viewSubmission>>,
): Promise<{ text: string; errorBlock: string } | Errors> {
  const values = body.view.state.values as Record<string, Record<string, unknown> | undefined>;
  const picked = fileLeaf.safeParse(values[B.file]?.[A.file] ?? {});
  const fileId = picked.success ? picked.data.files?.[0]?.id : undefined;
  if (fileId) {
    const file = await deps.slack.for(workspaceOf(body)).readUploadedFile(fileId, MAX_COUNTRIES_CSV_BYTES);
    if ('error' in file)
      return errorsUnder(
        B.file,
        file.error === 'too_large' ? TOO_LARGE : 'Slack did not find that file; upload it again.',
      );
    return { text: file.text, errorBlock: B.file };
  }
  const pasted = textOf(values[B.csv]?.[A.csv] as { value?: unknown } | undefined);
  if (pasted.trim() === '') return errorsUnder(B.csv, 'Upload a CSV file or paste CSV.');
  return { text: pasted, errorBlock: B.csv };
}

async function onCsvSubmitted(deps: ListenerDeps, { ack, body: raw }: ViewArgs): Promise<void> {
  const body = parseAtEdge(viewSubmission, raw, PeopleCountries.csvModal.callbackId);
  const answerDueAt = Date.now() + ANSWER_BUDGET_MS;
  const ws = workspaceOf(body);
  if (!(await deps.isAdmin(ws, body.user.id)))
    return ack(errorsUnder(B.csv, 'Only Kudos admins can upload countries.'));
  const csv = await csvTextOf(deps, body);
  if ('errors' in csv) return ack(csv);
  const parsed = parseCountriesCsv(csv.text);
  if (!parsed.ok) return ack(errorsUnder(csv.errorBlock, parsed.message));
  // The workspace's people, read at Slack's pace (users.list) and kept a while, as the dates' upload
  // reads them; a read that cannot finish before Slack's 3 s goes on, and a later press finds it.
  let report: Awaited<ReturnType<typeof importPeopleCountries>>;
  try {
    report = await answerBy(answerDueAt, () =>
      importPeopleCountries(
        { db: deps.db, listUsers: () => (deps.slack.everyone ? deps.slack.everyone(ws) : deps.slack.listUsers(ws)) },
        ws,
        parsed,
      ),
    );
  } catch (error) {
    if (isChatRefusal(error, 'rate_limited'))
      return ack(
        errorsUnder(
          csv.errorBlock,
          `Slack is busy right now (its rate limit), so your workspace's people could not be read. Nothing was imported. Press Import again in ${secondsToWait(error.retryAfterSeconds)} s.`,
        ),
      );
    if (!isChatRefusal(error) && !(error instanceof NotReadInTime)) throw error;
    deps.logger.warn('reading the workspace people for a countries import failed', { teamId: ws.teamId, error });
    return ack(
      errorsUnder(
        csv.errorBlock,
        "Slack did not give us your workspace's people just now. Nothing was imported. Press Import again.",
      ),
    );
  }
  deps.logger.info('people countries imported', { teamId: ws.teamId, user: body.user.id, ...summary(report) });
  await ack({ response_action: 'update', view: buildCountriesCsvReport(report) as never });
}

const summary = (report: { imported: number; rejected: unknown[] }) => ({
  imported: report.imported,
  rejected: report.rejected.length,
});
