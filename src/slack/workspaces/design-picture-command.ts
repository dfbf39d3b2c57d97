// `/kudos picture <design> <https URL | none>`: an admin sets (or removes) the picture shown in the
// announcements of kudos sent with a design; `/kudos picture` lists the designs that have one. Every
// answer is one ephemeral line; a URL that is not https is refused, so no announcement shows a broken
// or insecure image.
import type { AckFn, RespondArguments } from '@slack/bolt';

import { checkPictureUrl, listDesignPictures, setDesignPicture } from '../../domain/workspaces/design-pictures.js';
import { COMMAND } from '../ids.js';
import { escapeMrkdwn } from '../kit/mrkdwn-escape.js';
import type { ListenerDeps } from '../listening/listener-deps.js';
import { workspaceOf } from '../listening/listener-deps.js';
import type { SlashCommandPayload } from '../listening/payloads.js';

const USAGE = `\`${COMMAND} picture <design id> <https://… picture URL>\` sets a design's picture; \`${COMMAND} picture <design id> none\` removes it.`;

export async function handleDesignPictureCommand(
  deps: ListenerDeps,
  input: { ack: AckFn<string | RespondArguments>; command: SlashCommandPayload; args: string },
): Promise<void> {
  const { ack, command } = input;
  const ws = workspaceOf(command);
  const say = (text: string) => ack({ response_type: 'ephemeral', text });
  if (!(await deps.isAdmin(ws, command.user_id))) return say(':no_entry: Only Kudos admins can set design pictures.');
  // Slack sends a pasted link as `<https://…>` (or `<https://…|label>`).
  const [productId, rawUrl, ...rest] = input.args.split(/\s+/).filter(Boolean);
  if (!productId) {
    const pictures = await listDesignPictures(deps.db, ws);
    if (pictures.length === 0) return say(`No design has a picture yet. ${USAGE}`);
    return say(
      `Designs with a picture: ${pictures.map((p) => `\`${escapeMrkdwn(p.productId)}\``).join(', ')}. ${USAGE}`,
    );
  }
  if (!rawUrl || rest.length > 0) return say(USAGE);
  const design = await deps.catalog.of(ws).get(productId);
  if (!design) return say(`There is no design \`${escapeMrkdwn(productId.slice(0, 60))}\` in the catalog.`);
  if (rawUrl.toLowerCase() === 'none') {
    await setDesignPicture(deps.db, ws, { productId: design.productId, url: null, actorUserId: command.user_id });
    return say(`${escapeMrkdwn(design.name)} is announced without a picture now.`);
  }
  const url = rawUrl.replace(/^<(.*?)(\|.*)?>$/, '$1');
  const problem = checkPictureUrl(url);
  if (problem) return say(`:warning: ${problem}`);
  await setDesignPicture(deps.db, ws, { productId: design.productId, url, actorUserId: command.user_id });
  return say(`${escapeMrkdwn(design.name)} kudos are announced with that picture from now on.`);
}
