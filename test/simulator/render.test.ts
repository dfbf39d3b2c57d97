import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import {
  escapeHtml,
  renderBlocks,
  type RenderContext,
  renderMessage,
  renderModal,
  renderMrkdwn,
} from '../../src/simulator/web/render.js';

const ctx: RenderContext = {
  users: [
    { id: 'U_EMP1', name: 'Eli Engineer' },
    { id: 'U_GONE', name: 'Greg Gone', deleted: true },
  ],
  channels: [{ id: 'C_KUDOS', name: 'kudos' }],
  usergroups: [{ id: 'S_TEAM', handle: 'team' }],
  tz: 'Asia/Tokyo',
};
const plain = (text: string) => ({ type: 'plain_text', text });
const md = (text: string) => ({ type: 'mrkdwn', text });

describe('escaping', () => {
  it('never lets text become markup, whatever the text', () => {
    fc.assert(
      fc.property(fc.string(), (s) => {
        const html = renderBlocks(
          [
            { type: 'section', text: plain(s) },
            { type: 'header', text: plain(s) },
            { type: 'section', text: md(s) },
          ],
          ctx,
        );
        expect(html).not.toMatch(/<(script|img|iframe|svg)/i);
        expect(html).not.toMatch(/\son\w+=/i);
      }),
    );
  });

  it('escapes plain_text and attribute values', () => {
    const html = renderBlocks(
      [
        { type: 'header', text: plain('<script>alert(1)</script>') },
        {
          type: 'actions',
          elements: [{ type: 'button', action_id: 'a"b', value: '"><img src=x onerror=alert(1)>', text: plain('Go') }],
        },
      ],
      ctx,
    );
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('data-action-id="a&quot;b"');
    expect(html).toContain('data-value="&quot;&gt;&lt;img src=x onerror=alert(1)&gt;"');
    expect(html).not.toContain('<img src=x');
    expect(escapeHtml(`&<>"'`)).toBe('&amp;&lt;&gt;&quot;&#39;');
  });

  it('shows an escaped <!channel> literally, and a real one as a special mention', () => {
    expect(renderMrkdwn('hi &lt;!channel&gt; &amp; all', ctx)).toBe('hi &lt;!channel&gt; &amp; all');
    expect(renderMrkdwn('hi <!channel>', ctx)).toContain('<span class="mention special">@channel</span>');
  });

  it('links only http(s) and mailto URLs', () => {
    expect(renderMrkdwn('<https://example.com/a?b=1&amp;c=2|the docs>', ctx)).toBe(
      '<a href="https://example.com/a?b=1&amp;amp;c=2" target="_blank" rel="noopener noreferrer">the docs</a>',
    );
    const evil = renderMrkdwn('<javascript:alert(1)|click me>', ctx);
    expect(evil).not.toContain('<a');
    expect(evil).not.toContain('href');
  });
});

describe('mrkdwn', () => {
  it('renders mentions of users, channels and groups by name', () => {
    const html = renderMrkdwn('<@U_EMP1> in <#C_KUDOS> with <!subteam^S_TEAM|@team> and <@U_NEW|newbie>', ctx);
    expect(html).toContain('@Eli Engineer</span>');
    expect(html).toContain('#kudos</span>');
    expect(html).toContain('@team</span>');
    expect(html).toContain('@newbie</span>');
  });

  it('renders bold, italic, strike, code, quotes, code blocks, emoji and line breaks', () => {
    expect(renderMrkdwn('*bold* _it_ ~gone~ `x<y`', ctx)).toBe('<b>bold</b> <i>it</i> <s>gone</s> <code>x&lt;y</code>');
    expect(renderMrkdwn('> quoted\nnext', ctx)).toBe('<blockquote>quoted</blockquote>next');
    expect(renderMrkdwn('```\n<b>\n```', ctx)).toBe('<pre>&lt;b&gt;</pre>');
    expect(renderMrkdwn(':tada: a\nb', ctx)).toBe('🎉 a<br>b');
    expect(renderMrkdwn('snake_case_name stays', ctx)).toBe('snake_case_name stays');
  });
});

describe('blocks', () => {
  it('renders header, section with fields and accessory, context, divider, image and actions', () => {
    const html = renderBlocks(
      [
        { type: 'header', block_id: 'h', text: plain('Kudos!') },
        {
          type: 'section',
          text: md('*Hi*'),
          fields: [md('*Amount*\n$25'), md('*To*\n<@U_EMP1>')],
          accessory: { type: 'image', image_url: 'https://x.test/a.png', alt_text: 'card' },
        },
        {
          type: 'context',
          elements: [md('Order `O1`'), { type: 'image', image_url: 'https://x.test/i.png', alt_text: 'icon' }],
        },
        { type: 'divider' },
        { type: 'image', image_url: 'https://x.test/big.png', alt_text: 'big', title: plain('Title') },
        {
          type: 'actions',
          block_id: 'act',
          elements: [
            {
              type: 'button',
              action_id: 'cancel',
              style: 'danger',
              value: 'k1',
              text: plain('Cancel'),
              confirm: { title: plain('Sure?'), text: plain('Really'), confirm: plain('Yes'), deny: plain('No') },
            },
          ],
        },
      ],
      ctx,
    );
    expect(html).toContain('<h3>Kudos!</h3>');
    expect(html).toContain('<div class="bk-field"><b>Amount</b><br>$25</div>');
    expect(html).toContain('class="bk-image accessory" src="https://x.test/a.png" alt="card"');
    expect(html).toContain('<hr>');
    expect(html).toContain('<figcaption>Title</figcaption>');
    expect(html).toContain(
      'class="bk-button danger" data-block-id="act" data-action-id="cancel" data-type="button" data-value="k1"',
    );
    expect(html).toContain(
      'data-confirm="{&quot;title&quot;:&quot;Sure?&quot;,&quot;text&quot;:&quot;Really&quot;,&quot;confirm&quot;:&quot;Yes&quot;,&quot;deny&quot;:&quot;No&quot;}"',
    );
    expect(renderBlocks([{ type: 'carousel' }], ctx)).toContain('unsupported block carousel');
  });
});

describe('messages and modals', () => {
  const base = {
    channel: 'C_KUDOS',
    ts: '1700000000.000100',
    user: 'U_KUDOSBOT',
    bot_id: 'B1',
    text: 'fallback <@U_EMP1>',
    ephemeral: false,
  };

  it('marks ephemeral and edited messages, falls back to text, shows thread replies', () => {
    const html = renderMessage({ ...base, ephemeral: true, edited: { ts: '1' } }, ctx, {
      replies: [{ ...base, ts: '1700000001.000100', text: 'a reply', thread_ts: base.ts }],
    });
    expect(html).toContain('class="msg ephemeral"');
    expect(html).toContain('Only visible to you');
    expect(html).toContain('(edited)');
    expect(html).toContain('fallback <span class="mention" data-user-id="U_EMP1">@Eli Engineer</span>');
    expect(html).toContain('1 reply');
    expect(html).toContain('a reply');
    // The time is shown in the viewer's zone (Asia/Tokyo: UTC+9).
    expect(html).toContain('<time>07:13</time>');
  });

  it('renders the inputs Kudos uses, with initial values, errors and the viewer zone', () => {
    const html = renderModal(
      {
        id: 'V1',
        hash: 'h1',
        title: plain('Send kudos'),
        submit: plain('Send'),
        close: plain('Cancel'),
        blocks: [
          {
            type: 'input',
            block_id: 'who',
            label: plain('To'),
            element: { type: 'multi_users_select', action_id: 'u', initial_users: ['U_EMP1'] },
          },
          {
            type: 'input',
            block_id: 'amt',
            label: plain('Amount'),
            element: {
              type: 'number_input',
              action_id: 'n',
              is_decimal_allowed: false,
              min_value: '5',
              initial_value: '25',
            },
          },
          {
            type: 'input',
            block_id: 'msg',
            label: plain('Message'),
            optional: true,
            element: { type: 'plain_text_input', action_id: 'm', multiline: true, initial_value: '<hi>' },
          },
          {
            type: 'input',
            block_id: 'when',
            label: plain('When'),
            element: { type: 'datetimepicker', action_id: 'dt', initial_date_time: 1700000000 },
          },
          {
            type: 'input',
            block_id: 'how',
            label: plain('How'),
            element: {
              type: 'radio_buttons',
              action_id: 'r',
              options: [
                { text: plain('Now'), value: 'now' },
                { text: plain('Later'), value: 'later' },
              ],
              initial_option: { text: plain('Later'), value: 'later' },
            },
          },
          {
            type: 'input',
            block_id: 'design',
            label: plain('Design'),
            element: { type: 'external_select', action_id: 'd', min_query_length: 0 },
          },
        ],
      },
      {
        ...ctx,
        errors: { amt: 'At least $5', '': 'Something went wrong' },
        externalOptions: { d: [{ text: plain('Thank You'), value: 'CC-1' }] },
      },
      { depth: 1 },
    );
    expect(html).toContain('data-view-id="V1" data-hash="h1"');
    expect(html).toContain('<option value="U_EMP1" selected>Eli Engineer</option>');
    expect(html).not.toContain('Greg Gone');
    expect(html).toContain(
      'type="number" class="bk-input" data-block-id="amt" data-action-id="n" data-type="number_input" step="1" min="5" value="25"',
    );
    expect(html).toContain('>&lt;hi&gt;</textarea>');
    expect(html).toContain('value="2023-11-15T07:13"');
    expect(html).toContain('value="later" checked');
    expect(html).toContain('<option value="CC-1">Thank You</option>');
    expect(html).toContain('<div class="bk-error" role="alert">At least $5</div>');
    expect(html).toContain('<span class="optional">(optional)</span>');
    expect(html).toContain('role="alert">Something went wrong</div>');
  });
});

describe('dispatch_action', () => {
  it('marks input blocks whose element sends block_actions on change', () => {
    const block = {
      type: 'input',
      block_id: 't',
      dispatch_action: true,
      label: plain('When'),
      element: { type: 'radio_buttons', action_id: 'r', options: [{ text: plain('Now'), value: 'now' }] },
    };
    expect(renderBlocks([block], ctx)).toContain('<div data-dispatch="1" class="bk bk-input-block"');
    expect(renderBlocks([{ ...block, dispatch_action: false }], ctx)).not.toContain('data-dispatch');
  });
});
