// What each listener reads from a Slack payload, checked with zod before anything else (and before
// the ack): a shape Slack never sends is answered 400 by the receiver (SlackPayloadError), never a
// TypeError deep in a listener. Objects are loose: Slack adds fields, and we ignore what we do not read.
import { z } from 'zod';

/** A signed payload whose shape Slack never sends; the receiver answers 400 MALFORMED_PAYLOAD. */
export class SlackPayloadError extends Error {
  override readonly name = 'SlackPayloadError';
  readonly code = 'MALFORMED_PAYLOAD';
}

/** Parses `value` with `schema` or throws SlackPayloadError naming the first problem. */
export function parseAtEdge<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new SlackPayloadError(
    `${what}: ${issue ? `${issue.path.join('.') || '(root)'}: ${issue.message}` : 'invalid'}`,
  );
}

const id = z.string().min(1);
export const teamRef = z.looseObject({ id }).nullish();
export const enterpriseRef = z.looseObject({ id }).nullish();
export const userRef = z.looseObject({ id, team_id: z.string().optional() });

/** A slash command: Slack always sends a trigger_id and a response_url. */
export const slashCommand = z.looseObject({
  command: id,
  text: z.string().default(''),
  user_id: id,
  team_id: id,
  enterprise_id: z.string().optional(),
  channel_id: id,
  trigger_id: id,
  response_url: z.url({ protocol: /^https?$/ }),
});
export type SlashCommandPayload = z.output<typeof slashCommand>;

/** A kudos or bounce id carried by a button or a modal: a UUID, as our builders write them. */
export const uuidValue = z.guid({ error: 'not an id this app wrote' });

/** block_actions carrying one button whose value matches `value`. */
export function buttonClick<V extends z.ZodType>(value: V) {
  return z.looseObject({
    type: z.literal('block_actions'),
    user: userRef,
    team: teamRef,
    enterprise: enterpriseRef,
    trigger_id: z.string().optional(),
    response_url: z.url({ protocol: /^https?$/ }).optional(),
    channel: z.looseObject({ id }).optional(),
    container: z.looseObject({ channel_id: z.string().optional(), message_ts: z.string().optional() }).optional(),
    actions: z.tuple([z.looseObject({ action_id: id, value })], z.unknown()),
  });
}

/** A click on a button that opens a modal: Slack sends a trigger_id with every click. */
export function buttonOpeningModal<V extends z.ZodType>(value: V) {
  return buttonClick(value).extend({ trigger_id: id });
}

/** A button that carries no value this app reads (Home's "Give kudos", "Settings", "Upload dates"). */
export const noValue = z.unknown().optional();

/** A button value one of `values`, as our builders write them. */
export const oneOf = <const T extends readonly [string, ...string[]]>(values: T) =>
  z.enum(values, { error: 'not a value this app wrote' });

/** A global shortcut ("Give kudos" from the shortcuts menu). */
export const globalShortcut = z.looseObject({
  type: z.literal('shortcut'),
  callback_id: id,
  user: userRef,
  team: teamRef,
  enterprise: enterpriseRef,
  trigger_id: id,
});

/** A message shortcut: the message it was used on, in which channel. */
export const messageShortcut = z.looseObject({
  type: z.literal('message_action'),
  callback_id: id,
  user: userRef,
  team: teamRef,
  enterprise: enterpriseRef,
  trigger_id: id,
  response_url: z.url({ protocol: /^https?$/ }),
  channel: z.looseObject({ id }),
  message_ts: id,
  message: z.looseObject({
    user: z.string().optional(),
    bot_id: z.string().nullish(),
    subtype: z.string().optional(),
    ts: z.string().optional(),
  }),
});

/**
 * One input element's state in view.state.values; every field optional, each typed if present.
 * A typed-in `value` is read with textOf: a non-string there is the user's field to fix (an inline
 * error), not a reason to lose the form.
 */
export const stateLeaf = z.looseObject({
  value: z.unknown().optional(),
  selected_users: z.array(id).nullish(),
  selected_user: id.nullish(),
  selected_conversation: z.string().nullish(),
  selected_date: z.string().nullish(),
  selected_time: z.string().nullish(),
  selected_option: z.looseObject({ value: z.string(), text: z.looseObject({ text: z.string() }).optional() }).nullish(),
  selected_options: z.array(z.looseObject({ value: z.string() })).nullish(),
});
export type StateLeaf = z.output<typeof stateLeaf>;
/** The text typed into an input, '' when there is none or it is not text. */
export function textOf(leaf: StateLeaf | undefined): string {
  return typeof leaf?.value === 'string' ? leaf.value : '';
}
export const stateValues = z.record(z.string(), z.record(z.string(), stateLeaf));
export type StateValues = z.output<typeof stateValues>;

/** view_submission of a modal: its id, metadata and state are always there. */
export const viewSubmission = z.looseObject({
  type: z.literal('view_submission'),
  user: userRef,
  team: teamRef,
  enterprise: enterpriseRef,
  view: z.looseObject({
    id,
    callback_id: id,
    private_metadata: z.string().default(''),
    state: z.looseObject({ values: stateValues }),
  }),
});

/** block_suggestion (an external select's options load). */
export const optionsLoad = z.looseObject({ user: userRef, team: teamRef, value: z.string().default('') });

/** Events API envelope with `event` of the given shape. */
export function eventCallback<E extends z.ZodType>(event: E) {
  return z.looseObject({
    team_id: z.string().optional(),
    enterprise_id: z.string().nullish(),
    event_id: z.string().optional(),
    event,
  });
}

export const userChangeEvent = eventCallback(
  z.looseObject({
    type: z.literal('user_change'),
    user: z.looseObject({
      id,
      team_id: z.string().optional(),
      deleted: z.boolean().optional(),
      is_bot: z.boolean().optional(),
      profile: z.looseObject({}).optional(),
    }),
  }),
);

/** reaction_added / reaction_removed: who reacted with what, on which item. */
export const reactionEvent = eventCallback(
  z.looseObject({
    type: z.enum(['reaction_added', 'reaction_removed']),
    user: id,
    reaction: id,
    item: z.looseObject({ type: z.string(), channel: z.string().optional(), ts: z.string().optional() }),
  }),
);

/** function_executed (a Workflow Builder step): the execution id is the step's idempotency key. */
export const functionExecutedEvent = eventCallback(
  z.looseObject({
    type: z.literal('function_executed'),
    function_execution_id: id,
    workflow_execution_id: z.string().optional(),
    function: z.looseObject({ callback_id: id }),
    inputs: z.record(z.string(), z.unknown()).nullish(),
    /** The workflow's token: the step is finished with it (kept sealed when it is finished later). */
    bot_access_token: z.string().optional(),
  }),
);

/** Which installation an event came through: `authorizations` names an org-wide install. */
const installationEvent = <E extends z.ZodType>(event: E) =>
  z.looseObject({
    team_id: z.string().optional(),
    enterprise_id: z.string().nullish(),
    is_enterprise_install: z.boolean().optional(),
    authorizations: z
      .array(
        z.looseObject({
          team_id: z.string().nullish(),
          enterprise_id: z.string().nullish(),
          is_enterprise_install: z.boolean().optional(),
        }),
      )
      .optional(),
    event,
  });

/** The app was uninstalled from the workspace (or, for an org-wide install, the org). */
export const appUninstalledEvent = installationEvent(z.looseObject({ type: z.literal('app_uninstalled') }));

/** Tokens were revoked: `oauth` user ids (user tokens), `bot` bot user ids (the bot token). */
export const tokensRevokedEvent = installationEvent(
  z.looseObject({
    type: z.literal('tokens_revoked'),
    tokens: z.looseObject({ oauth: z.array(z.string()).nullish(), bot: z.array(z.string()).nullish() }).default({}),
  }),
);

export const appHomeOpenedEvent = eventCallback(
  z.looseObject({ type: z.literal('app_home_opened'), user: id, tab: z.string().optional() }),
);

/** JSON private_metadata written by our builders; anything else reads as `fallback`. */
export function metadataOf<S extends z.ZodType>(schema: S, raw: string, fallback: z.output<S>): z.output<S> {
  try {
    const parsed = schema.safeParse(JSON.parse(raw || '{}'));
    return parsed.success ? parsed.data : fallback;
  } catch {
    return fallback;
  }
}
