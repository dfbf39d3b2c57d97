// The minimum every listener relies on, per kind of Slack request, checked wherever requests enter
// (signed HTTP and Socket Mode envelopes); anything else passes through untouched.
import { z } from 'zod';

const userRef = z.looseObject({ id: z.string().min(1) });
const slackPayloadSchema = z.union([
  z.looseObject({ command: z.string().min(1), user_id: z.string().min(1), team_id: z.string().min(1) }),
  z.looseObject({ type: z.literal('url_verification'), challenge: z.string() }),
  // Bolt reads event.user (ignoreSelf), event.item (the channel of a reaction) and a step's
  // function_execution_id (complete/fail) before any listener: a shape it would throw on stops here.
  z.looseObject({
    type: z.literal('event_callback'),
    event: z
      .looseObject({
        type: z.string().min(1),
        user: z.union([z.string(), userRef]).optional(),
        item: z.looseObject({}).optional(),
        function_execution_id: z.unknown().optional(),
      })
      .refine(
        (e) =>
          e.type !== 'function_executed' ||
          (typeof e.function_execution_id === 'string' && e.function_execution_id !== ''),
        'function_executed without a function_execution_id',
      ),
  }),
  z.looseObject({
    type: z.enum(['view_submission', 'view_closed']),
    user: userRef,
    view: z.looseObject({ id: z.string(), callback_id: z.string() }),
  }),
  z.looseObject({
    type: z.literal('block_actions'),
    user: userRef,
    actions: z.array(z.looseObject({ action_id: z.string() })).min(1),
  }),
  z.looseObject({ type: z.literal('block_suggestion'), user: userRef, action_id: z.string(), value: z.string() }),
  z.looseObject({ type: z.enum(['shortcut', 'message_action', 'app_rate_limited']) }),
]);

/** The kinds (`type`) of the union above: every other kind is one the app has no listener for. */
const USED_KINDS = new Set([
  'url_verification',
  'event_callback',
  'view_submission',
  'view_closed',
  'block_actions',
  'block_suggestion',
  'shortcut',
  'message_action',
  'app_rate_limited',
]);

/**
 * The kind of a payload Slack sends that the app does not use (a legacy `interactive_message` from a
 * message attachment's buttons, a dialog, a workflow step edit, ...): answered 200 and never handed
 * to Bolt. Undefined for a command, a kind the app uses, or a payload with no kind at all.
 */
export function unusedSlackKind(payload: Record<string, unknown>): string | undefined {
  if (payload.command !== undefined) return undefined;
  const type = payload.type;
  return typeof type === 'string' && type !== '' && !USED_KINDS.has(type) ? type : undefined;
}

/** Undefined when `payload` has a shape Slack sends (a kind the app does not use included); otherwise what is wrong with it. */
export function slackPayloadProblem(payload: unknown): string | undefined {
  if (
    typeof payload === 'object' &&
    payload !== null &&
    !Array.isArray(payload) &&
    unusedSlackKind(payload as Record<string, unknown>)
  )
    return undefined;
  const shape = slackPayloadSchema.safeParse(payload);
  return shape.success ? undefined : (shape.error.issues[0]?.message ?? 'invalid');
}

/** Kinds remembered as logged, at most: the line is for noticing a kind, once. */
const KINDS_REMEMBERED = 64;

/** Logs a payload of a kind the app does not use, at debug, once per kind (per transport and process). */
export function ignoredKindLog(log: {
  debug(msg: string, fields?: Record<string, unknown>): void;
}): (kind: string) => void {
  const logged = new Set<string>();
  return (kind) => {
    if (logged.has(kind) || logged.size >= KINDS_REMEMBERED) return;
    logged.add(kind);
    log.debug('slack payload of a kind the app does not use: acknowledged and ignored', { kind });
  };
}
