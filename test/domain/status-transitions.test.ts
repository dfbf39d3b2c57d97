// Each table's status transitions (the constant beside its store) against the statuses its schema
// declares: every status has its entry, every move lands on a status of the table, the terminal
// statuses have no exit, and every status can be reached from the ones rows are inserted with.
import { describe, expect, it } from 'vitest';

import {
  APPROVAL_STATUSES,
  BOUNCE_STATUSES,
  CAMPAIGN_STATUSES,
  KUDOS_STATUSES,
  LIMIT_REQUEST_STATUSES,
  OCCURRENCE_STATUSES,
  REWARD_LINK_REQUEST_STATUSES,
  REWARDS_CONNECTION_STATUSES,
  SERIES_STATUSES,
  STEP_RUN_STATUSES,
  TOP_UP_STATUSES,
} from '../../src/db/schema/index.js';
import { REWARDS_CONNECTION_STATUS_TRANSITIONS } from '../../src/domain/accounts/rewards-connections.js';
import { APPROVAL_STATUS_TRANSITIONS } from '../../src/domain/approvals/approval-store.js';
import {
  OCCURRENCE_STATUS_TRANSITIONS,
  SERIES_STATUS_TRANSITIONS,
} from '../../src/domain/automations/automation-runner.js';
import { STEP_RUN_STATUS_TRANSITIONS } from '../../src/domain/automations/workflow-steps.js';
import type { StatusTransitions } from '../../src/domain/common/status-transitions.js';
import { CAMPAIGN_STATUS_TRANSITIONS } from '../../src/domain/finance/campaigns.js';
import { LIMIT_REQUEST_STATUS_TRANSITIONS } from '../../src/domain/finance/spending-limits.js';
import { TOP_UP_STATUS_TRANSITIONS } from '../../src/domain/finance/top-ups.js';
import { BOUNCE_STATUS_TRANSITIONS } from '../../src/domain/orders/bounce-resend.js';
import { REWARD_LINK_STATUS_TRANSITIONS } from '../../src/domain/reward-links/reward-links.js';
import { KUDOS_STATUS_TRANSITIONS } from '../../src/domain/sending/kudos-store.js';

interface Table {
  table: string;
  statuses: readonly string[];
  transitions: StatusTransitions;
  /** What rows are inserted with. */
  initial: string[];
  terminal: string[];
}

const TABLES: Table[] = [
  {
    table: 'kudos',
    statuses: KUDOS_STATUSES,
    transitions: KUDOS_STATUS_TRANSITIONS,
    initial: ['pending', 'awaiting_approval'],
    terminal: ['rejected', 'expired', 'canceled'],
  },
  {
    table: 'approval_requests',
    statuses: APPROVAL_STATUSES,
    transitions: APPROVAL_STATUS_TRANSITIONS,
    initial: ['awaiting_approval'],
    terminal: ['rejected', 'expired'],
  },
  {
    table: 'top_up_requests',
    statuses: TOP_UP_STATUSES,
    transitions: TOP_UP_STATUS_TRANSITIONS,
    initial: ['awaiting_approval'],
    terminal: ['completed', 'unapproved', 'rejected', 'failed', 'unknown'],
  },
  {
    table: 'limit_increase_requests',
    statuses: LIMIT_REQUEST_STATUSES,
    transitions: LIMIT_REQUEST_STATUS_TRANSITIONS,
    initial: ['sending'],
    terminal: ['pending_review', 'stale', 'failed', 'unknown'],
  },
  {
    table: 'campaigns',
    statuses: CAMPAIGN_STATUSES,
    transitions: CAMPAIGN_STATUS_TRANSITIONS,
    initial: ['creating'],
    terminal: ['archived'],
  },
  {
    table: 'reward_link_requests',
    statuses: REWARD_LINK_REQUEST_STATUSES,
    transitions: REWARD_LINK_STATUS_TRANSITIONS,
    initial: ['pending', 'awaiting_approval'],
    terminal: ['rejected', 'placed', 'partial', 'failed'],
  },
  {
    table: 'bounced_recipients',
    statuses: BOUNCE_STATUSES,
    transitions: BOUNCE_STATUS_TRANSITIONS,
    initial: ['open'],
    terminal: ['resent'],
  },
  {
    table: 'rewards_connections',
    statuses: REWARDS_CONNECTION_STATUSES,
    transitions: REWARDS_CONNECTION_STATUS_TRANSITIONS,
    initial: ['active'],
    terminal: [],
  },
  {
    table: 'recurring_series',
    statuses: SERIES_STATUSES,
    transitions: SERIES_STATUS_TRANSITIONS,
    initial: ['active'],
    terminal: ['deleted'],
  },
  {
    table: 'automation_occurrences',
    statuses: OCCURRENCE_STATUSES,
    transitions: OCCURRENCE_STATUS_TRANSITIONS,
    initial: ['planned'],
    terminal: ['skipped', 'failed', 'refused', 'missed'],
  },
  {
    table: 'workflow_step_runs',
    statuses: STEP_RUN_STATUSES,
    transitions: STEP_RUN_STATUS_TRANSITIONS,
    initial: ['waiting'],
    terminal: ['finished', 'abandoned'],
  },
];

describe.each(TABLES)('$table status transitions', ({ statuses, transitions, initial, terminal }) => {
  it("has an entry for every status of the schema's type, and nothing else", () => {
    expect(Object.keys(transitions).sort()).toEqual([...statuses].sort());
  });

  it('moves only to statuses of the table, each listed once', () => {
    for (const [from, to] of Object.entries(transitions)) {
      for (const target of to) expect(statuses, `${from} -> ${target}`).toContain(target);
      expect(new Set(to).size, from).toBe(to.length);
    }
  });

  it('gives the terminal statuses no exit, and every other status a move to another status', () => {
    for (const status of statuses) {
      const exits = transitions[status]!.filter((to) => to !== status);
      if (terminal.includes(status)) expect(transitions[status], status).toEqual([]);
      else expect(exits.length, `${status} has no exit`).toBeGreaterThan(0);
    }
  });

  it('reaches every status from those rows are inserted with', () => {
    const reached = new Set(initial);
    for (let grew = true; grew;) {
      grew = false;
      for (const from of [...reached])
        for (const to of transitions[from]!)
          if (!reached.has(to)) {
            reached.add(to);
            grew = true;
          }
    }
    expect([...reached].sort()).toEqual([...statuses].sort());
  });
});
