// What a Slack request gets when its listener failed: one implementation for both ways in, the signed
// HTTP receiver (src/http/slack-receiver.ts) and Socket Mode (src/socket-mode/connection.ts). Each
// transport only writes the answer its own way:
//
// | answer      | over HTTP                        | over Socket Mode                                   |
// | ----------- | -------------------------------- | -------------------------------------------------- |
// | `malformed` | 400 `MALFORMED_PAYLOAD`          | acknowledged with nothing in it (never redelivered) |
// | `answer`    | 200 with `body` (or empty)       | acknowledged with `body` (or nothing)              |
// | `redeliver` | 500 `LISTENER_FAILED`            | not acknowledged: Slack delivers it again          |
//
// A shape Slack never sends (SlackPayloadError from parseAtEdge, or a receiver's MalformedPayloadError)
// is `malformed`. Any other failure before the ack answers the user with something to act on; after
// the ack, the response_url is the one way left to tell them.
import type { Logger } from '../../config/logger.js';

/** What a user reads when a listener failed: Slack's own "dispatch_failed" says nothing they can act on. */
export const LISTENER_FAILURE_TEXT =
  ':warning: Kudos ran into an error and could not finish that. Try again in a minute; if it keeps happening, tell a Kudos admin (the details are in the app logs).';

/** What a user reads when their workspace has no installation of the app (distribution mode). */
export const NOT_INSTALLED_TEXT =
  ':warning: Kudos is not installed in this workspace (it may have been removed), so nothing was done. A workspace admin can add it again with "Add to Slack" on the Kudos install page.';

/** Bolt's authorize found no installation (src/slack/install/installation-store.ts NotInstalledError, code slack_not_installed). */
function isNotInstalled(error: unknown): boolean {
  const coded = error as { code?: unknown; original?: { code?: unknown } } | undefined;
  return coded?.code === 'slack_not_installed' || coded?.original?.code === 'slack_not_installed';
}

export type FailureAnswer =
  { kind: 'malformed' } | { kind: 'answer'; body?: Record<string, unknown> } | { kind: 'redeliver' };

/** A shape Slack never sends, found by a listener (parseAtEdge) or a receiver; Bolt may wrap it (`original`). */
export function isMalformedPayload(error: unknown): boolean {
  const coded = error as { code?: unknown; original?: { code?: unknown } } | undefined;
  return coded?.code === 'MALFORMED_PAYLOAD' || coded?.original?.code === 'MALFORMED_PAYLOAD';
}

/**
 * Logs a listener's failure once and says how to answer the request. `acked`: the listener had
 * acknowledged it already; then the user is told through the response_url (awaited) and there is
 * nothing left to answer (undefined).
 */
export async function answerListenerFailure(
  log: Logger,
  error: unknown,
  body: Record<string, unknown>,
  acked: boolean,
): Promise<FailureAnswer | undefined> {
  const kind = requestKind(body);
  if (isMalformedPayload(error)) {
    log.warn('slack request refused: a listener found a shape Slack never sends', { kind, error });
    return acked ? undefined : { kind: 'malformed' };
  }
  if (isNotInstalled(error)) {
    // Distribution mode: no installation serves this team (never installed, or uninstalled). No
    // listener ran; the user is told once, and Slack is answered so that it does not deliver again.
    const team = (body.team as { id?: unknown } | undefined)?.id ?? body.team_id;
    log.warn('slack request from a workspace without an installation', {
      kind,
      teamId: typeof team === 'string' ? team : undefined,
    });
    if (typeof body.command === 'string')
      return acked ? undefined : { kind: 'answer', body: { response_type: 'ephemeral', text: NOT_INSTALLED_TEXT } };
    if (body.type === 'block_suggestion') return acked ? undefined : { kind: 'answer', body: { options: [] } };
    void tellThroughResponseUrl(body, NOT_INSTALLED_TEXT).catch(() => {});
    return acked ? undefined : { kind: 'answer' };
  }
  log.error('slack listener failed', { kind, error });
  if (acked) {
    await tellThroughResponseUrl(body).catch((failure: unknown) =>
      log.warn('telling the user about a failure failed', { kind, error: failure }),
    );
    return undefined;
  }
  return failureAnswer(body);
}

/**
 * A listener failed before its ack: something the user can act on. Commands show the text; a modal
 * shows it under its first input (the form is kept); an options load gets no options; a click or a
 * shortcut is acknowledged and its user told through the response_url, if any; Events API deliveries
 * are not acknowledged, so that Slack delivers them again.
 */
function failureAnswer(body: Record<string, unknown>): FailureAnswer {
  if (typeof body.command === 'string')
    return { kind: 'answer', body: { response_type: 'ephemeral', text: LISTENER_FAILURE_TEXT } };
  switch (body.type) {
    case 'view_submission': {
      const blocks = (body.view as { blocks?: unknown } | undefined)?.blocks;
      const input = Array.isArray(blocks)
        ? blocks.find(
            (b): b is { block_id: string } =>
              (b as { type?: unknown })?.type === 'input' && typeof (b as { block_id?: unknown }).block_id === 'string',
          )
        : undefined;
      return input
        ? { kind: 'answer', body: { response_action: 'errors', errors: { [input.block_id]: LISTENER_FAILURE_TEXT } } }
        : { kind: 'answer' };
    }
    case 'block_suggestion':
      return { kind: 'answer', body: { options: [] } };
    case 'block_actions':
    case 'view_closed':
    case 'shortcut':
    case 'message_action':
      // Slack ignores an action's answer body: the user is told through the response_url, if any.
      void tellThroughResponseUrl(body).catch(() => {});
      return { kind: 'answer' };
    default:
      return { kind: 'redeliver' };
  }
}

/** After the ack, the response_url is the one way left to tell the user (commands and message actions). */
async function tellThroughResponseUrl(body: Record<string, unknown>, text = LISTENER_FAILURE_TEXT): Promise<void> {
  const url = typeof body.response_url === 'string' ? body.response_url : undefined;
  if (!url || !/^https?:\/\//.test(url)) return;
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ response_type: 'ephemeral', replace_original: false, text }),
    signal: AbortSignal.timeout(5000),
  });
  await res.body?.cancel();
}

/** `command /kudos`, `event app_home_opened`, `block_actions`, ...: for log lines. */
export function requestKind(body: unknown): string {
  const b = body as { command?: unknown; type?: unknown; event?: { type?: unknown } } | undefined;
  if (typeof b?.command === 'string') return `command ${b.command}`;
  if (b?.type === 'event_callback' && typeof b.event?.type === 'string') return `event ${b.event.type}`;
  return typeof b?.type === 'string' ? b.type : 'unknown';
}
