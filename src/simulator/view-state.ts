// `view.state.values` in Slack's exact shape: keyed by block_id then action_id, each leaf `{type, <value field>}`.
// Used for the initial state of a view (initial_* values) and to turn raw web-form input into Slack's shape.
import { fromZonedTime } from '../lib/date-fns-tz.js';
import type { Json } from './state.js';

type StateLeaf = Json & { type: string };

function options(el: Json): Json[] {
  const direct = Array.isArray(el.options) ? (el.options as Json[]) : [];
  const grouped = Array.isArray(el.option_groups)
    ? (el.option_groups as Json[]).flatMap((g) => (Array.isArray(g.options) ? (g.options as Json[]) : []))
    : [];
  return [...direct, ...grouped];
}

/** The stateful elements of a view: input blocks' element and the non-button elements of actions blocks. */
export function statefulElements(blocks: Json[]): Array<{ blockId: string; element: Json }> {
  const out: Array<{ blockId: string; element: Json }> = [];
  for (const b of blocks) {
    const blockId = String(b.block_id ?? '');
    if (b.type === 'input' && b.element && typeof b.element === 'object')
      out.push({ blockId, element: b.element as Json });
    if (b.type === 'actions' && Array.isArray(b.elements)) {
      for (const el of b.elements as Json[]) {
        if (el.type !== 'button' && el.type !== 'overflow' && el.type !== 'workflow_button')
          out.push({ blockId, element: el });
      }
    }
  }
  return out;
}

/** The state an element has before the user touches it. */
export function initialLeaf(el: Json): StateLeaf | undefined {
  const type = String(el.type);
  switch (type) {
    case 'plain_text_input':
    case 'email_text_input':
    case 'url_text_input':
    case 'number_input':
      return { type, value: typeof el.initial_value === 'string' ? el.initial_value : null };
    case 'datepicker':
      return { type, selected_date: el.initial_date ?? null };
    case 'timepicker':
      return { type, selected_time: el.initial_time ?? null, ...(el.timezone ? { timezone: el.timezone } : {}) };
    case 'datetimepicker':
      return { type, selected_date_time: el.initial_date_time ?? null };
    case 'static_select':
    case 'external_select':
    case 'radio_buttons':
      return { type, selected_option: el.initial_option ?? null };
    case 'multi_static_select':
    case 'multi_external_select':
    case 'checkboxes':
      return { type, selected_options: el.initial_options ?? [] };
    case 'users_select':
      return { type, selected_user: el.initial_user ?? null };
    case 'multi_users_select':
      return { type, selected_users: el.initial_users ?? [] };
    case 'conversations_select':
      return { type, selected_conversation: el.initial_conversation ?? null };
    case 'multi_conversations_select':
      return { type, selected_conversations: el.initial_conversations ?? [] };
    case 'channels_select':
      return { type, selected_channel: el.initial_channel ?? null };
    case 'multi_channels_select':
      return { type, selected_channels: el.initial_channels ?? [] };
    default:
      return undefined;
  }
}

export function initialStateValues(blocks: Json[]): Record<string, Record<string, Json>> {
  const values: Record<string, Record<string, Json>> = {};
  for (const { blockId, element } of statefulElements(blocks)) {
    const leaf = initialLeaf(element);
    if (!leaf || typeof element.action_id !== 'string') continue;
    values[blockId] = { ...values[blockId], [element.action_id]: leaf };
  }
  return values;
}

export type RawInput = string | string[] | null;

/**
 * Turns what a web form holds (strings) into Slack's state leaf for that element.
 * `tz` is the acting user's zone: a datetimepicker's local date-time is read in it.
 * `externalOptions` are the options the app last answered for an external select.
 */
export function leafFromRaw(el: Json, raw: RawInput, tz: string, externalOptions: Json[] = []): StateLeaf | undefined {
  const type = String(el.type);
  const one = Array.isArray(raw) ? (raw[0] ?? null) : raw;
  const many = Array.isArray(raw) ? raw : raw === null || raw === '' ? [] : [raw];
  const blank = one === null || one === '';
  const pick = (list: Json[], v: string) => list.find((o) => o.value === v) ?? null;
  switch (type) {
    case 'plain_text_input':
    case 'email_text_input':
    case 'url_text_input':
    case 'number_input':
      return { type, value: blank ? null : one };
    case 'datepicker':
      return { type, selected_date: blank ? null : one };
    case 'timepicker':
      return { type, selected_time: blank ? null : one, ...(el.timezone ? { timezone: el.timezone } : {}) };
    case 'datetimepicker':
      return { type, selected_date_time: blank ? null : Math.floor(fromZonedTime(one, tz).getTime() / 1000) };
    case 'static_select':
    case 'radio_buttons':
      return { type, selected_option: blank ? null : pick(options(el), one) };
    case 'external_select': {
      const initial = el.initial_option as Json | undefined;
      return { type, selected_option: blank ? null : pick([...externalOptions, ...(initial ? [initial] : [])], one) };
    }
    case 'multi_static_select':
    case 'checkboxes':
      return { type, selected_options: many.map((v) => pick(options(el), v)).filter((o): o is Json => o !== null) };
    case 'multi_external_select': {
      const initial = Array.isArray(el.initial_options) ? (el.initial_options as Json[]) : [];
      return {
        type,
        selected_options: many
          .map((v) => pick([...externalOptions, ...initial], v))
          .filter((o): o is Json => o !== null),
      };
    }
    case 'users_select':
      return { type, selected_user: blank ? null : one };
    case 'multi_users_select':
      return { type, selected_users: many };
    case 'conversations_select':
      return { type, selected_conversation: blank ? null : one };
    case 'multi_conversations_select':
      return { type, selected_conversations: many };
    case 'channels_select':
      return { type, selected_channel: blank ? null : one };
    case 'multi_channels_select':
      return { type, selected_channels: many };
    default:
      return undefined;
  }
}

/** Raw form values (block_id -> action_id -> raw) to Slack's state values for a view's blocks. */
export function stateFromRaw(
  blocks: Json[],
  raw: Record<string, Record<string, RawInput>>,
  tz: string,
  externalOptions: (actionId: string) => Json[],
): Record<string, Record<string, Json>> {
  const values = initialStateValues(blocks);
  for (const { blockId, element } of statefulElements(blocks)) {
    const actionId = element.action_id;
    if (typeof actionId !== 'string') continue;
    const given = raw[blockId]?.[actionId];
    if (given === undefined) continue;
    const leaf = leafFromRaw(element, given, tz, externalOptions(actionId));
    if (leaf) values[blockId] = { ...values[blockId], [actionId]: leaf };
  }
  return values;
}
