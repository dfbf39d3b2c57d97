// App Home's celebrations section, read and rendered apart from the rest of Home (like stats-section.ts):
// everyone's own opt-outs (no cards, no public post), and for admins the rules and the celebrations
// of the next 30 days, each with Skip. Its buttons are those of `/kudos celebrations`
// (automations/automation-actions.ts), which re-publish Home when clicked there.
import type { Database } from '../../db/client.js';
import {
  celebrationPreferenceOf,
  celebrationRulesOf,
  upcomingCelebrations,
} from '../../domain/automations/automation-runner.js';
import type { Workspace } from '../../domain/common/workspace.js';
import {
  buildCelebrationPreferenceSection,
  buildUpcomingCelebrationsSection,
} from '../automations/automation-blocks.js';
import { COMMAND } from '../ids.js';
import { type Block, context, plain } from '../kit/mrkdwn.js';

/** Upcoming celebrations shown on Home (the 100-block view is shared); the rest in `/kudos celebrations`. */
export const HOME_UPCOMING_MAX = 8;

export async function homeAutomationsSection(
  db: Database,
  input: { ws: Workspace; userId: string; admin: boolean; now: Date },
): Promise<Block[]> {
  const ws = { teamId: input.ws.teamId, enterpriseId: input.ws.enterpriseId ?? null };
  const [prefs, rules, upcoming] = await Promise.all([
    celebrationPreferenceOf(db, ws, input.userId),
    input.admin ? celebrationRulesOf(db, ws) : Promise.resolve([]),
    input.admin ? upcomingCelebrations(db, ws, input.now) : Promise.resolve([]),
  ]);
  const blocks: Block[] = [{ type: 'header', text: plain('Celebrations', 150) }];
  if (input.admin) {
    // Times in the reader's own zone and format (Slack's date token): Home is not per time zone.
    blocks.push(...buildUpcomingCelebrationsSection({ rules, upcoming: upcoming.slice(0, HOME_UPCOMING_MAX) }));
    if (upcoming.length > HOME_UPCOMING_MAX)
      blocks.push(
        context(`…and ${upcoming.length - HOME_UPCOMING_MAX} more in the next 30 days: \`${COMMAND} celebrations\`.`),
      );
  }
  blocks.push(...buildCelebrationPreferenceSection(prefs));
  return blocks;
}
