// The admin's celebration rule and a sender's recurring series, checked field by field before they
// are saved (the listener shows the errors inline in the modal).
import type { Cadence } from '../../db/schema/index.js';
import type { DesignCatalog } from '../accounts/design-catalog.js';
import { checkAmountInRange, parseWholeDollars } from '../common/money.js';
import { type FormErrors, type FormRefused, formRefused } from '../common/refusal.js';
import { isValidTimeZone } from '../common/zoned-time.js';
import type { CelebrationRuleInput } from './automation-runner.js';

export type FormCheck<T, F extends string> = { ok: true; value: T } | FormRefused<F>;

async function checkAmountAndDesign(
  catalog: DesignCatalog,
  amount: string | undefined,
  productId: string | undefined,
  errors: FormErrors<'amount' | 'design'>,
): Promise<number | undefined> {
  const design = productId ? await catalog.get(productId) : undefined;
  if (!design) errors.design = 'Pick a card design that is in the catalog.';
  const parsed = parseWholeDollars(amount);
  if (!parsed.ok) errors.amount = parsed.message;
  else if (design) {
    const inRange = checkAmountInRange(parsed.cents, design);
    if (!inRange.ok) errors.amount = inRange.message;
    else return inRange.cents;
  }
  return undefined;
}

export async function checkRuleForm(
  catalog: DesignCatalog,
  form: {
    enabled: boolean;
    amount: string | undefined;
    productId: string | undefined;
    template: string | undefined;
    senderUserId: string | undefined;
    channelId: string | undefined;
    /** The custom profile field holding the dates (optional). */
    profileFieldId?: string | undefined;
  },
): Promise<FormCheck<CelebrationRuleInput, 'amount' | 'design' | 'template' | 'sender'>> {
  const errors: FormErrors<'amount' | 'design' | 'template' | 'sender'> = {};
  const cents = await checkAmountAndDesign(catalog, form.amount, form.productId, errors);
  const template = (form.template ?? '').trim();
  if (template === '') errors.template = 'Write the message (you can use {name} and {years}).';
  if (!form.senderUserId) errors.sender = 'Pick who the cards are from.';
  if (Object.keys(errors).length > 0 || cents === undefined) return formRefused(errors);
  return {
    ok: true,
    value: {
      enabled: form.enabled,
      amountCents: cents,
      productId: form.productId!,
      messageTemplate: template,
      senderUserId: form.senderUserId!,
      channelId: form.channelId ?? null,
      profileFieldId: form.profileFieldId ?? null,
    },
  };
}

export interface SeriesValues {
  recipientUserIds: string[];
  productId: string;
  amountCents: number;
  message: string;
  cadence: Cadence;
  weekday: number | null;
  dayOfMonth: number | null;
  timeOfDay: string;
  timezone: string;
}

type SeriesField = 'recipients' | 'amount' | 'design' | 'cadence' | 'weekday' | 'day' | 'time';

export async function checkSeriesForm(
  catalog: DesignCatalog,
  form: {
    senderUserId: string;
    recipientUserIds: string[];
    productId: string | undefined;
    amount: string | undefined;
    message: string;
    cadence: string | undefined;
    weekday: string | undefined;
    day: string | undefined;
    time: string | undefined;
    timezone: string | undefined;
  },
): Promise<FormCheck<SeriesValues, SeriesField>> {
  const errors: FormErrors<SeriesField> = {};
  const recipients = [...new Set(form.recipientUserIds)].filter((id) => id !== form.senderUserId);
  if (recipients.length === 0)
    errors.recipients =
      form.recipientUserIds.length > 0
        ? 'You cannot send kudos to yourself; pick someone else.'
        : 'Pick at least one person.';
  if (recipients.length > 100) errors.recipients = 'At most 100 people.';
  const cents = await checkAmountAndDesign(catalog, form.amount, form.productId, errors);
  const cadence = form.cadence as Cadence | undefined;
  if (cadence !== 'weekly' && cadence !== 'monthly_day' && cadence !== 'last_working_day')
    errors.cadence = 'Pick how often.';
  const weekday = form.weekday ? Number(form.weekday) : null;
  if (cadence === 'weekly' && !(weekday && weekday >= 1 && weekday <= 7)) errors.weekday = 'Pick the day of the week.';
  const day = form.day ? Number(form.day) : null;
  if (cadence === 'monthly_day' && !(day && Number.isInteger(day) && day >= 1 && day <= 31))
    errors.day = 'Enter a day of the month from 1 to 31.';
  if (!form.time || !/^([01]\d|2[0-3]):[0-5]\d$/.test(form.time)) errors.time = 'Pick the time.';
  if (Object.keys(errors).length > 0 || cents === undefined) return formRefused(errors);
  return {
    ok: true,
    value: {
      recipientUserIds: recipients,
      productId: form.productId!,
      amountCents: cents,
      message: form.message.trim(),
      cadence: cadence!,
      weekday: cadence === 'weekly' ? weekday : null,
      dayOfMonth: cadence === 'monthly_day' ? day : null,
      timeOfDay: form.time!,
      timezone: form.timezone && isValidTimeZone(form.timezone) ? form.timezone : 'UTC',
    },
  };
}
