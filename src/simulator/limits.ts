// Slack's Block Kit, view and message rules, as pure checks. Each returns a list of problems in the
// style Slack puts in `response_metadata.messages` ("... [json-pointer:/view/title/text]"); an empty
// list means Slack would accept it. Limits from Slack's Block Kit / views / chat.postMessage docs.

export const LIMITS = {
  messageBlocks: 50,
  viewBlocks: 100,
  messageText: 40_000,
  viewTitle: 24,
  viewButton: 24,
  privateMetadata: 3000,
  callbackId: 255,
  externalId: 255,
  blockId: 255,
  actionId: 255,
  sectionText: 3000,
  sectionFields: 10,
  sectionFieldText: 2000,
  headerText: 150,
  contextElements: 10,
  actionsElements: 25,
  inputLabel: 2000,
  inputHint: 2000,
  buttonText: 75,
  buttonValue: 2000,
  buttonUrl: 3000,
  optionText: 75,
  optionValue: 150,
  selectOptions: 100,
  choiceOptions: 10,
  placeholder: 150,
  textInputLength: 3000,
  confirmTitle: 100,
  confirmText: 300,
  confirmButton: 30,
  imageAlt: 2000,
  imageUrl: 3000,
  viewBytes: 250_000,
} as const;

type Json = Record<string, unknown>;
type Surface = 'message' | 'modal' | 'home';

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

class Problems {
  readonly list: string[] = [];
  add(message: string, pointer: string): void {
    this.list.push(`${message} [json-pointer:${pointer}]`);
  }
}

function checkText(
  p: Problems,
  value: unknown,
  pointer: string,
  opts: { max: number; plainOnly?: boolean; required?: boolean },
): void {
  if (value === undefined || value === null) {
    if (opts.required !== false) p.add('missing required field: text', pointer);
    return;
  }
  if (!isObject(value)) return p.add('must be an object', pointer);
  const type = value.type;
  if (type !== 'plain_text' && type !== 'mrkdwn') return p.add('must be a valid enum value', `${pointer}/type`);
  if (opts.plainOnly && type !== 'plain_text') return p.add('must be a valid enum value', `${pointer}/type`);
  const text = value.text;
  if (typeof text !== 'string') return p.add('missing required field: text', `${pointer}/text`);
  if (text.length === 0) return p.add('must be more than 0 characters', `${pointer}/text`);
  if (text.length > opts.max) p.add(`must be less than ${opts.max + 1} characters`, `${pointer}/text`);
}

function checkString(p: Problems, value: unknown, pointer: string, max: number, required = false): void {
  if (value === undefined || value === null) {
    if (required) p.add(`missing required field: ${pointer.split('/').pop()}`, pointer);
    return;
  }
  if (typeof value !== 'string') return p.add('must be a string', pointer);
  if (value.length > max) p.add(`must be less than ${max + 1} characters`, pointer);
}

function checkConfirm(p: Problems, confirm: unknown, pointer: string): void {
  if (confirm === undefined) return;
  if (!isObject(confirm)) return p.add('must be an object', pointer);
  checkText(p, confirm.title, `${pointer}/title`, { max: LIMITS.confirmTitle, plainOnly: true });
  checkText(p, confirm.text, `${pointer}/text`, { max: LIMITS.confirmText });
  checkText(p, confirm.confirm, `${pointer}/confirm`, { max: LIMITS.confirmButton, plainOnly: true });
  checkText(p, confirm.deny, `${pointer}/deny`, { max: LIMITS.confirmButton, plainOnly: true });
}

function checkOption(p: Problems, option: unknown, pointer: string): void {
  if (!isObject(option)) return p.add('must be an object', pointer);
  checkText(p, option.text, `${pointer}/text`, { max: LIMITS.optionText });
  checkString(p, option.value, `${pointer}/value`, LIMITS.optionValue, true);
}

function checkOptions(p: Problems, options: unknown, pointer: string, max: number, required: boolean): void {
  if (options === undefined) {
    if (required) p.add('missing required field: options', pointer);
    return;
  }
  if (!Array.isArray(options)) return p.add('must be an array', pointer);
  if (options.length > max) p.add(`must be less than ${max + 1} items`, pointer);
  options.forEach((o, i) => checkOption(p, o, `${pointer}/${i}`));
}

const INPUT_ELEMENTS = new Set([
  'plain_text_input',
  'email_text_input',
  'url_text_input',
  'number_input',
  'datepicker',
  'timepicker',
  'datetimepicker',
  'static_select',
  'external_select',
  'users_select',
  'conversations_select',
  'channels_select',
  'multi_static_select',
  'multi_external_select',
  'multi_users_select',
  'multi_conversations_select',
  'multi_channels_select',
  'checkboxes',
  'radio_buttons',
  'rich_text_input',
  'file_input',
]);
const INPUT_BLOCK_ONLY = new Set([
  'email_text_input',
  'url_text_input',
  'rich_text_input',
  'file_input',
  'number_input',
]);
const INTERACTIVE_ELEMENTS = new Set([...INPUT_ELEMENTS, 'button', 'overflow', 'workflow_button']);

function checkElement(p: Problems, el: unknown, pointer: string, surface: Surface, inInput: boolean): void {
  if (!isObject(el)) return p.add('must be an object', pointer);
  const type = el.type;
  if (typeof type !== 'string' || !INTERACTIVE_ELEMENTS.has(type)) {
    return p.add('must be a valid enum value', `${pointer}/type`);
  }
  checkString(p, el.action_id, `${pointer}/action_id`, LIMITS.actionId, type === 'rich_text_input');
  if (el.placeholder !== undefined) {
    checkText(p, el.placeholder, `${pointer}/placeholder`, { max: LIMITS.placeholder, plainOnly: true });
  }
  checkConfirm(p, el.confirm, `${pointer}/confirm`);
  switch (type) {
    case 'button':
      checkText(p, el.text, `${pointer}/text`, { max: LIMITS.buttonText, plainOnly: true });
      checkString(p, el.value, `${pointer}/value`, LIMITS.buttonValue);
      checkString(p, el.url, `${pointer}/url`, LIMITS.buttonUrl);
      if (el.style !== undefined && el.style !== 'primary' && el.style !== 'danger') {
        p.add('must be a valid enum value', `${pointer}/style`);
      }
      break;
    case 'static_select':
    case 'multi_static_select': {
      const hasGroups = el.option_groups !== undefined;
      checkOptions(p, el.options, `${pointer}/options`, LIMITS.selectOptions, !hasGroups);
      if (hasGroups) {
        if (!Array.isArray(el.option_groups)) p.add('must be an array', `${pointer}/option_groups`);
        else {
          if (el.option_groups.length > LIMITS.selectOptions) {
            p.add(`must be less than ${LIMITS.selectOptions + 1} items`, `${pointer}/option_groups`);
          }
          el.option_groups.forEach((g, i) =>
            checkOptions(
              p,
              isObject(g) ? g.options : undefined,
              `${pointer}/option_groups/${i}/options`,
              LIMITS.selectOptions,
              true,
            ),
          );
        }
      }
      break;
    }
    case 'overflow':
      checkOptions(p, el.options, `${pointer}/options`, 5, true);
      break;
    case 'checkboxes':
    case 'radio_buttons':
      checkOptions(p, el.options, `${pointer}/options`, LIMITS.choiceOptions, true);
      break;
    case 'plain_text_input': {
      const min = el.min_length;
      const max = el.max_length;
      if (min !== undefined && (typeof min !== 'number' || min < 0 || min > LIMITS.textInputLength)) {
        p.add(`must be between 0 and ${LIMITS.textInputLength}`, `${pointer}/min_length`);
      }
      if (max !== undefined && (typeof max !== 'number' || max < 1 || max > LIMITS.textInputLength)) {
        p.add(`must be between 1 and ${LIMITS.textInputLength}`, `${pointer}/max_length`);
      }
      checkString(p, el.initial_value, `${pointer}/initial_value`, LIMITS.textInputLength);
      break;
    }
    case 'number_input':
      if (typeof el.is_decimal_allowed !== 'boolean')
        p.add('missing required field: is_decimal_allowed', `${pointer}/is_decimal_allowed`);
      for (const k of ['min_value', 'max_value', 'initial_value']) {
        if (el[k] !== undefined && typeof el[k] !== 'string') p.add('must be a string', `${pointer}/${k}`);
      }
      if (surface !== 'modal' || !inInput) p.add('number_input is only allowed in input blocks of modals', pointer);
      break;
    case 'datepicker':
      if (
        el.initial_date !== undefined &&
        !(typeof el.initial_date === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(el.initial_date))
      ) {
        p.add('must match the format YYYY-MM-DD', `${pointer}/initial_date`);
      }
      break;
    case 'timepicker':
      if (
        el.initial_time !== undefined &&
        !(typeof el.initial_time === 'string' && /^([01]\d|2[0-3]):[0-5]\d$/.test(el.initial_time))
      ) {
        p.add('must match the format HH:mm', `${pointer}/initial_time`);
      }
      break;
    case 'datetimepicker':
      if (
        el.initial_date_time !== undefined &&
        !(typeof el.initial_date_time === 'number' && Number.isInteger(el.initial_date_time))
      ) {
        p.add('must be an integer (UNIX seconds)', `${pointer}/initial_date_time`);
      }
      break;
  }
  checkInitialOptions(p, el, pointer);
  if (typeof el.max_selected_items === 'number' && el.max_selected_items < 1) {
    p.add('must be at least 1', `${pointer}/max_selected_items`);
  }
  if (INPUT_BLOCK_ONLY.has(type) && type !== 'number_input' && !inInput) {
    p.add(`${type} is only allowed in input blocks`, pointer);
  }
}

/** Slack refuses an initial_option(s) that is not one of the element's options (same value and text). */
function checkInitialOptions(p: Problems, el: Json, pointer: string): void {
  if (!['static_select', 'multi_static_select', 'radio_buttons', 'checkboxes'].includes(String(el.type))) return;
  const direct = Array.isArray(el.options) ? el.options : [];
  const grouped = Array.isArray(el.option_groups)
    ? el.option_groups.flatMap((g) => (isObject(g) && Array.isArray(g.options) ? g.options : []))
    : [];
  const known = [...direct, ...grouped].filter(isObject);
  const textOf = (o: Json) => (isObject(o.text) ? o.text.text : undefined);
  const matches = (o: unknown) => isObject(o) && known.some((k) => k.value === o.value && textOf(k) === textOf(o));
  if (el.initial_option !== undefined && !matches(el.initial_option)) {
    p.add('must match one of the options', `${pointer}/initial_option`);
  }
  if (Array.isArray(el.initial_options)) {
    el.initial_options.forEach((o, i) => {
      if (!matches(o)) p.add('must match one of the options', `${pointer}/initial_options/${i}`);
    });
  }
}

function checkActionIdsUnique(p: Problems, elements: unknown[], pointer: string): void {
  const seen = new Set<string>();
  elements.forEach((el, i) => {
    if (isObject(el) && typeof el.action_id === 'string') {
      if (seen.has(el.action_id)) p.add(`duplicate action_id ${el.action_id}`, `${pointer}/${i}/action_id`);
      seen.add(el.action_id);
    }
  });
}

function checkBlock(p: Problems, block: unknown, pointer: string, surface: Surface): void {
  if (!isObject(block)) return p.add('must be an object', pointer);
  checkString(p, block.block_id, `${pointer}/block_id`, LIMITS.blockId);
  switch (block.type) {
    case 'section': {
      if (block.text === undefined && block.fields === undefined) {
        p.add('must provide either text or fields', pointer);
      }
      if (block.text !== undefined) checkText(p, block.text, `${pointer}/text`, { max: LIMITS.sectionText });
      if (block.fields !== undefined) {
        if (!Array.isArray(block.fields)) p.add('must be an array', `${pointer}/fields`);
        else {
          if (block.fields.length > LIMITS.sectionFields)
            p.add(`must be less than ${LIMITS.sectionFields + 1} items`, `${pointer}/fields`);
          block.fields.forEach((f, i) => checkText(p, f, `${pointer}/fields/${i}`, { max: LIMITS.sectionFieldText }));
        }
      }
      if (block.accessory !== undefined) {
        if (isObject(block.accessory) && block.accessory.type === 'image') {
          checkString(p, block.accessory.image_url, `${pointer}/accessory/image_url`, LIMITS.imageUrl, true);
          checkString(p, block.accessory.alt_text, `${pointer}/accessory/alt_text`, LIMITS.imageAlt, true);
        } else checkElement(p, block.accessory, `${pointer}/accessory`, surface, false);
      }
      break;
    }
    case 'header':
      checkText(p, block.text, `${pointer}/text`, { max: LIMITS.headerText, plainOnly: true });
      break;
    case 'divider':
      break;
    case 'image':
      checkString(p, block.image_url, `${pointer}/image_url`, LIMITS.imageUrl, block.slack_file === undefined);
      checkString(p, block.alt_text, `${pointer}/alt_text`, LIMITS.imageAlt, true);
      if (block.title !== undefined) checkText(p, block.title, `${pointer}/title`, { max: 2000, plainOnly: true });
      break;
    case 'context': {
      const els = block.elements;
      if (!Array.isArray(els) || els.length === 0)
        return p.add('must provide at least 1 element', `${pointer}/elements`);
      if (els.length > LIMITS.contextElements)
        p.add(`must be less than ${LIMITS.contextElements + 1} items`, `${pointer}/elements`);
      els.forEach((e, i) => {
        const ep = `${pointer}/elements/${i}`;
        if (isObject(e) && e.type === 'image') {
          checkString(p, e.image_url, `${ep}/image_url`, LIMITS.imageUrl, true);
          checkString(p, e.alt_text, `${ep}/alt_text`, LIMITS.imageAlt, true);
        } else checkText(p, e, ep, { max: LIMITS.sectionText });
      });
      break;
    }
    case 'actions': {
      const els = block.elements;
      if (!Array.isArray(els) || els.length === 0)
        return p.add('must provide at least 1 element', `${pointer}/elements`);
      if (els.length > LIMITS.actionsElements)
        p.add(`must be less than ${LIMITS.actionsElements + 1} items`, `${pointer}/elements`);
      els.forEach((e, i) => checkElement(p, e, `${pointer}/elements/${i}`, surface, false));
      checkActionIdsUnique(p, els, `${pointer}/elements`);
      break;
    }
    case 'input':
      checkText(p, block.label, `${pointer}/label`, { max: LIMITS.inputLabel, plainOnly: true });
      if (block.hint !== undefined)
        checkText(p, block.hint, `${pointer}/hint`, { max: LIMITS.inputHint, plainOnly: true });
      if (block.element === undefined) p.add('missing required field: element', `${pointer}/element`);
      else checkElement(p, block.element, `${pointer}/element`, surface, true);
      break;
    case 'rich_text':
    case 'markdown':
    case 'video':
    case 'file':
      break;
    default:
      p.add('must be a valid enum value', `${pointer}/type`);
  }
}

/** Block list checks shared by messages and views: types, per-block limits, block_id uniqueness. */
export function checkBlocks(blocks: unknown, surface: Surface, pointer = '/blocks'): string[] {
  const p = new Problems();
  if (!Array.isArray(blocks)) {
    p.add('must be an array', pointer);
    return p.list;
  }
  const max = surface === 'message' ? LIMITS.messageBlocks : LIMITS.viewBlocks;
  if (blocks.length > max) p.add(`must be less than ${max + 1} items`, pointer);
  const seen = new Set<string>();
  blocks.forEach((b, i) => {
    checkBlock(p, b, `${pointer}/${i}`, surface);
    if (isObject(b) && typeof b.block_id === 'string') {
      if (seen.has(b.block_id)) p.add(`duplicate block_id ${b.block_id}`, `${pointer}/${i}/block_id`);
      seen.add(b.block_id);
    }
  });
  return p.list;
}

/** The `view` argument of views.open / push / update (modal) or views.publish (home). */
export function checkView(view: unknown, expected: 'modal' | 'home'): string[] {
  const p = new Problems();
  if (!isObject(view)) {
    p.add('must be an object', '/view');
    return p.list;
  }
  if (view.type === undefined) p.add('missing required field: type', '/view/type');
  else if (view.type !== expected) p.add('must be a valid enum value', '/view/type');
  if (expected === 'modal') {
    if (view.title === undefined) p.add('missing required field: title', '/view/title');
    else checkText(p, view.title, '/view/title', { max: LIMITS.viewTitle, plainOnly: true });
  }
  for (const key of ['submit', 'close'] as const) {
    if (view[key] !== undefined && view[key] !== null) {
      checkText(p, view[key], `/view/${key}`, { max: LIMITS.viewButton, plainOnly: true });
    }
  }
  checkString(p, view.private_metadata, '/view/private_metadata', LIMITS.privateMetadata);
  checkString(p, view.callback_id, '/view/callback_id', LIMITS.callbackId);
  checkString(p, view.external_id, '/view/external_id', LIMITS.externalId);
  if (view.blocks === undefined) p.add('missing required field: blocks', '/view/blocks');
  else {
    p.list.push(...checkBlocks(view.blocks, expected, '/view/blocks'));
    if (
      expected === 'modal' &&
      Array.isArray(view.blocks) &&
      view.blocks.some((b) => isObject(b) && b.type === 'input') &&
      (view.submit === undefined || view.submit === null)
    ) {
      p.add('must provide submit when blocks contain an input block', '/view/submit');
    }
  }
  return p.list;
}

export function viewTooLarge(view: unknown): boolean {
  return Buffer.byteLength(JSON.stringify(view) ?? '', 'utf8') > LIMITS.viewBytes;
}

export type MessageCheck = { ok: true } | { ok: false; error: string; messages?: string[] };

/** chat.postMessage / postEphemeral / update content rules: text or blocks, block and text limits. */
export function checkMessageContent(
  args: { text?: unknown; blocks?: unknown },
  opts: { requireContent: boolean },
): MessageCheck {
  const hasText = typeof args.text === 'string' && args.text.length > 0;
  const hasBlocks = Array.isArray(args.blocks) && args.blocks.length > 0;
  if (args.blocks !== undefined && !Array.isArray(args.blocks)) return { ok: false, error: 'invalid_blocks_format' };
  if (opts.requireContent && !hasText && !hasBlocks) return { ok: false, error: 'no_text' };
  if (typeof args.text === 'string' && args.text.length > LIMITS.messageText)
    return { ok: false, error: 'msg_too_long' };
  if (args.blocks !== undefined) {
    const problems = checkBlocks(args.blocks, 'message');
    if (problems.length > 0) return { ok: false, error: 'invalid_blocks', messages: problems };
  }
  return { ok: true };
}
