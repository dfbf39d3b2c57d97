// Every form submission, options list and button that opens a modal answers inside Slack's 3 s: its
// listener runs under answerByAnswered (deadline.ts), so the paced Slack lookups made before the
// answer (the admin check's users.info, ...) book only slots they can use in time. One refused by
// Slack's rate limit is answered "Slack is busy right now ... again in N s" (a form: inline, under its
// first input; an options list: no options; a button: told to the clicker) instead of no answer.
// A submission's or an options list's answer is its ack, after which its listener waits for its slots; a button acks at once and answers by opening its modal (the trigger_id lives 3 s), so its
// whole listener, which does nothing after opening it, is under the deadline.
import type { App } from '@slack/bolt';

import { isChatRefusal } from '../../domain/common/ports.js';
import { ANSWER_BUDGET_MS, answerByAnswered, secondsToWait } from './deadline.js';

type Ack = (response?: unknown) => Promise<void>;
type ListenerArgs = { ack: Ack; body: unknown; respond?: unknown };

export interface InTimeOptions {
  /** The action_ids of the buttons that open a modal (a suffix after ':' is ignored). */
  modalButtons: ReadonlySet<string>;
  /** Tells the clicker of `body` `text` (ephemeral, or on their Home), once the deadline is over. */
  tellClicker(body: unknown, respond: unknown, text: string): Promise<void>;
}

function clickedAction(body: unknown): string | undefined {
  const b = body as { type?: unknown; actions?: { action_id?: unknown }[] };
  const id = b.type === 'block_actions' ? b.actions?.[0]?.action_id : undefined;
  return typeof id === 'string' ? id.split(':')[0] : undefined;
}

/** The inline error of a form whose lookups Slack's rate limit left no time for. */
function slackBusyForm(body: unknown, retryAfterSeconds: number | undefined): Record<string, unknown> | undefined {
  const view = (body as { view?: { blocks?: unknown; submit?: { text?: unknown } } }).view;
  const input = Array.isArray(view?.blocks)
    ? view.blocks.find(
        (b): b is { block_id: string } =>
          (b as { type?: unknown })?.type === 'input' && typeof (b as { block_id?: unknown }).block_id === 'string',
      )
    : undefined;
  if (!input) return undefined;
  const label = typeof view?.submit?.text === 'string' ? view.submit.text : 'Submit';
  const message = `Slack is busy right now (its rate limit), so Kudos could not check this form. Nothing was saved. Press ${label} again in ${secondsToWait(retryAfterSeconds)} s.`;
  return { response_action: 'errors', errors: { [input.block_id]: message } };
}

function inTime<A extends ListenerArgs>(
  listener: (args: A) => Promise<void>,
  opts: InTimeOptions,
): (args: A) => Promise<void> {
  return async (args) => {
    const receivedAt = Date.now();
    const action = clickedAction(args.body);
    if (action !== undefined && !opts.modalButtons.has(action)) return listener(args);
    const answersAtAck = action === undefined;
    let acked = false;
    try {
      await answerByAnswered(receivedAt + ANSWER_BUDGET_MS, (answered) => {
        const ack: Ack = (response) => {
          acked = true;
          if (answersAtAck) answered();
          return args.ack(response);
        };
        return listener({ ...args, ack });
      });
    } catch (error) {
      if (!isChatRefusal(error, 'rate_limited')) throw error;
      if (!answersAtAck) {
        const text = `:no_entry: Slack is busy right now (its rate limit), so Kudos could not check that you may open this form. Click the button again in ${secondsToWait(error.retryAfterSeconds)} s.`;
        return opts.tellClicker(args.body, args.respond, text);
      }
      if (acked) throw error;
      const type = (args.body as { type?: unknown }).type;
      if (type === 'block_suggestion') return args.ack({ options: [] });
      const busy = slackBusyForm(args.body, error.retryAfterSeconds);
      if (!busy) throw error;
      return args.ack(busy);
    }
  };
}

/**
 * `app` whose `view` and `options` listeners (form submissions, options lists) and the `action`
 * listeners of `opts.modalButtons` run inTime; every other registration passes through unchanged, so
 * src/slack/index.ts gives it to every feature's listeners.
 */
export function answeringInTime(app: App, opts: InTimeOptions): App {
  return new Proxy(app, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function') return value;
      const method = value as (...a: unknown[]) => unknown;
      if (prop !== 'view' && prop !== 'options' && prop !== 'action') return method.bind(target);
      return (...args: unknown[]) =>
        method.apply(
          target,
          args.map((arg, i) =>
            i > 0 && typeof arg === 'function' ? inTime(arg as (a: ListenerArgs) => Promise<void>, opts) : arg,
          ),
        );
    },
  });
}
