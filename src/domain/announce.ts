// Where a send is announced: its own choice (a celebration rule's channel, or none when the person
// opted out of public posts), else the workspace's announcement channel.
import type { KudosRow } from '../db/schema/index.js';
import type { NotifyChannelOf, WorkspaceRef } from './settings.js';

export const NO_ANNOUNCEMENT = 'none';

export async function announcementChannelOf(row: { announceTo?: KudosRow['announceTo'] | undefined }, ws: WorkspaceRef, notifyChannelOf: NotifyChannelOf): Promise<string | undefined> {
  if (row.announceTo === NO_ANNOUNCEMENT) return undefined;
  return row.announceTo ?? (await notifyChannelOf(ws));
}
