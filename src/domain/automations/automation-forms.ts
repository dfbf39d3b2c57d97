// The admin's celebration rule and a sender's recurring series, checked field by field before they
// are saved (the listener shows the errors inline in the modal). Either sends a choice card (a design,
// whole dollars) or a brand (an amount in the brand's own currency, on its price rules).
import type { Database } from '../../db/client.js';
import type { Cadence, CardType } from '../../db/schema/index.js';
import type { DesignCatalog } from '../accounts/design-catalog.js';
import type { BrandCatalog } from '../branded/brand-catalog.js';
import { checkBrandedCard } from '../branded/branded-card.js';
import { checkAmountInRange, parseWholeDollars } from '../common/money.js';
import { type FormErrors, type FormRefused, formRefused } from '../common/refusal.js';
import type { Workspace } from '../common/workspace.js';
import { isValidTimeZone } from '../common/zoned-time.js';
import type { CelebrationRuleInput } from './automation-runner.js';

export type FormCheck<T, F extends string> = { ok: true; value: T } | FormRefused<F>;

/** A brand picked in an automation's form is checked with the workspace's brand catalog and learned rates. */
export interface BrandedFormDeps {
  db: Database;
  brands: BrandCatalog;
  ws: Workspace;
}

/** The card an automation sends: a choice design in whole dollars, or a brand with an amount in cents of its currency. */
interface CheckedCard {
  productId: string;
  amountCents: number;
  cardType: CardType;
  currency: string;
}

/**
 * The card of the form: a brand, when one is picked (it is sent instead of the design, the amount in
 * its currency on its price rules), else the design with whole dollars in its range.
 */
async function checkCard(
  catalog: DesignCatalog,
  branded: BrandedFormDeps | undefined,
  form: { amount: string | undefined; productId: string | undefined; brandId?: string | undefined },
  errors: FormErrors<'amount' | 'design' | 'brand'>,
): Promise<CheckedCard | undefined> {
  if (form.brandId) {
    if (!branded) {
      errors.brand = 'Brands cannot be picked here; pick a card design.';
      return undefined;
    }
    const checked = await checkBrandedCard(branded, branded.ws, { productId: form.brandId, amount: form.amount ?? '' });
    if (!checked.ok) {
      errors[checked.field === 'design' ? 'brand' : 'amount'] = checked.message;
      return undefined;
    }
    const { brand, faceCents } = checked.card;
    return { productId: brand.productId, amountCents: faceCents, cardType: 'BRANDED_CARD', currency: brand.currency };
  }
  const design = form.productId ? await catalog.get(form.productId) : undefined;
  if (!design) errors.design = 'Pick a card design that is in the catalog.';
  const parsed = parseWholeDollars(form.amount);
  if (!parsed.ok) errors.amount = parsed.message;
  else if (design) {
    const inRange = checkAmountInRange(parsed.cents, design);
    if (!inRange.ok) errors.amount = inRange.message;
    else return { productId: design.productId, amountCents: inRange.cents, cardType: 'CHOICE_CARD', currency: 'USD' };
  }
  return undefined;
}

export async function checkRuleForm(
  catalog: DesignCatalog,
  form: {
    enabled: boolean;
    amount: string | undefined;
    productId: string | undefined;
    /** A brand picked instead of a design. */
    brandId?: string | undefined;
    template: string | undefined;
    senderUserId: string | undefined;
    channelId: string | undefined;
    /** The custom profile field holding the dates (optional). */
    profileFieldId?: string | undefined;
  },
  branded?: BrandedFormDeps,
): Promise<FormCheck<CelebrationRuleInput, RuleField>> {
  const errors: FormErrors<RuleField> = {};
  const card = await checkCard(catalog, branded, form, errors);
  const template = (form.template ?? '').trim();
  if (template === '') errors.template = 'Write the message (you can use {name} and {years}).';
  if (!form.senderUserId) errors.sender = 'Pick who the cards are from.';
  if (Object.keys(errors).length > 0 || card === undefined) return formRefused(errors);
  return {
    ok: true,
    value: {
      enabled: form.enabled,
      ...card,
      messageTemplate: template,
      senderUserId: form.senderUserId!,
      channelId: form.channelId ?? null,
      profileFieldId: form.profileFieldId ?? null,
    },
  };
}

type RuleField = 'amount' | 'design' | 'brand' | 'template' | 'sender';

export interface SeriesValues extends CheckedCard {
  recipientUserIds: string[];
  message: string;
  cadence: Cadence;
  weekday: number | null;
  dayOfMonth: number | null;
  timeOfDay: string;
  timezone: string;
}

type SeriesField = 'recipients' | 'amount' | 'design' | 'brand' | 'cadence' | 'weekday' | 'day' | 'time';

export async function checkSeriesForm(
  catalog: DesignCatalog,
  form: {
    senderUserId: string;
    recipientUserIds: string[];
    productId: string | undefined;
    /** A brand picked instead of a design. */
    brandId?: string | undefined;
    amount: string | undefined;
    message: string;
    cadence: string | undefined;
    weekday: string | undefined;
    day: string | undefined;
    time: string | undefined;
    timezone: string | undefined;
  },
  branded?: BrandedFormDeps,
): Promise<FormCheck<SeriesValues, SeriesField>> {
  const errors: FormErrors<SeriesField> = {};
  const recipients = [...new Set(form.recipientUserIds)].filter((id) => id !== form.senderUserId);
  if (recipients.length === 0)
    errors.recipients =
      form.recipientUserIds.length > 0
        ? 'You cannot send kudos to yourself; pick someone else.'
        : 'Pick at least one person.';
  if (recipients.length > 100) errors.recipients = 'At most 100 people.';
  const card = await checkCard(catalog, branded, form, errors);
  const cadence = form.cadence as Cadence | undefined;
  if (cadence !== 'weekly' && cadence !== 'monthly_day' && cadence !== 'last_working_day')
    errors.cadence = 'Pick how often.';
  const weekday = form.weekday ? Number(form.weekday) : null;
  if (cadence === 'weekly' && !(weekday && weekday >= 1 && weekday <= 7)) errors.weekday = 'Pick the day of the week.';
  const day = form.day ? Number(form.day) : null;
  if (cadence === 'monthly_day' && !(day && Number.isInteger(day) && day >= 1 && day <= 31))
    errors.day = 'Enter a day of the month from 1 to 31.';
  if (!form.time || !/^([01]\d|2[0-3]):[0-5]\d$/.test(form.time)) errors.time = 'Pick the time.';
  if (Object.keys(errors).length > 0 || card === undefined) return formRefused(errors);
  return {
    ok: true,
    value: {
      recipientUserIds: recipients,
      ...card,
      message: form.message.trim(),
      cadence: cadence!,
      weekday: cadence === 'weekly' ? weekday : null,
      dayOfMonth: cadence === 'monthly_day' ? day : null,
      timeOfDay: form.time!,
      timezone: form.timezone && isValidTimeZone(form.timezone) ? form.timezone : 'UTC',
    },
  };
}
