// The minimum every listener relies on, per kind of Slack request, checked wherever requests enter
// (signed HTTP and Socket Mode envelopes); anything else passes through untouched.
import { z } from 'zod';

const userRef = z.looseObject({ id: z.string().min(1) });
const slackPayloadSchema = z.union([
  z.looseObject({ command: z.string().min(1), user_id: z.string().min(1), team_id: z.string().min(1) }),
  z.looseObject({ type: z.literal('url_verification'), challenge: z.string() }),
  // Bolt's own middleware (ignoreSelf) reads event.user before any listener: a null there must stop here.
  z.looseObject({ type: z.literal('event_callback'), event: z.looseObject({ type: z.string().min(1), user: z.union([z.string(), userRef]).optional() }) }),
  z.looseObject({ type: z.enum(['view_submission', 'view_closed']), user: userRef, view: z.looseObject({ id: z.string(), callback_id: z.string() }) }),
  z.looseObject({ type: z.literal('block_actions'), user: userRef, actions: z.array(z.looseObject({ action_id: z.string() })).min(1) }),
  z.looseObject({ type: z.literal('block_suggestion'), user: userRef, action_id: z.string(), value: z.string() }),
  z.looseObject({ type: z.enum(['shortcut', 'message_action', 'app_rate_limited']) }),
]);

/** Undefined when `payload` has a shape Slack sends; otherwise what is wrong with it. */
export function slackPayloadProblem(payload: unknown): string | undefined {
  const shape = slackPayloadSchema.safeParse(payload);
  return shape.success ? undefined : (shape.error.issues[0]?.message ?? 'invalid');
}
