// A private answer to whoever clicked a button in an admin list (campaigns, e-mail templates).
import type { ListenerDeps } from './listener-deps.js';
import type { workspaceOf } from './listener-deps.js';

type Respond = (message: { response_type: 'ephemeral'; replace_original: false; text: string }) => Promise<unknown>;
export type Clicker = { user: { id: string }; response_url?: string | undefined; channel?: { id: string } | undefined };

/** An answer only the clicker sees: through response_url when the click has one, else ephemeral or DM. */
export function teller(
  deps: ListenerDeps,
  ws: ReturnType<typeof workspaceOf>,
  body: Clicker,
  respond: unknown,
): (text: string) => Promise<void> {
  return async (text) => {
    if (body.response_url) {
      await (respond as Respond)({ response_type: 'ephemeral', replace_original: false, text });
      return;
    }
    const slack = deps.slack.for(ws);
    if (body.channel?.id) await slack.postEphemeral(body.channel.id, body.user.id, { text });
    else await slack.sendDirectMessage(body.user.id, { text });
  };
}
