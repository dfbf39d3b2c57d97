// "+1" on an announcement with the workspace's reaction (default :gift:, `/kudos settings`): counted,
// no money moves. A skin tone is the same reaction (thumbsup::skin-tone-2 counts for thumbsup).
import type { App } from '@slack/bolt';

import type { Workspace } from '../../domain/common/workspace.js';
import { plusOneAudience, recordPlusOne, removePlusOne } from '../../domain/recognition/stats.js';
import type { ListenerDeps } from '../listening/listener-deps.js';
import { workspaceOf } from '../listening/listener-deps.js';
import { parseAtEdge, reactionEvent } from '../listening/payloads.js';

export function registerPlusOneReactions(app: App, deps: ListenerDeps): void {
  const isPlusOne = async (ws: Workspace, reaction: string) => {
    const configured = (await deps.settings.get(ws)).reactionEmoji;
    return reaction === configured || (!configured.includes('::') && reaction.startsWith(`${configured}::`));
  };

  app.event('reaction_added', async ({ body: raw }) => {
    const body = parseAtEdge(reactionEvent, raw, 'reaction_added');
    const { event } = body;
    const item = event.item;
    if (item.type !== 'message' || !item.channel || !item.ts) return;
    const ws = workspaceOf(body);
    if (!(await isPlusOne(ws, event.reaction))) return;
    const counted = await recordPlusOne(deps.db, {
      teamId: ws.teamId,
      channel: item.channel,
      ts: item.ts,
      userId: event.user,
      reaction: event.reaction,
    });
    // Their Homes count the +1s on their kudos: re-published (coalesced, rate-limited by the publisher).
    if (counted === 'counted')
      deps.home.refresh(ws, await plusOneAudience(deps.db, { teamId: ws.teamId, channel: item.channel, ts: item.ts }));
  });

  app.event('reaction_removed', async ({ body: raw }) => {
    const body = parseAtEdge(reactionEvent, raw, 'reaction_removed');
    const { event } = body;
    const item = event.item;
    if (item.type !== 'message' || !item.channel || !item.ts) return;
    const ws = workspaceOf(body);
    if (!(await isPlusOne(ws, event.reaction))) return;
    if (await removePlusOne(deps.db, { teamId: ws.teamId, channel: item.channel, ts: item.ts, userId: event.user })) {
      deps.home.refresh(ws, await plusOneAudience(deps.db, { teamId: ws.teamId, channel: item.channel, ts: item.ts }));
    }
  });
}
