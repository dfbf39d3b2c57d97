// Block Kit for automations: the celebrations overview (rules, the next 30 days with Skip, the
// person's own opt-outs), the rule and CSV modals, the CSV report, the recurring form and list.
import type { CelebrationKind, CelebrationRuleRow, OccurrenceRow, RecurringSeriesRow } from '../../db/schema/index.js';
import type { Design } from '../../domain/accounts/design-catalog.js';
import { type ImportReport, MAX_CSV_BYTES, MAX_CSV_ROWS } from '../../domain/automations/celebration-csv.js';
import { formatFace } from '../../domain/branded/currency.js';
import { formatUsd } from '../../domain/common/money.js';
import type { ProfileField } from '../../domain/common/ports.js';
import { formatInTimeZone } from '../../lib/date-fns-tz.js';
import { Celebrations, COMMAND, Recurring } from '../ids.js';
import type { SlackMessageContent } from '../kit/mrkdwn.js';
import { type Block, context, plain, section } from '../kit/mrkdwn.js';
import { escapeMrkdwn, mentionUser } from '../kit/mrkdwn-escape.js';
import { readerTime } from '../kit/reader-time.js';
import { cardEach } from '../kit/recipients.js';
import { input_ } from '../workspaces/settings-blocks.js';

const KIND_LABEL: Record<CelebrationKind, string> = { birthday: 'Birthdays', anniversary: 'Work anniversaries' };
const WEEKDAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];

// Slack wants action_ids unique within a message: a button about one item carries its id in both.
const button = (text: string, actionId: string, value?: string, style?: 'primary' | 'danger') => ({
  type: 'button' as const,
  text: plain(text, 75),
  action_id: value ? `${actionId}:${value}` : actionId,
  ...(value ? { value } : {}),
  ...(style ? { style } : {}),
});

/**
 * One line per rule: on/off, the card, sender, channel, template. The design by its name when known
 * (never the catalog's product code: the rule's form shows and changes it).
 */
export function ruleSummary(kind: CelebrationKind, rule: CelebrationRuleRow | undefined, designName?: string): string {
  if (!rule) return `*${KIND_LABEL[kind]}*: not set up`;
  const card =
    rule.cardType === 'BRANDED_CARD'
      ? `a ${formatFace(rule.amountCents, rule.currency)} branded card`
      : designName
        ? `a ${formatUsd(rule.amountCents)} ${escapeMrkdwn(designName)} card`
        : `a ${formatUsd(rule.amountCents)} card`;
  return `*${KIND_LABEL[kind]}*: ${rule.enabled ? 'on' : 'off'} · ${card} · from ${mentionUser(rule.senderUserId)}${rule.channelId ? ` · in <#${rule.channelId}>` : ''}\n> ${escapeMrkdwn(rule.messageTemplate)}`;
}

/** The person's own choices, with toggles (App Home and `/kudos celebrations`). */
export function buildCelebrationPreferenceSection(prefs: { optOut: boolean; noPublicPost: boolean }): Block[] {
  const state = prefs.optOut
    ? 'You are opted out of birthday and anniversary cards.'
    : prefs.noPublicPost
      ? 'You get birthday and anniversary cards, without a public post.'
      : 'You get birthday and anniversary cards, announced in the channel.';
  return [
    section(`*Your celebrations*\n${state}`),
    {
      type: 'actions',
      elements: [
        button(
          prefs.optOut ? 'Opt back in' : 'Opt out of celebrations',
          Celebrations.actions.optOut,
          prefs.optOut ? 'in' : 'out',
        ),
        ...(prefs.optOut
          ? []
          : [
              button(
                prefs.noPublicPost ? 'Allow public posts' : 'No public posts',
                Celebrations.actions.noPublicPost,
                prefs.noPublicPost ? 'public' : 'private',
              ),
            ]),
      ],
    },
  ];
}

/** The admin's view: rules, then the next 30 days, each skippable (App Home and `/kudos celebrations`). */
/** When a celebration is due: in `zone`, or (no zone: App Home) in the reader's own zone via Slack's date token. */
function dueText(at: Date, zone: string | undefined): string {
  if (zone) return formatInTimeZone(at, zone, 'EEE d MMM, HH:mm zzz');
  return readerTime(at);
}

export function buildUpcomingCelebrationsSection(input: {
  rules: CelebrationRuleRow[];
  upcoming: OccurrenceRow[];
  zone?: string | undefined;
  /** Design names by product id, where the catalog answered. */
  designNames?: ReadonlyMap<string, string> | undefined;
}): Block[] {
  const blocks: Block[] = [
    section(
      `*Celebrations (admin)*\n${(['birthday', 'anniversary'] as const)
        .map((k) =>
          ruleSummary(
            k,
            input.rules.find((r) => r.kind === k),
            input.designNames?.get(input.rules.find((r) => r.kind === k)?.productId ?? ''),
          ),
        )
        .join('\n')}`,
    ),
    {
      type: 'actions',
      elements: [
        button('Birthday rule', Celebrations.actions.editBirthday),
        button('Anniversary rule', Celebrations.actions.editAnniversary),
        button('Upload dates (CSV)', Celebrations.actions.uploadCsv),
      ],
    },
  ];
  if (input.upcoming.length === 0) blocks.push(context('No celebrations in the next 30 days.'));
  for (const occ of input.upcoming.slice(0, 40)) {
    const when = dueText(occ.dueAt, input.zone);
    const what = occ.source === 'birthday' ? 'birthday' : `${occ.years ?? ''} year anniversary`;
    const text = `${mentionUser(occ.subjectUserId ?? '')} · ${what} · ${when}`;
    blocks.push(
      occ.status === 'skipped'
        ? section(`~${text}~ skipped${occ.skippedBy ? ` by ${mentionUser(occ.skippedBy)}` : ''}`)
        : {
            type: 'section',
            text: { type: 'mrkdwn', text, verbatim: true },
            accessory: button('Skip', Celebrations.actions.skip, occ.id),
          },
    );
  }
  return blocks;
}

export function buildCelebrationsMessage(input: {
  admin?: { rules: CelebrationRuleRow[]; upcoming: OccurrenceRow[]; designNames?: ReadonlyMap<string, string> };
  prefs: { optOut: boolean; noPublicPost: boolean };
  zone: string;
  note?: string;
}): SlackMessageContent {
  const blocks: Block[] = [
    ...(input.note ? [section(input.note)] : []),
    ...(input.admin
      ? [...buildUpcomingCelebrationsSection({ ...input.admin, zone: input.zone }), { type: 'divider' } as Block]
      : []),
    ...buildCelebrationPreferenceSection(input.prefs),
  ];
  return { text: input.note ?? 'Celebrations', blocks };
}

/** The amount's label: USD for a design, the brand's own currency for a brand. */
const AMOUNT_LABEL = 'Amount per person (USD; a brand’s own currency)';
const BRAND_HINT = 'A brand card (e.g. Tesco in £) sent instead of the design; the amount is then in its currency.';

/** A brand picker that searches the brand catalog as one types (options load: brand-options.ts). */
function brandSearch(actionId: string, initial: { text: ReturnType<typeof plain>; value: string } | undefined) {
  return {
    type: 'external_select',
    action_id: actionId,
    placeholder: plain('Search brands'),
    min_query_length: 0,
    ...(initial ? { initial_option: initial } : {}),
  };
}

/** A design picker that searches the catalog as one types (options load: src/slack/options, action `design`). */
function designSearch(
  actionId: string,
  initial: { text: ReturnType<typeof plain>; value: string } | undefined,
): Record<string, unknown> {
  return {
    type: 'external_select',
    action_id: actionId,
    placeholder: plain('Search designs'),
    min_query_length: 0,
    ...(initial ? { initial_option: initial } : {}),
  };
}

export function buildRuleModal(input: {
  kind: CelebrationKind;
  rule: CelebrationRuleRow | undefined;
  designs: Design[];
  profileFields?: ProfileField[];
}): Record<string, unknown> {
  const { blocks: B, actions: A } = Celebrations.ruleModal;
  const r = input.rule;
  const onOff = [
    { text: plain('On'), value: 'on' },
    { text: plain('Off'), value: 'off' },
  ];
  // Searched as the admin types (external_select, the send form's design search): any design of a long catalog.
  const branded = r?.cardType === 'BRANDED_CARD';
  const current = r ? input.designs.find((d) => d.productId === r.productId) : undefined;
  const initialBrand = r && branded ? { text: plain(r.productId, 75), value: r.productId.slice(0, 150) } : undefined;
  const initialDesign =
    r && !branded
      ? {
          text: plain(
            current ? `${current.name} (${formatUsd(current.minCents)}–${formatUsd(current.maxCents)})` : r.productId,
            75,
          ),
          value: r.productId.slice(0, 150),
        }
      : undefined;
  return {
    type: 'modal',
    callback_id: Celebrations.ruleModal.callbackId,
    private_metadata: input.kind,
    title: plain(input.kind === 'birthday' ? 'Birthday cards' : 'Anniversary cards', 24),
    submit: plain('Save'),
    close: plain('Cancel'),
    blocks: [
      input_(
        B.enabled,
        'Send them',
        {
          type: 'static_select',
          action_id: A.enabled,
          options: onOff,
          initial_option: r?.enabled ? onOff[0] : onOff[1],
        },
        false,
      ),
      input_(
        B.amount,
        AMOUNT_LABEL,
        {
          type: 'number_input',
          action_id: A.amount,
          // A brand's amounts may have decimals (€10.50); a design's whole dollars are checked on submit.
          is_decimal_allowed: true,
          ...(r ? { initial_value: String(r.amountCents / 100) } : {}),
        },
        false,
      ),
      input_(B.design, 'Card design', designSearch(A.design, initialDesign), true),
      input_(B.brand, 'Or a brand', brandSearch(A.brand, initialBrand), true, BRAND_HINT),
      input_(
        B.template,
        'Message',
        {
          type: 'plain_text_input',
          action_id: A.template,
          max_length: 500,
          initial_value:
            r?.messageTemplate ??
            (input.kind === 'birthday' ? 'Happy birthday, {name}!' : 'Happy {years}-year anniversary, {name}!'),
        },
        false,
        '{name} is the person’s first name, {years} the years since they started.',
      ),
      input_(
        B.sender,
        'From',
        { type: 'users_select', action_id: A.sender, ...(r ? { initial_user: r.senderUserId } : {}) },
        false,
        'Shown as the sender; their budget and approvals apply.',
      ),
      input_(
        B.channel,
        'Celebrate in',
        {
          type: 'conversations_select',
          action_id: A.channel,
          filter: { include: ['public', 'private'], exclude_bot_users: true },
          ...(r?.channelId ? { initial_conversation: r.channelId } : {}),
        },
        true,
        'Empty: the workspace’s announcement channel.',
      ),
      ...profileFieldInput(input.kind, r?.profileFieldId ?? null, input.profileFields ?? []),
      context(
        'Cards go out at 9:00 in each person’s own time zone; February 29 birthdays on February 28 in other years.',
      ),
    ],
  };
}

/** Which custom profile field holds this date (optional: without one, the dates come from the CSV upload). */
function profileFieldInput(kind: CelebrationKind, current: string | null, fields: ProfileField[]): Block[] {
  const { blocks: B, actions: A } = Celebrations.ruleModal;
  const options = fields.slice(0, 100).map((f) => ({
    text: plain(`${f.label}${f.type === 'date' ? '' : ` (${f.type})`}`, 75),
    value: f.id.slice(0, 150),
  }));
  const what = kind === 'birthday' ? 'birthdays' : 'start dates';
  if (options.length === 0)
    return [context(`The workspace has no custom profile fields: ${what} come from *Upload dates (CSV)*.`)];
  const initial = options.find((o) => o.value === current);
  return [
    input_(
      B.profileField,
      'Date from Slack profile field',
      {
        type: 'static_select',
        action_id: A.profileField,
        placeholder: plain('None: use the CSV upload'),
        options,
        ...(initial ? { initial_option: initial } : {}),
      },
      true,
      `The profile field that holds ${what} (YYYY-MM-DD${kind === 'birthday' ? ' or MM-DD' : ''}); read daily. Empty: the CSV upload only.`,
    ),
  ];
}

export function buildCsvModal(): Record<string, unknown> {
  const { blocks: B, actions: A } = Celebrations.csvModal;
  return {
    type: 'modal',
    callback_id: Celebrations.csvModal.callbackId,
    title: plain('Upload dates', 24),
    submit: plain('Import'),
    close: plain('Cancel'),
    blocks: [
      section(
        'Upload a CSV file, or paste CSV, with the header `email,birthday,start_date`. Birthday as `MM-DD` or `YYYY-MM-DD` (the year is not kept), start date as `YYYY-MM-DD`; either may be empty. Each row is checked on its own; you get a report of the rows that were not imported.',
      ),
      input_(
        B.file,
        'CSV file',
        { type: 'file_input', action_id: A.file, filetypes: ['csv', 'txt'], max_files: 1 },
        true,
        `Up to ${MAX_CSV_ROWS.toLocaleString('en-US')} rows (${MAX_CSV_BYTES / 1024} KB).`,
      ),
      input_(
        B.csv,
        'Or paste CSV',
        {
          type: 'plain_text_input',
          action_id: A.csv,
          multiline: true,
          max_length: 3000,
          placeholder: plain('email,birthday,start_date\nada@example.com,03-15,2021-06-01'),
        },
        true,
      ),
    ],
  };
}

export function buildCsvReport(report: ImportReport): Record<string, unknown> {
  const lines = report.rejected
    .slice(0, 40)
    .map((r) => `• line ${r.line} (${escapeMrkdwn(r.email)}): ${escapeMrkdwn(r.reason)}`);
  const more = report.rejected.length > 40 ? `\n…and ${report.rejected.length - 40} more` : '';
  return {
    type: 'modal',
    callback_id: 'celebration_csv_report',
    title: plain('Import report', 24),
    close: plain('Done'),
    blocks: [
      section(
        `:white_check_mark: *${report.imported}* ${report.imported === 1 ? 'person' : 'people'} imported.${report.rejected.length > 0 ? ` *${report.rejected.length}* row${report.rejected.length === 1 ? '' : 's'} not imported:` : ''}`,
      ),
      ...(lines.length > 0 ? [section(lines.join('\n') + more)] : []),
    ],
  };
}

export function describeCadence(
  s: Pick<RecurringSeriesRow, 'cadence' | 'weekday' | 'dayOfMonth' | 'timeOfDay' | 'timezone'>,
): string {
  const at = `at ${s.timeOfDay} ${s.timezone}`;
  if (s.cadence === 'weekly') return `every ${WEEKDAYS[(s.weekday ?? 1) - 1]} ${at}`;
  if (s.cadence === 'monthly_day') return `monthly on day ${s.dayOfMonth} (or the month's last day) ${at}`;
  return `on the last working day of each month ${at}`;
}

/** "a $25 card each", or for a brand "a £20 card each" (its own currency). */
function seriesCard(series: RecurringSeriesRow): string {
  const recipientCount = series.recipientUserIds.length;
  if (series.cardType !== 'BRANDED_CARD') return cardEach({ amountCents: series.amountCents, recipientCount });
  return `a ${formatFace(series.amountCents, series.currency)} branded card${recipientCount > 1 ? ' each' : ''}`;
}

/** Series shown per page of `/kudos recurring` (two blocks each, well inside a message's 50). */
export const RECURRING_PAGE_SIZE = 10;

export function buildRecurringList(
  items: Array<{ series: RecurringSeriesRow; next: OccurrenceRow[] }>,
  opts: { note?: string; showSender: boolean; page?: { number: number; total: number } },
): SlackMessageContent {
  const blocks: Block[] = [...(opts.note ? [section(opts.note)] : [])];
  if (items.length === 0) blocks.push(section(`No recurring kudos. Start one with *${COMMAND} recurring new*.`));
  for (const { series, next } of items.slice(0, RECURRING_PAGE_SIZE)) {
    const who = series.recipientUserIds.map(mentionUser).join(', ');
    blocks.push(
      section(
        `${seriesCard(series)} to ${who} ${describeCadence(series)}${opts.showSender ? ` · from ${mentionUser(series.senderUserId)}` : ''}${series.status === 'paused' ? ' · *paused*' : ''}`,
      ),
    );
    blocks.push({
      type: 'actions',
      elements: [
        series.status === 'paused'
          ? button('Resume', Recurring.actions.resume, series.id, 'primary')
          : button('Pause', Recurring.actions.pause, series.id),
        button('Delete series', Recurring.actions.delete, series.id, 'danger'),
        ...next.slice(0, 3).map((o) => button(`Skip ${o.localDate}`, Recurring.actions.skip, o.id)),
      ],
    });
  }
  const page = opts.page;
  if (page && page.total > RECURRING_PAGE_SIZE) {
    const first = page.number * RECURRING_PAGE_SIZE;
    blocks.push(context(`Series ${first + 1}–${first + items.length} of ${page.total}`));
    const nav = [
      ...(page.number > 0 ? [button('Previous', Recurring.actions.page, String(page.number - 1))] : []),
      ...(first + RECURRING_PAGE_SIZE < page.total
        ? [button('Next', Recurring.actions.page, String(page.number + 1))]
        : []),
    ];
    if (nav.length > 0) blocks.push({ type: 'actions', elements: nav });
  }
  return { text: opts.note ?? 'Recurring kudos', blocks };
}

/** What the recurring form says when a cap is reached (inline, under its first input). */
export function seriesCapMessage(cap: 'person' | 'workspace', limit: number): string {
  const fix = `Delete one in ${COMMAND} recurring, or ask a Kudos admin to raise the limit in ${COMMAND} settings. Nothing was saved.`;
  return cap === 'person'
    ? `You have ${limit} recurring kudos already, the most one person may have. ${fix}`
    : `This workspace has ${limit} recurring kudos already, the most it allows. ${fix}`;
}

/** The recurring form once submitted, when the save outlasts Slack's 3 s: it says so, then what became of it. */
export function buildRecurringSaveModal(
  state: 'saving' | 'saved' | 'failed' | { cap: 'person' | 'workspace'; limit: number },
): Record<string, unknown> {
  const text =
    state === 'saving'
      ? ':hourglass_flowing_sand: Saving your recurring kudos… Kudos is busy right now; this will say when it is saved. There is no need to submit it again.'
      : state === 'saved'
        ? `:white_check_mark: Your recurring kudos is saved. \`${COMMAND} recurring\` lists it.`
        : state === 'failed'
          ? `:warning: Your recurring kudos could not be saved. Nothing was saved; start it again with \`${COMMAND} recurring new\`.`
          : `:no_entry: ${seriesCapMessage(state.cap, state.limit)}`;
  return {
    type: 'modal',
    callback_id: `${Recurring.modal.callbackId}_saved`,
    title: plain('Recurring kudos', 24),
    close: plain('Close'),
    blocks: [section(text)],
  };
}

export function buildRecurringModal(input: { userIds?: string[] }): Record<string, unknown> {
  const { blocks: B, actions: A } = Recurring.modal;
  const cadences = [
    { text: plain('Weekly'), value: 'weekly' },
    { text: plain('Monthly on a day'), value: 'monthly_day' },
    { text: plain('Last working day of the month'), value: 'last_working_day' },
  ];
  return {
    type: 'modal',
    callback_id: Recurring.modal.callbackId,
    title: plain('Recurring kudos', 24),
    submit: plain('Start'),
    close: plain('Cancel'),
    blocks: [
      input_(
        B.recipients,
        'To',
        {
          type: 'multi_users_select',
          action_id: A.recipients,
          max_selected_items: 100,
          ...(input.userIds?.length ? { initial_users: input.userIds } : {}),
        },
        false,
      ),
      input_(B.design, 'Card design', designSearch(A.design, undefined), true),
      input_(B.brand, 'Or a brand', brandSearch(A.brand, undefined), true, BRAND_HINT),
      input_(
        B.amount,
        AMOUNT_LABEL,
        // A brand's amounts may have decimals (€10.50); a design's whole dollars are checked on submit.
        { type: 'number_input', action_id: A.amount, is_decimal_allowed: true },
        false,
      ),
      input_(
        B.message,
        'Message',
        { type: 'plain_text_input', action_id: A.message, multiline: true, max_length: 1000 },
        true,
      ),
      input_(
        B.cadence,
        'How often',
        { type: 'static_select', action_id: A.cadence, options: cadences, initial_option: cadences[0] },
        false,
      ),
      input_(
        B.weekday,
        'Day of the week (weekly)',
        {
          type: 'static_select',
          action_id: A.weekday,
          options: WEEKDAYS.map((d, i) => ({ text: plain(d), value: String(i + 1) })),
        },
        true,
      ),
      input_(
        B.day,
        'Day of the month (monthly)',
        { type: 'number_input', action_id: A.day, is_decimal_allowed: false, min_value: '1', max_value: '31' },
        true,
      ),
      input_(B.time, 'At (your time zone)', { type: 'timepicker', action_id: A.time, initial_time: '10:00' }, false),
      context('Each run is an ordinary send from you: approvals, budgets and limits apply to each.'),
    ],
  };
}

/** The DM to an automation's owner when a run was refused (nothing was sent, and it is not retried). */
export function buildAutomationRefused(input: {
  source: 'birthday' | 'anniversary' | 'recurring';
  localDate: string;
  recipientUserIds: string[];
  reason: string;
  next?: 'not_retried' | 'retrying' | 'given_up' | undefined;
  until?: string | undefined;
}): SlackMessageContent {
  const who =
    input.recipientUserIds.slice(0, 10).map(mentionUser).join(', ') +
    (input.recipientUserIds.length > 10 ? ` and ${input.recipientUserIds.length - 10} more` : '');
  const what =
    input.source === 'recurring'
      ? `Your recurring kudos to ${who} due on ${input.localDate}`
      : `The ${input.source === 'birthday' ? 'birthday' : 'work anniversary'} card for ${who} due on ${input.localDate}`;
  const fix =
    input.source === 'recurring'
      ? `\`${COMMAND} recurring\` lists the series.`
      : `Check the rule in \`${COMMAND} celebrations\` (or on App Home).`;
  const reason = escapeMrkdwn(input.reason);
  const until = input.until ? ` until ${input.until}` : '';
  const text =
    input.next === 'retrying'
      ? `:hourglass_flowing_sand: ${what} has not gone out yet: ${reason} Nothing was charged for it. Kudos tries again every 15 minutes${until}, and tells you if it gives up. ${fix}`
      : input.next === 'given_up'
        ? `:warning: ${what} was not sent: ${reason} Nothing was charged. Kudos kept trying${until} and has stopped. ${fix}`
        : `:warning: ${what} was not sent: ${reason} Nothing was charged, and this run is not retried. ${fix}`;
  return { text, blocks: [section(text)] };
}
