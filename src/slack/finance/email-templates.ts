// `/kudos templates` for admins: the Rewards account's e-mail templates, a form to create one (or one
// based on an existing one: the API cannot change templates), and "Send me a test e-mail" with a
// template (the spec's test e-mail: to the clicker's own Slack address, a sample choice card, not
// charged; the remaining daily count shown). Admins only, by the one admin rule (deps.isAdmin).
import type { AckFn, App, RespondArguments, RespondFn } from '@slack/bolt';
import { z } from 'zod';

import {
  checkTemplateForm,
  createTemplate,
  findTemplate,
  formOf,
  listTemplates,
  sendTestEmail,
  type TemplateForm,
  TEST_EMAILS_PER_DAY,
} from '../../domain/accounts/email-templates.js';
import { describeForUser } from '../../domain/accounts/rewards-failures.js';
import { centsToDecimal, formatUsd } from '../../domain/common/money.js';
import { Templates } from '../ids.js';
import { escapeMrkdwn } from '../kit/mrkdwn-escape.js';
import type { ListenerDeps } from '../listening/listener-deps.js';
import { workspaceOf } from '../listening/listener-deps.js';
import {
  buttonClick,
  buttonOpeningModal,
  noValue,
  parseAtEdge,
  type SlashCommandPayload,
  viewSubmission,
} from '../listening/payloads.js';
import { teller } from '../listening/tell-clicker.js';
import { buildTemplateList, buildTemplateModal, TEMPLATE_BLOCK_OF } from './email-template-blocks.js';

const NOT_ADMIN = ':no_entry: Only Kudos admins can manage e-mail templates.';
/** Stay inside Slack's 3 s for a view submission. */
const SAVE_BUDGET_MS = 2200;
/** The test e-mail's sample card amount, clamped into the design's range. */
const SAMPLE_CENTS = 2500;

const templateId = z.string().min(1).max(64);
const openClick = buttonOpeningModal(noValue);
const editClick = buttonOpeningModal(templateId);
const testClick = buttonClick(templateId);

export function isTemplatesCommand(text: string): boolean {
  return /^templates?$/i.test(text.trim());
}

export async function handleTemplatesCommand(
  deps: ListenerDeps,
  input: { ack: AckFn<string | RespondArguments>; command: SlashCommandPayload; respond: RespondFn },
): Promise<void> {
  const { ack, command, respond } = input;
  const ws = workspaceOf(command);
  if (!(await deps.isAdmin(ws, command.user_id))) return ack({ text: NOT_ADMIN });
  await ack({ text: 'Reading the e-mail templates…' });
  try {
    const templates = await listTemplates(await deps.rewards.for(ws), { timeoutMs: 5000 });
    await respond({ response_type: 'ephemeral', replace_original: true, ...buildTemplateList(templates) });
  } catch (error) {
    deps.logger.warn('listing templates failed', { error });
    await respond({
      response_type: 'ephemeral',
      replace_original: true,
      text: describeForUser(error, 'list the e-mail templates'),
    });
  }
}

const stateSchema = z.record(z.string(), z.record(z.string(), z.looseObject({ value: z.string().nullish() })));

function readForm(raw: unknown): TemplateForm | undefined {
  const parsed = stateSchema.safeParse(raw);
  if (!parsed.success) return undefined;
  const B = Templates.modal.blocks;
  const value = (block: string) => (parsed.data[block]?.[Templates.modal.action]?.value ?? '').trim();
  return {
    name: value(B.name),
    senderName: value(B.senderName),
    message: value(B.message),
    borderColor: value(B.borderColor),
    buttonColor: value(B.buttonColor),
    buttonFontColor: value(B.buttonFontColor),
  };
}

export function registerTemplates(app: App, deps: ListenerDeps): void {
  app.action(Templates.actions.create, async ({ ack, body: raw, respond }) => {
    const click = parseAtEdge(openClick, raw, Templates.actions.create);
    await ack();
    const ws = workspaceOf(click);
    if (!(await deps.isAdmin(ws, click.user.id))) return teller(deps, ws, click, respond)(NOT_ADMIN);
    await deps.slack.for(ws).openView(click.trigger_id, buildTemplateModal(formOf(undefined)));
  });

  app.action(Templates.actions.edit, async ({ ack, body: raw, respond }) => {
    const click = parseAtEdge(editClick, raw, Templates.actions.edit);
    await ack();
    const ws = workspaceOf(click);
    const tell = teller(deps, ws, click, respond);
    if (!(await deps.isAdmin(ws, click.user.id))) return void (await tell(NOT_ADMIN));
    const id = click.actions[0].value;
    try {
      const template = await findTemplate(await deps.rewards.for(ws), id);
      if (!template)
        return void (await tell(
          `The template \`${escapeMrkdwn(id)}\` is no longer in the Rewards account. \`/kudos templates\` shows the current list.`,
        ));
      await deps.slack
        .for(ws)
        .openView(click.trigger_id, buildTemplateModal(formOf(template), { basedOn: template.name ?? id }));
    } catch (error) {
      await tell(describeForUser(error, 'read the template'));
    }
  });

  app.action(Templates.actions.testEmail, async ({ ack, body: raw, respond }) => {
    const click = parseAtEdge(testClick, raw, Templates.actions.testEmail);
    await ack();
    const ws = workspaceOf(click);
    const tell = teller(deps, ws, click, respond);
    if (!(await deps.isAdmin(ws, click.user.id))) return void (await tell(NOT_ADMIN));
    const id = click.actions[0].value;
    const log = deps.logger.child({ action: 'template_test_email', user: click.user.id, templateId: id });
    try {
      const me = await deps.slack.for(ws).userInfo(click.user.id);
      if (!me?.email)
        return void (await tell(
          'Your Slack profile has no e-mail address Kudos can read, so there is nowhere to send the test e-mail.',
        ));
      const designs = await deps.catalog.of(ws).search('');
      const design = designs[0];
      if (!design)
        return void (await tell(
          'The Rewards catalog has no choice card to show in a test e-mail (the spec allows test e-mails for choice cards only).',
        ));
      const cents = Math.min(Math.max(SAMPLE_CENTS, design.minCents), design.maxCents);
      const outcome = await sendTestEmail(await deps.rewards.for(ws), {
        email: me.email,
        productId: design.productId,
        amount: centsToDecimal(cents),
        templateId: id,
      });
      if (!outcome.ok) return void (await tell(`:no_entry: ${outcome.message}`));
      const left = outcome.result.remainingToday;
      await tell(
        `:envelope: Test e-mail sent to ${escapeMrkdwn(outcome.result.sentTo ?? me.email)} with a ${formatUsd(cents)} ${escapeMrkdwn(design.name)} sample (not charged). ${left !== undefined ? `${left} of ${TEST_EMAILS_PER_DAY} test e-mails left today.` : `At most ${TEST_EMAILS_PER_DAY} a day.`} Personalization variables show as placeholder text in it.`,
      );
    } catch (error) {
      log.warn('test e-mail failed', { error });
      await tell(describeForUser(error, 'send the test e-mail'));
    }
  });

  app.view(Templates.modal.callbackId, async ({ ack, body: raw }) => {
    const body = parseAtEdge(viewSubmission, raw, Templates.modal.callbackId);
    const ws = workspaceOf(body);
    const B = Templates.modal.blocks;
    if (!(await deps.isAdmin(ws, body.user.id)))
      return ack({ response_action: 'errors', errors: { [B.name]: 'Only Kudos admins can create templates.' } });
    const form = readForm(body.view.state.values);
    if (!form)
      return ack({ response_action: 'errors', errors: { [B.name]: 'The form could not be read; open it again.' } });
    const checked = checkTemplateForm(form);
    if (!checked.ok) {
      const errors: Record<string, string> = {};
      for (const [field, message] of Object.entries(checked.errors))
        errors[TEMPLATE_BLOCK_OF[field as keyof typeof TEMPLATE_BLOCK_OF]] = message;
      return ack({ response_action: 'errors', errors });
    }
    try {
      const created = await createTemplate(await deps.rewards.for(ws), checked.input, { timeoutMs: SAVE_BUDGET_MS });
      await ack();
      await deps.slack
        .for(ws)
        .sendDirectMessage(body.user.id, {
          text: `:white_check_mark: E-mail template *${escapeMrkdwn(created.name ?? checked.input.name)}* saved (\`${escapeMrkdwn(created.templateId)}\`). \`/kudos templates\` lists it, with a test e-mail button.`,
        })
        .catch((error: unknown) => deps.logger.warn('confirming a template failed', { error }));
    } catch (error) {
      deps.logger.warn('creating a template failed', { error });
      await ack({ response_action: 'errors', errors: { [B.name]: describeForUser(error, 'save the template') } });
    }
  });
}
