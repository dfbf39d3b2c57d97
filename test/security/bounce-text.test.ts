// The bounce DM's top-level text carries the recipient's name unescaped no more (security issue,
// finding 10, first part): `<!channel>` and forged links show as text there too.
import { describe, expect, it } from 'vitest';

import type { BouncedRecipientRow } from '../../src/db/schema/index.js';
import { bounceBlock } from '../../src/slack/sending/sender-dm-blocks.js';

describe('bounce DM text', () => {
  it('escapes a hostile name and address in the top-level text', () => {
    const block = bounceBlock({
      id: '00000000-0000-4000-8000-000000000001',
      name: '<!channel> <https://evil.test|Payroll>',
      email: 'a&b@x.test',
      orderId: 'O-1',
      confirmed: true,
      company: '<!here>',
      status: 'open',
    } as unknown as BouncedRecipientRow);
    const text = JSON.stringify(block);
    expect(text).not.toContain('<!channel>');
    expect(text).not.toContain('<https://');
    expect(text).toContain('&lt;!channel&gt;');
    expect(text).toContain('a&amp;b@x.test');
  });
});
