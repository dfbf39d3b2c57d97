// E-mail templates for admins (spec 2.4, 4.5) and the spec's test e-mail (4.3): the form's checks,
// list, create, and "send me a test e-mail". The API documents create and list only (no update, no
// get, no delete), so "edit" makes a new template from an existing one's fields (Kudos' choice; the
// old one stays in the portal). The spec documents no placeholders for a template's text, only that a
// test e-mail renders personalization variables as placeholder text; so Kudos refuses text that looks
// like a placeholder (`{{…}}`, `{…}`, `%…%`, `[…]` with a name inside) rather than let it reach
// recipients as typed.
import { isRewardsError, type RewardsClient, type Template, type TestEmailResult } from '../../rewards/index.js';
import { type FormErrors, type FormRefused, formRefused, type Refused, refused } from '../common/refusal.js';

export const TEMPLATE_NAME_MAX = 100;
export const SENDER_NAME_MAX = 100;
export const TEMPLATE_MESSAGE_MAX = 2000;
/** The spec's default daily limit of test e-mails (part 9). */
export const TEST_EMAILS_PER_DAY = 10;
/** Templates carry no subject (spec 2.4): a send gives it; the test e-mail gives this one. */
export const TEST_EMAIL_SUBJECT = 'A thank-you gift card for you (test e-mail from Kudos)';

export const PLACEHOLDER_NOTE =
  'The Rewards API documents no placeholders for templates: text like `{{first_name}}` would reach recipients exactly as typed, so Kudos refuses it. In a test e-mail the API renders personalization variables (such as the recipient’s name) as placeholder text.';

export type TemplateField = 'name' | 'senderName' | 'message' | 'borderColor' | 'buttonColor' | 'buttonFontColor';

export interface TemplateForm {
  name: string;
  senderName: string;
  message: string;
  borderColor: string;
  buttonColor: string;
  buttonFontColor: string;
}

export type TemplateInput = {
  name: string;
  senderName: string;
  message?: string;
  borderColor?: string;
  buttonColor?: string;
  buttonFontColor?: string;
};

const PLACEHOLDER = /\{\{[^}]*\}\}|\{\s*[A-Za-z_][\w.]*\s*\}|%[A-Za-z_][\w.]*%|\[\s*[A-Za-z_][\w.]*\s*\]/;

export function findPlaceholder(text: string): string | undefined {
  return PLACEHOLDER.exec(text)?.[0];
}

/** Checks the form as the API's rules and Kudos' placeholder rule want it; errors by field. */
export function checkTemplateForm(form: TemplateForm): { ok: true; input: TemplateInput } | FormRefused<TemplateField> {
  const errors: FormErrors<TemplateField> = {};
  const name = form.name.trim();
  const senderName = form.senderName.trim();
  const message = form.message.trim();
  if (!name) errors.name = 'Give the template a name.';
  else if (name.length > TEMPLATE_NAME_MAX) errors.name = `At most ${TEMPLATE_NAME_MAX} characters.`;
  if (!senderName) errors.senderName = 'The sender name is required (it is the default “from” of the e-mail).';
  else if (senderName.length > SENDER_NAME_MAX) errors.senderName = `At most ${SENDER_NAME_MAX} characters.`;
  if (message.length > TEMPLATE_MESSAGE_MAX) errors.message = `At most ${TEMPLATE_MESSAGE_MAX} characters.`;
  for (const [field, text] of [
    ['name', name],
    ['senderName', senderName],
    ['message', message],
  ] as const) {
    const found = findPlaceholder(text);
    if (found && !errors[field])
      errors[field] =
        `“${found.slice(0, 40)}” looks like a placeholder; the Rewards API documents none for templates, so it would reach recipients as typed.`;
  }
  const colours: Partial<Pick<TemplateInput, 'borderColor' | 'buttonColor' | 'buttonFontColor'>> = {};
  for (const field of ['borderColor', 'buttonColor', 'buttonFontColor'] as const) {
    const raw = form[field].trim();
    if (!raw) continue;
    const hex = raw.startsWith('#') ? raw : `#${raw}`;
    if (!/^#[0-9a-fA-F]{6}$/.test(hex)) errors[field] = 'A colour as #RRGGBB, e.g. #4A154B.';
    else colours[field] = hex.toUpperCase();
  }
  if (Object.keys(errors).length > 0) return formRefused(errors);
  return { ok: true, input: { name, senderName, ...(message ? { message } : {}), ...colours } };
}

export function formOf(t: Template | undefined): TemplateForm {
  return {
    name: t?.name ?? '',
    senderName: t?.senderName ?? '',
    message: t?.message ?? '',
    borderColor: t?.borderColor ?? '',
    buttonColor: t?.buttonColor ?? '',
    buttonFontColor: t?.buttonFontColor ?? '',
  };
}

export async function listTemplates(
  rewards: Pick<RewardsClient, 'templates'>,
  opts: { timeoutMs?: number } = {},
): Promise<Template[]> {
  const all: Template[] = [];
  for await (const t of rewards.templates.list({}, opts.timeoutMs ? { timeoutMs: opts.timeoutMs } : undefined)) {
    all.push(t);
    if (all.length >= 200) break;
  }
  return all;
}

export async function findTemplate(
  rewards: Pick<RewardsClient, 'templates'>,
  templateId: string,
): Promise<Template | undefined> {
  return (await listTemplates(rewards)).find((t) => t.templateId === templateId);
}

export function createTemplate(
  rewards: Pick<RewardsClient, 'templates'>,
  input: TemplateInput,
  opts: { timeoutMs?: number } = {},
): Promise<Template> {
  return rewards.templates.create(input, opts.timeoutMs ? { timeoutMs: opts.timeoutMs } : undefined);
}

export type TestEmailOutcome = { ok: true; result: TestEmailResult } | Refused<'test_email_limit_exceeded'>;

/** The spec's test e-mail (choice cards only, not charged) to the admin's own address with a template. */
export async function sendTestEmail(
  rewards: Pick<RewardsClient, 'orders'>,
  input: { email: string; productId: string; amount: string; templateId: string },
): Promise<TestEmailOutcome> {
  try {
    const result = await rewards.orders.sendTestEmail(
      {
        email: input.email,
        productId: input.productId,
        amount: input.amount,
        templateId: input.templateId,
        emailSubject: TEST_EMAIL_SUBJECT,
      },
      { timeoutMs: 10_000 },
    );
    return { ok: true, result };
  } catch (error) {
    if (isRewardsError(error) && error.code === 'TEST_EMAIL_LIMIT_EXCEEDED')
      return refused(
        'test_email_limit_exceeded',
        `The daily limit of test e-mails (${TEST_EMAILS_PER_DAY} by default, per Rewards account, UTC day) is used up. Try again tomorrow.`,
      );
    throw error;
  }
}
