// Block Kit to HTML for the simulator's web UI. Pure functions: blocks in, an HTML string out, every
// piece of text escaped (the app's text is untrusted here as it is in Slack). Interactive elements carry
// data-* attributes that the page script (app.js) reads to drive the simulator.
import { formatInTimeZone } from '../../lib/date-fns-tz.js';

type Json = Record<string, unknown>;

export interface RenderContext {
  /** user id -> display name, channel id -> name, usergroup id -> handle (for mentions and selects). */
  users: Array<{ id: string; name: string; deleted?: boolean }>;
  channels: Array<{ id: string; name: string }>;
  usergroups?: Array<{ id: string; handle: string }>;
  /** The viewer's IANA zone (datetimepicker initial values, message times). */
  tz: string;
  /** Inline errors by block_id (response_action errors) for a view. */
  errors?: Record<string, string> | undefined;
  /** Options the app last answered for an external select, by action_id. */
  externalOptions?: Record<string, Json[]>;
  /** Who is looking (their own reactions are marked). */
  viewer?: string;
  /** The app's message shortcuts, offered under each message's "More actions". */
  messageShortcuts?: Array<{ name: string; callbackId: string }>;
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!);
}

const attr = (name: string, value: unknown) =>
  value === undefined || value === null ? '' : ` ${name}="${escapeHtml(value)}"`;

const EMOJI: Record<string, string> = {
  tada: '🎉',
  gift: '🎁',
  star: '⭐',
  star2: '🌟',
  sparkles: '✨',
  white_check_mark: '✅',
  heavy_check_mark: '✔️',
  x: '❌',
  hourglass: '⌛',
  hourglass_flowing_sand: '⏳',
  calendar: '📆',
  date: '📅',
  clock3: '🕒',
  alarm_clock: '⏰',
  moneybag: '💰',
  money_with_wings: '💸',
  dollar: '💵',
  clap: '👏',
  heart: '❤️',
  raised_hands: '🙌',
  wave: '👋',
  warning: '⚠️',
  no_entry: '⛔',
  no_entry_sign: '🚫',
  email: '📧',
  envelope: '✉️',
  incoming_envelope: '📨',
  thumbsup: '👍',
  '+1': '👍',
  thumbsdown: '👎',
  bell: '🔔',
  lock: '🔒',
  bank: '🏦',
  credit_card: '💳',
  information_source: 'ℹ️',
  bulb: '💡',
  rocket: '🚀',
  trophy: '🏆',
  medal: '🏅',
  confetti_ball: '🎊',
  mailbox: '📫',
  memo: '📝',
  pencil: '✏️',
  mag: '🔍',
  gear: '⚙️',
  wastebasket: '🗑️',
  repeat: '🔁',
  arrows_counterclockwise: '🔄',
  hammer_and_wrench: '🛠️',
  busts_in_silhouette: '👥',
  bust_in_silhouette: '👤',
  smile: '😄',
  slightly_smiling_face: '🙂',
  pray: '🙏',
  fire: '🔥',
  100: '💯',
  link: '🔗',
  receipt: '🧾',
  grey_question: '❔',
  mailbox_with_mail: '📬',
  raised_hand: '✋',
  hand: '✋',
  raising_hand: '🙋',
  heavy_multiplication_x: '✖️',
  ballot_box_with_check: '☑️',
  question: '❓',
  exclamation: '❗',
  hourglass_done: '⌛',
  eyes: '👀',
  envelope_with_arrow: '📩',
  outbox_tray: '📤',
  card_index: '📇',
  page_facing_up: '📄',
  clipboard: '📋',
  chart_with_upwards_trend: '📈',
  key: '🔑',
  shield: '🛡️',
  red_circle: '🔴',
  large_green_circle: '🟢',
  large_yellow_circle: '🟡',
  stopwatch: '⏱️',
  inbox_tray: '📥',
};

/** The reactions the simulator's picker offers (Slack offers them all; these cover Kudos' settings), with their emoji. */
export const REACTION_CHOICES = ['gift', 'thumbsup', 'tada', 'heart', 'raised_hands', 'clap'].map((name) => ({
  name,
  emoji: EMOJI[name] ?? `:${name}:`,
}));

/** `:name:` to the emoji where known (after HTML escaping; names contain no HTML specials). */
function emojify(escaped: string): string {
  return escaped.replace(/:([a-z0-9_+-]+):/g, (whole, name: string) => EMOJI[name] ?? whole);
}

/** Slack's own escaping (&amp; &lt; &gt;) undone, then HTML-escaped. */
function slackTextToHtml(text: string): string {
  return escapeHtml(text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&'));
}

function safeHref(url: string): string | undefined {
  return /^(https?:|mailto:)/i.test(url) ? url : undefined;
}

/** Inline mrkdwn styles on already-escaped text: *bold*, _italic_, ~strike~, `code`. */
function styleInline(escaped: string): string {
  return escaped
    .replace(/`([^`\n]+)`/g, '<code>$1</code>')
    .replace(/(^|[\s(>])\*([^*\n]+)\*(?=$|[\s).,!?:;<])/g, '$1<b>$2</b>')
    .replace(/(^|[\s(>])_([^_\n]+)_(?=$|[\s).,!?:;<])/g, '$1<i>$2</i>')
    .replace(/(^|[\s(>])~([^~\n]+)~(?=$|[\s).,!?:;<])/g, '$1<s>$2</s>');
}

/** One Slack control sequence `<...>`: mentions, channels, groups, specials, links. */
function renderToken(inner: string, ctx: RenderContext): string {
  const [target = '', label] = splitOnce(inner, '|');
  if (target.startsWith('@')) {
    const id = target.slice(1);
    const name = ctx.users.find((u) => u.id === id)?.name ?? label ?? id;
    return `<span class="mention"${attr('data-user-id', id)}>@${escapeHtml(name)}</span>`;
  }
  if (target.startsWith('#')) {
    const id = target.slice(1);
    const name = ctx.channels.find((c) => c.id === id)?.name ?? label ?? id;
    return `<span class="mention channel">#${escapeHtml(name)}</span>`;
  }
  if (target.startsWith('!subteam^')) {
    const id = target.slice('!subteam^'.length);
    const handle = ctx.usergroups?.find((g) => g.id === id)?.handle;
    return `<span class="mention group">${escapeHtml(handle ? `@${handle}` : (label ?? id))}</span>`;
  }
  if (target.startsWith('!date^')) {
    return `<span class="date">${escapeHtml(label ?? target)}</span>`;
  }
  if (target.startsWith('!')) {
    return `<span class="mention special">@${escapeHtml(target.slice(1))}</span>`;
  }
  const href = safeHref(target);
  const text = label ?? target;
  return href
    ? `<a href="${escapeHtml(href)}" target="_blank" rel="noopener noreferrer">${slackTextToHtml(text)}</a>`
    : slackTextToHtml(`<${inner}>`);
}

function splitOnce(s: string, sep: string): [string, string | undefined] {
  const i = s.indexOf(sep);
  return i < 0 ? [s, undefined] : [s.slice(0, i), s.slice(i + 1)];
}

/** Slack mrkdwn to HTML (the subset Kudos uses and Slack renders). */
export function renderMrkdwn(text: string, ctx: RenderContext): string {
  const lines: string[] = [];
  let inCode = false;
  const codeBuffer: string[] = [];
  const out: string[] = [];
  const flushLines = () => {
    if (lines.length === 0) return;
    out.push(lines.join('<br>'));
    lines.length = 0;
  };
  for (const rawLine of text.split('\n')) {
    if (rawLine.trim().startsWith('```')) {
      if (inCode) {
        out.push(`<pre>${slackTextToHtml(codeBuffer.join('\n'))}</pre>`);
        codeBuffer.length = 0;
        inCode = false;
      } else {
        flushLines();
        inCode = true;
      }
      continue;
    }
    if (inCode) {
      codeBuffer.push(rawLine);
      continue;
    }
    const quote = /^(&gt;|>)\s?/.exec(rawLine);
    const line = quote ? rawLine.slice(quote[0].length) : rawLine;
    let html = '';
    let last = 0;
    for (const m of line.matchAll(/<([^<>]+)>/g)) {
      html += styleInline(emojify(slackTextToHtml(line.slice(last, m.index))));
      html += renderToken(m[1]!, ctx);
      last = m.index + m[0].length;
    }
    html += styleInline(emojify(slackTextToHtml(line.slice(last))));
    if (quote) {
      flushLines();
      out.push(`<blockquote>${html}</blockquote>`);
    } else lines.push(html);
  }
  if (inCode) out.push(`<pre>${slackTextToHtml(codeBuffer.join('\n'))}</pre>`);
  flushLines();
  return out.join('');
}

/** A text object (plain_text or mrkdwn). */
export function renderText(obj: unknown, ctx: RenderContext): string {
  if (!obj || typeof obj !== 'object') return '';
  const t = obj as Json;
  const text = typeof t.text === 'string' ? t.text : '';
  if (t.type === 'mrkdwn') return renderMrkdwn(text, ctx);
  const escaped = escapeHtml(text).replace(/\n/g, '<br>');
  return t.emoji === false ? escaped : emojify(escaped);
}

const plain = (obj: unknown): string =>
  obj && typeof obj === 'object' && typeof (obj as Json).text === 'string' ? ((obj as Json).text as string) : '';

function optionsOf(el: Json): Json[] {
  const direct = Array.isArray(el.options) ? (el.options as Json[]) : [];
  const grouped = Array.isArray(el.option_groups)
    ? (el.option_groups as Json[]).flatMap((g) => (Array.isArray(g.options) ? (g.options as Json[]) : []))
    : [];
  return [...direct, ...grouped];
}

function elementAttrs(el: Json, blockId: string): string {
  return `${attr('data-block-id', blockId)}${attr('data-action-id', el.action_id)}${attr('data-type', el.type)}`;
}

function renderButton(el: Json, blockId: string, ctx: RenderContext): string {
  const style = el.style === 'primary' || el.style === 'danger' ? ` ${el.style}` : '';
  const confirm =
    el.confirm && typeof el.confirm === 'object'
      ? attr(
          'data-confirm',
          JSON.stringify({
            title: plain((el.confirm as Json).title),
            text: plain((el.confirm as Json).text),
            confirm: plain((el.confirm as Json).confirm) || 'Yes',
            deny: plain((el.confirm as Json).deny) || 'Cancel',
          }),
        )
      : '';
  return `<button type="button" class="bk-button${style}"${elementAttrs(el, blockId)}${attr('data-value', el.value)}${attr('data-url', typeof el.url === 'string' ? safeHref(el.url) : undefined)}${confirm}>${renderText(el.text, ctx)}</button>`;
}

function selectOptions(options: Json[], selected: (o: Json) => boolean, withBlank: boolean, placeholder = ''): string {
  const blank = withBlank ? `<option value="">${escapeHtml(placeholder || 'Select…')}</option>` : '';
  return (
    blank +
    options
      .map(
        (o) =>
          `<option${attr('value', o.value)}${selected(o) ? ' selected' : ''}>${escapeHtml(plain(o.text))}</option>`,
      )
      .join('')
  );
}

function userChoices(ctx: RenderContext): Json[] {
  return ctx.users.filter((u) => !u.deleted).map((u) => ({ text: { type: 'plain_text', text: u.name }, value: u.id }));
}

function channelChoices(ctx: RenderContext): Json[] {
  return ctx.channels.map((c) => ({ text: { type: 'plain_text', text: `#${c.name}` }, value: c.id }));
}

function toLocalInput(seconds: unknown, tz: string): string | undefined {
  return typeof seconds === 'number' ? formatInTimeZone(new Date(seconds * 1000), tz, "yyyy-MM-dd'T'HH:mm") : undefined;
}

/** A form element (input blocks, and interactive elements outside buttons). */
export function renderElement(el: Json, blockId: string, ctx: RenderContext): string {
  const a = elementAttrs(el, blockId);
  const placeholder = plain(el.placeholder);
  const ph = attr('placeholder', placeholder || undefined);
  const cls = 'bk-input';
  switch (el.type) {
    case 'button':
      return renderButton(el, blockId, ctx);
    case 'plain_text_input':
      return el.multiline === true
        ? `<textarea class="${cls}"${a}${ph}${attr('maxlength', el.max_length)}>${escapeHtml(el.initial_value ?? '')}</textarea>`
        : `<input type="text" class="${cls}"${a}${ph}${attr('maxlength', el.max_length)}${attr('value', el.initial_value)}>`;
    case 'email_text_input':
      return `<input type="email" class="${cls}"${a}${ph}${attr('value', el.initial_value)}>`;
    case 'url_text_input':
      return `<input type="url" class="${cls}"${a}${ph}${attr('value', el.initial_value)}>`;
    case 'number_input':
      return `<input type="number" class="${cls}"${a}${ph}${attr('step', el.is_decimal_allowed === true ? 'any' : '1')}${attr('min', el.min_value)}${attr('max', el.max_value)}${attr('value', el.initial_value)}>`;
    case 'datepicker':
      return `<input type="date" class="${cls}"${a}${attr('value', el.initial_date)}>`;
    case 'timepicker':
      return `<input type="time" class="${cls}"${a}${attr('value', el.initial_time)}>${el.timezone ? `<span class="hint">${escapeHtml(el.timezone)}</span>` : ''}`;
    case 'datetimepicker':
      return `<input type="datetime-local" class="${cls}"${a}${attr('value', toLocalInput(el.initial_date_time, ctx.tz))}><span class="hint">${escapeHtml(ctx.tz)}</span>`;
    case 'static_select': {
      const init = (el.initial_option as Json | undefined)?.value;
      return `<select class="${cls}"${a}>${selectOptions(optionsOf(el), (o) => o.value === init, true, placeholder)}</select>`;
    }
    case 'multi_static_select': {
      const init = new Set(((el.initial_options as Json[] | undefined) ?? []).map((o) => o.value));
      return `<select multiple class="${cls}"${a}>${selectOptions(optionsOf(el), (o) => init.has(o.value), false)}</select>`;
    }
    case 'external_select':
    case 'multi_external_select': {
      const multiple = el.type === 'multi_external_select';
      const initial = multiple
        ? ((el.initial_options as Json[] | undefined) ?? [])
        : el.initial_option
          ? [el.initial_option as Json]
          : [];
      const loaded = ctx.externalOptions?.[String(el.action_id)] ?? [];
      const all = [...initial, ...loaded.filter((o) => !initial.some((i) => i.value === o.value))];
      const initValues = new Set(initial.map((o) => o.value));
      const minQuery = typeof el.min_query_length === 'number' ? el.min_query_length : 3;
      return (
        `<div class="external"><input type="search" class="ext-search" placeholder="${escapeHtml(placeholder || 'Type to search…')}"${attr('data-for-action', el.action_id)}${attr('data-block-id', blockId)}${attr('data-min-query', minQuery)}>` +
        `<select${multiple ? ' multiple' : ''} class="${cls}"${a}>${selectOptions(all, (o) => initValues.has(o.value), !multiple, placeholder)}</select></div>`
      );
    }
    case 'users_select':
      return `<select class="${cls}"${a}>${selectOptions(userChoices(ctx), (o) => o.value === el.initial_user, true, placeholder)}</select>`;
    case 'multi_users_select': {
      const init = new Set((el.initial_users as string[] | undefined) ?? []);
      return `<select multiple class="${cls}"${a}>${selectOptions(userChoices(ctx), (o) => init.has(o.value as string), false)}</select>`;
    }
    case 'conversations_select':
    case 'channels_select': {
      const init = el.initial_conversation ?? el.initial_channel;
      return `<select class="${cls}"${a}>${selectOptions(channelChoices(ctx), (o) => o.value === init, true, placeholder)}</select>`;
    }
    case 'multi_conversations_select':
    case 'multi_channels_select': {
      const init = new Set(((el.initial_conversations ?? el.initial_channels) as string[] | undefined) ?? []);
      return `<select multiple class="${cls}"${a}>${selectOptions(channelChoices(ctx), (o) => init.has(o.value as string), false)}</select>`;
    }
    case 'radio_buttons':
    case 'checkboxes': {
      const radio = el.type === 'radio_buttons';
      const init = radio
        ? new Set([(el.initial_option as Json | undefined)?.value])
        : new Set(((el.initial_options as Json[] | undefined) ?? []).map((o) => o.value));
      const name = `${blockId}/${String(el.action_id)}`;
      const items = optionsOf(el)
        .map(
          (o) =>
            `<label class="choice"><input type="${radio ? 'radio' : 'checkbox'}"${attr('name', name)}${attr('value', o.value)}${init.has(o.value) ? ' checked' : ''}> <span>${renderText(o.text, ctx)}</span>${o.description ? `<small>${renderText(o.description, ctx)}</small>` : ''}</label>`,
        )
        .join('');
      return `<div class="${cls} choices"${a}>${items}</div>`;
    }
    case 'overflow':
      return `<select class="bk-overflow"${a}><option value="">⋯</option>${optionsOf(el)
        .map((o) => `<option${attr('value', o.value)}>${escapeHtml(plain(o.text))}</option>`)
        .join('')}</select>`;
    case 'image':
      return renderImage(el, 'accessory');
    default:
      return `<span class="bk-unsupported">[${escapeHtml(el.type)}]</span>`;
  }
}

function renderImage(el: Json, cls: string): string {
  const src = typeof el.image_url === 'string' ? safeHref(el.image_url) : undefined;
  return src
    ? `<img class="bk-image ${cls}" src="${escapeHtml(src)}" alt="${escapeHtml(el.alt_text)}" loading="lazy">`
    : `<span class="bk-image ${cls} missing">${escapeHtml(el.alt_text)}</span>`;
}

function renderRichText(block: Json, ctx: RenderContext): string {
  const parts: string[] = [];
  const walk = (node: unknown) => {
    if (!node || typeof node !== 'object') return;
    const n = node as Json;
    if (n.type === 'text' && typeof n.text === 'string') parts.push(escapeHtml(n.text).replace(/\n/g, '<br>'));
    else if (n.type === 'user' && typeof n.user_id === 'string') parts.push(renderToken(`@${n.user_id}`, ctx));
    else if (n.type === 'link' && typeof n.url === 'string')
      parts.push(renderToken(`${n.url}|${String(n.text ?? n.url)}`, ctx));
    if (Array.isArray(n.elements)) n.elements.forEach(walk);
  };
  walk(block);
  return parts.join('');
}

/** One block. `surface` decides nothing about escaping, only a few layout classes. */
export function renderBlock(block: Json, ctx: RenderContext): string {
  const blockId = String(block.block_id ?? '');
  const b = (inner: string, cls: string) =>
    `<div class="bk ${cls}"${attr('data-block-id', blockId || undefined)}>${inner}</div>`;
  switch (block.type) {
    case 'header':
      return b(`<h3>${renderText(block.text, ctx)}</h3>`, 'bk-header');
    case 'divider':
      return b('<hr>', 'bk-divider');
    case 'section': {
      const text = block.text ? `<div class="bk-text">${renderText(block.text, ctx)}</div>` : '';
      const fields = Array.isArray(block.fields)
        ? `<div class="bk-fields">${(block.fields as Json[]).map((f) => `<div class="bk-field">${renderText(f, ctx)}</div>`).join('')}</div>`
        : '';
      const accessory = block.accessory
        ? `<div class="bk-accessory">${renderElement(block.accessory as Json, blockId, ctx)}</div>`
        : '';
      return b(`<div class="bk-section-body">${text}${fields}</div>${accessory}`, 'bk-section');
    }
    case 'context': {
      const els = Array.isArray(block.elements) ? (block.elements as Json[]) : [];
      return b(
        els
          .map((e) => (e.type === 'image' ? renderImage(e, 'context-image') : `<span>${renderText(e, ctx)}</span>`))
          .join(''),
        'bk-context',
      );
    }
    case 'image': {
      const title = block.title ? `<figcaption>${renderText(block.title, ctx)}</figcaption>` : '';
      return b(`<figure>${title}${renderImage(block, 'bk-image-block')}</figure>`, 'bk-image-wrap');
    }
    case 'actions': {
      const els = Array.isArray(block.elements) ? (block.elements as Json[]) : [];
      return b(els.map((e) => renderElement(e, blockId, ctx)).join(''), 'bk-actions');
    }
    case 'input': {
      const error = ctx.errors?.[blockId];
      const label = `<label class="bk-label">${renderText(block.label, ctx)}${block.optional === true ? ' <span class="optional">(optional)</span>' : ''}</label>`;
      const el = block.element ? renderElement(block.element as Json, blockId, ctx) : '';
      const hint = block.hint ? `<div class="hint">${renderText(block.hint, ctx)}</div>` : '';
      const err = `<div class="bk-error" role="alert"${error ? '' : ' hidden'}>${escapeHtml(error ?? '')}</div>`;
      const html = b(`${label}${el}${hint}${err}`, `bk-input-block${error ? ' has-error' : ''}`);
      // dispatch_action: the element sends block_actions on change (the page script looks for this).
      return block.dispatch_action === true
        ? html.replace('<div class="bk ', '<div data-dispatch="1" class="bk ')
        : html;
    }
    case 'rich_text':
      return b(`<div class="bk-text">${renderRichText(block, ctx)}</div>`, 'bk-rich-text');
    case 'markdown':
      return b(`<div class="bk-text">${renderMrkdwn(String(block.text ?? ''), ctx)}</div>`, 'bk-markdown');
    default:
      return b(`<span class="bk-unsupported">[unsupported block ${escapeHtml(block.type)}]</span>`, 'bk-unknown');
  }
}

export function renderBlocks(blocks: unknown, ctx: RenderContext): string {
  return Array.isArray(blocks) ? (blocks as Json[]).map((b) => renderBlock(b, ctx)).join('') : '';
}

export interface RenderableMessage {
  channel: string;
  ts: string;
  user: string;
  bot_id?: string | undefined;
  text: string;
  blocks?: Json[] | undefined;
  ephemeral: boolean;
  edited?: { ts: string } | undefined;
  thread_ts?: string | undefined;
  /** Files shared with it (the app's uploads): each a download link. */
  files?: Array<{ id: string; name: string; title: string }> | undefined;
  reactions?: Array<{ name: string; users: string[] }> | undefined;
}

/** The reactions under a message (click one to add or take back yours), and its hover actions. */
function messageExtras(m: RenderableMessage, ctx: RenderContext): { reactions: string; actions: string } {
  const reactions = (m.reactions ?? [])
    .filter((r) => r.users.length > 0)
    .map((r) => {
      const mine = ctx.viewer !== undefined && r.users.includes(ctx.viewer);
      return `<button type="button" class="reaction${mine ? ' mine' : ''}"${attr('data-reaction', r.name)} aria-pressed="${mine}"${attr('title', `:${r.name}:`)}>${emojify(`:${escapeHtml(r.name)}:`)} <span class="count">${r.users.length}</span></button>`;
    })
    .join('');
  if (m.ephemeral) return { reactions: '', actions: '' };
  // The menus themselves are the page's (app.js), so the message's text stays the message's.
  const more =
    (ctx.messageShortcuts ?? []).length > 0
      ? '<button type="button" class="msg-more" aria-label="More actions" title="More actions">⋮</button>'
      : '';
  return {
    reactions: reactions ? `<div class="reactions">${reactions}</div>` : '',
    actions: `<div class="msg-actions"><button type="button" class="msg-react" aria-label="Add reaction" title="Add reaction">☺</button>${more}</div>`,
  };
}

/** A message as the channel shows it: author, time, ephemeral marker, its blocks (or its text). */
export function renderMessage(
  m: RenderableMessage,
  ctx: RenderContext,
  opts: { replies?: RenderableMessage[] | undefined } = {},
): string {
  const author = m.user === 'USLACKBOT' ? 'Slackbot' : (ctx.users.find((u) => u.id === m.user)?.name ?? m.user);
  const time = formatInTimeZone(new Date(Number(m.ts.split('.')[0]) * 1000), ctx.tz, 'HH:mm');
  const body =
    m.blocks && m.blocks.length > 0
      ? renderBlocks(m.blocks, ctx)
      : `<div class="bk-text">${renderMrkdwn(m.text, ctx)}</div>`;
  const badge = m.bot_id ? '<span class="badge">APP</span>' : '';
  const files = (m.files ?? [])
    .map(
      (f) =>
        `<a class="msg-file"${attr('href', `/_ui/file?id=${encodeURIComponent(f.id)}`)}${attr('download', f.name)}>📄 ${escapeHtml(f.title || f.name)}</a>`,
    )
    .join('');
  const ephemeral = m.ephemeral ? '<div class="ephemeral-note">👁 Only visible to you</div>' : '';
  const edited = m.edited ? '<span class="edited">(edited)</span>' : '';
  const replies =
    opts.replies && opts.replies.length > 0
      ? `<div class="thread"><div class="thread-count">${opts.replies.length} ${opts.replies.length === 1 ? 'reply' : 'replies'}</div>${opts.replies.map((r) => renderMessage(r, ctx)).join('')}</div>`
      : '';
  const extras = messageExtras(m, ctx);
  return (
    `<article class="msg${m.ephemeral ? ' ephemeral' : ''}"${attr('data-ts', m.ts)}${attr('data-channel', m.channel)}>` +
    `<div class="avatar">${escapeHtml(author.slice(0, 1).toUpperCase())}</div>` +
    `<div class="msg-main">${ephemeral}<div class="msg-head"><span class="author">${escapeHtml(author)}</span>${badge}<time>${escapeHtml(time)}</time>${edited}${extras.actions}</div>` +
    `<div class="msg-body">${body}${files}</div>${extras.reactions}${replies}</div></article>`
  );
}

export interface RenderableView {
  id: string;
  hash: string;
  title?: Json;
  submit?: Json | null;
  close?: Json | null;
  blocks: Json[];
}

/** A modal: title, blocks with inputs, general error, Close/Submit buttons. */
export function renderModal(view: RenderableView, ctx: RenderContext, opts: { depth: number }): string {
  const general = ctx.errors?.[''];
  const close = view.close ? plain(view.close) : 'Cancel';
  const submit = view.submit
    ? `<button type="button" class="bk-button primary modal-submit">${escapeHtml(plain(view.submit))}</button>`
    : '';
  return (
    `<div class="modal" role="dialog" aria-modal="true"${attr('data-view-id', view.id)}${attr('data-hash', view.hash)}>` +
    `<header><h2>${renderText(view.title, ctx)}</h2>${opts.depth > 1 ? `<span class="depth">${opts.depth} / 3</span>` : ''}<button type="button" class="modal-x" aria-label="Close all">✕</button></header>` +
    `<div class="modal-body">${renderBlocks(view.blocks, ctx)}</div>` +
    `<div class="modal-general-error" role="alert"${general ? '' : ' hidden'}>${escapeHtml(general ?? '')}</div>` +
    `<footer><button type="button" class="bk-button modal-close">${escapeHtml(close)}</button>${submit}</footer></div>`
  );
}
