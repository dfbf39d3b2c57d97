// Where a send is announced: its own choice (a celebration rule's channel, or none when the person
// opted out of public posts), else the workspace's announcement channel. And how an announcement
// follows a send in parts that reached more people after it was posted.
import { isDeepStrictEqual } from 'node:util';

import type { KudosRow, NotificationRow } from '../../db/schema/index.js';
import type { RenderedMessage } from '../common/ports.js';
import type { Workspace } from '../common/workspace.js';
import type { Notice } from '../notices/notices.js';
import { editOnce, type NoticeDeps } from '../notices/outbox.js';
import { designPictureOf } from '../workspaces/design-pictures.js';
import type { NotifyChannelOf } from '../workspaces/settings.js';

export const NO_ANNOUNCEMENT = 'none';

export async function announcementChannelOf(
  row: { announceTo?: KudosRow['announceTo'] | undefined },
  ws: Workspace,
  notifyChannelOf: NotifyChannelOf,
): Promise<string | undefined> {
  if (row.announceTo === NO_ANNOUNCEMENT) return undefined;
  return row.announceTo ?? (await notifyChannelOf(ws));
}

/** The announcement of a send, with its design's picture when an admin set one. */
export async function announcementNotice(
  db: NoticeDeps['db'],
  row: KudosRow,
): Promise<Extract<Notice, { type: 'kudos.announced' }>> {
  const picture = await designPictureOf(db, { teamId: row.teamId, enterpriseId: row.enterpriseId }, row.productId);
  return { type: 'kudos.announced', kudos: row, ...(picture ? { picture } : {}) };
}

/** The outbox kind of an edit of a kudos announcement (subject: `${kudosId}#${partsPlaced}`). */
const ANNOUNCEMENT_EDIT_KIND = 'kudos.announcement.edit';

/**
 * A send in parts whose announcement (`announced`, its outbox row) was recorded at an earlier outcome:
 * a part turned up later (kudos-store.ts promoteFoundPart), the send reached more people, and the
 * announcement still names the fewer. It is edited to `message` (what the send is now), never posted
 * a second time: once per count of parts placed, across instances (the outbox's unique key). Nothing
 * when it says that already (a pass resumed after a crash). See editOnce for what the outbox does.
 */
export async function followAnnouncement(
  deps: NoticeDeps,
  row: Pick<KudosRow, 'id' | 'teamId' | 'enterpriseId' | 'partsPlaced'>,
  announced: NotificationRow,
  message: RenderedMessage,
): Promise<Awaited<ReturnType<typeof editOnce>> | 'unchanged'> {
  // As stored (jsonb): key order aside, equal when the announcement says this already. Its message is
  // erased some days after posting (expireNoticeMessages): then it is edited, to be sure.
  if (announced.message && isDeepStrictEqual(announced.message, JSON.parse(JSON.stringify(message))))
    return 'unchanged';
  return editOnce(
    deps,
    {
      kind: ANNOUNCEMENT_EDIT_KIND,
      subject: `${row.id}#${row.partsPlaced}`,
      teamId: row.teamId,
      enterpriseId: row.enterpriseId,
    },
    { of: announced, message },
  );
}
