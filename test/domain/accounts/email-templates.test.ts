import { describe, expect, it } from 'vitest';

import { checkTemplateForm, findPlaceholder } from '../../../src/domain/accounts/email-templates.js';

const base = {
  name: 'Q4',
  senderName: 'People Team',
  message: '',
  borderColor: '',
  buttonColor: '',
  buttonFontColor: '',
};

describe('template form checks', () => {
  it('finds placeholder-looking text of the usual syntaxes, and leaves ordinary text alone', () => {
    for (const p of ['{{first_name}}', '{ name }', '%FIRST_NAME%', '[recipient]', '{{ amount }}'])
      expect(findPlaceholder(`Hi ${p}!`)).toBe(p);
    for (const ok of ['Thanks for 100% effort', 'Great work (really) {:}', 'Costs [$25]', 'Emoji :tada:'])
      expect(findPlaceholder(ok)).toBeUndefined();
  });

  it('normalises colours, trims, and reports each bad field', () => {
    const ok = checkTemplateForm({ ...base, message: '  Thank you  ', borderColor: '4a154b', buttonColor: '#007a5a' });
    expect(ok).toEqual({
      ok: true,
      input: {
        name: 'Q4',
        senderName: 'People Team',
        message: 'Thank you',
        borderColor: '#4A154B',
        buttonColor: '#007A5A',
      },
    });
    const bad = checkTemplateForm({
      ...base,
      name: 'x'.repeat(101),
      senderName: '',
      buttonFontColor: '#fff',
      message: 'Dear %NAME%',
    });
    expect(bad).toMatchObject({ ok: false, code: 'invalid_input', field: 'name', message: 'At most 100 characters.' });
    if (!bad.ok) expect(Object.keys(bad.errors).sort()).toEqual(['buttonFontColor', 'message', 'name', 'senderName']);
  });
});
