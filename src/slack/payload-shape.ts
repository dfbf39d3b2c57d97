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
      .looseObject({ type: z.string().min(1), user: z.union([z.string(), userRef]).optional(), item: z.looseObject({}).optional(), function_execution_id: z.unknown().optional() })
      .refine((e) => e.type !== 'function_executed' || (typeof e.function_execution_id === 'string' && e.function_execution_id !== ''), 'function_executed without a function_execution_id'),
  }),
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
