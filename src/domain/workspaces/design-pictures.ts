// A design's picture in announcements, set by an admin per workspace. Only an https URL (Slack fetches
// it; anything else could be a broken image or a tracker on plain http), at most Slack's 3,000
// characters; a design without one is announced without a picture.
import { and, eq, sql } from 'drizzle-orm';

import type { Database } from '../../db/client.js';
import { designPictures } from '../../db/schema/index.js';
import type { Workspace } from '../common/workspace.js';

/** Slack's limit for an image block's URL. */
const MAX_PICTURE_URL = 3000;

/** Why `input` is no picture URL, or undefined when it is one. */
export function checkPictureUrl(input: string): string | undefined {
  const text = input.trim();
  if (text.length > MAX_PICTURE_URL) return `That URL is too long (at most ${MAX_PICTURE_URL} characters).`;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'That is not a URL. Give the picture as https://…';
  }
  if (url.protocol !== 'https:') return 'Only https:// pictures are shown.';
  if (/\s/.test(text) || !url.hostname.includes('.')) return 'That is not a picture URL Slack can fetch.';
  return undefined;
}

/** The picture of design `productId` in workspace `ws`, when an admin set one. */
export async function designPictureOf(db: Database, ws: Workspace, productId: string): Promise<string | undefined> {
  const [row] = await db
    .select({ url: designPictures.url })
    .from(designPictures)
    .where(and(eq(designPictures.teamId, ws.teamId), eq(designPictures.productId, productId)));
  return row?.url;
}

/** Every design with a picture in workspace `ws`. */
export async function listDesignPictures(
  db: Database,
  ws: Workspace,
): Promise<Array<{ productId: string; url: string }>> {
  return db
    .select({ productId: designPictures.productId, url: designPictures.url })
    .from(designPictures)
    .where(eq(designPictures.teamId, ws.teamId))
    .orderBy(designPictures.productId);
}

/** Sets (a checked URL) or removes (null) the picture of a design. */
export async function setDesignPicture(
  db: Database,
  ws: Workspace,
  input: { productId: string; url: string | null; actorUserId: string },
): Promise<void> {
  if (input.url === null) {
    await db
      .delete(designPictures)
      .where(and(eq(designPictures.teamId, ws.teamId), eq(designPictures.productId, input.productId)));
    return;
  }
  await db
    .insert(designPictures)
    .values({
      teamId: ws.teamId,
      enterpriseId: ws.enterpriseId ?? null,
      productId: input.productId,
      url: input.url.trim(),
      setBy: input.actorUserId,
    })
    .onConflictDoUpdate({
      target: [designPictures.teamId, designPictures.productId],
      set: { url: input.url.trim(), setBy: input.actorUserId, updatedAt: sql`now()` },
    });
}
