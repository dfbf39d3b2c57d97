// The company value in the approval request, end to end: a send above the threshold with a value
// picked in the form reaches #approvals as a request that names the value, as the sender picked it
// (a rename meanwhile does not change what the approvers are asked).
import { describe, expect, it } from 'vitest';

import { saveCompanyValue } from '../../../src/domain/workspaces/company-values.js';
import { sendModalValues, submitSendForm, useAppPerTest } from '../../support/app.js';

const e2e = useAppPerTest({
  env: {
    KUDOS_APPROVAL_CHANNEL: 'C_APPROVALS',
    KUDOS_APPROVERS: 'U_APPROVER',
    KUDOS_ADMINS: 'U_ADMIN',
    KUDOS_APPROVAL_THRESHOLD: '100',
  },
});
const WS = { teamId: 'T0KUDOS', enterpriseId: null };

const picked = (value: string) => ({
  send_value: {
    company_value: { type: 'static_select', selected_option: { text: { type: 'plain_text', text: 'v' }, value } },
  },
});

async function request(kudosId: string) {
  return e2e.stack.sim.waitFor(() =>
    e2e.stack.sim
      .messages('C_APPROVALS')
      .find((m) => JSON.stringify(m.blocks ?? []).includes(kudosId) && m.text.startsWith('Kudos approval request')),
  );
}

describe('the approval request names the company value', () => {
  it('shows the value beside the reason, with its emoji; a request without one names none', async () => {
    const saved = await saveCompanyValue(e2e.db, WS, 'U_ADMIN', undefined, {
      name: 'Teamwork',
      emoji: 'handshake',
      description: 'We win together',
    });
    if (!saved.ok) throw new Error(saved.message);
    const card = {
      users: ['U_EMP1', 'U_EMP2'],
      design: 'CC-THANK-YOU',
      amount: '75',
      message: 'Thanks for the launch',
    };
    const withValue = await submitSendForm(e2e.stack, e2e.db, 'U_MANAGER', {
      ...sendModalValues(card),
      ...picked(`${saved.row.id}:${saved.row.revision}`),
    });
    expect(withValue).toMatchObject({ status: 'awaiting_approval', valueName: 'Teamwork' });
    // Renamed while the request waits: the approvers see what the sender picked.
    await saveCompanyValue(e2e.db, WS, 'U_ADMIN', saved.row.id, {
      name: 'Collaboration',
      emoji: 'people_holding_hands',
      description: '',
    });
    const message = await request(withValue.id);
    const headline = JSON.stringify(message.blocks![0]);
    expect(headline).toContain('wants to send');
    expect(headline).toContain('to <@U_EMP1> and <@U_EMP2> for :handshake: *Teamwork*.');
    expect(JSON.stringify(message.blocks)).toContain('Thanks for the launch');
    expect(message.text).toBe('Kudos approval request: Maya Manager wants to send $150 to 2 people for Teamwork');

    const without = await submitSendForm(
      e2e.stack,
      e2e.db,
      'U_MANAGER',
      sendModalValues({ ...card, users: ['U_EMP3', 'U_EMP4'] }),
    );
    const plain = await request(without.id);
    expect(JSON.stringify(plain.blocks![0])).toMatch(/to <@U_EMP3> and <@U_EMP4>\./);
    expect(plain.text).not.toContain(' for ');
  });
});
