// Drives the app exactly as Slack does: signed HTTP requests into `${appUrl}/slack/events` with Slack's
// payload shapes, then applies the app's answer (slash-command ack text, view_submission
// response_action) to the simulated workspace as Slack's client would.
import { randomBytes } from 'node:crypto';

import { checkMessageContent, checkView } from './limits.js';
import { formEncode, signedHeaders } from './signing.js';
import type { EnvelopeType, SocketModeServer } from './socket-mode.js';
import {
  type Json,
  MAX_VIEW_STACK,
  type Message,
  RESPONSE_URL_MAX_USES,
  RESPONSE_URL_TTL_MS,
  type ResponseUrl,
  type SimulatorState,
  type View,
  withBlockIds,
  type WorkflowStepRun,
} from './state.js';
import { initialStateValues } from './view-state.js';

export interface AppAnswer {
  status: number;
  /** Parsed JSON when the answer is JSON, otherwise the raw text ('' for an empty body). */
  body: unknown;
}

export type ClickTarget = { channel: string; ts: string } | { viewId: string };

/** Slack shows these when the app does not answer in time (3 s). */
export const ACK_DEADLINE_MS = 3000;
const SLACKBOT = 'USLACKBOT';

export class SlackDriver {
  constructor(
    private readonly state: SimulatorState,
    private readonly opts: {
      signingSecret: string;
      appUrl: () => string | undefined;
      simulatorUrl: () => string;
      command: string;
      /** Set when the app is connected in Socket Mode: requests go over its socket instead of HTTP. */
      socket: () => SocketModeServer | undefined;
    },
  ) {}

  private get ws() {
    return this.state.workspace;
  }

  private teamRef(): Json {
    const t = this.state.actingTeam();
    return { id: t.id, domain: t.domain };
  }

  /** The `enterprise` of a payload: the acting workspace's Grid org, if any. */
  private enterpriseRef(): Json | null {
    const t = this.state.actingTeam();
    return t.enterpriseId ? { id: t.enterpriseId, name: t.enterpriseId } : null;
  }

  private userRef(userId: string): Json {
    const u = this.requireUser(userId);
    return { id: u.id, username: u.name, name: u.name, team_id: this.state.actingTeam().id };
  }

  private requireUser(userId: string) {
    const u = this.state.user(userId);
    if (!u) throw new Error(`simulator: no user ${userId} in the workspace`);
    return u;
  }

  private channelName(channelId: string): string {
    return this.state.channel(channelId)?.name ?? (this.state.imUser(channelId) ? 'directmessage' : channelId);
  }

  /**
   * Hands one request to the app the way the app is connected: a signed HTTP POST to
   * `${appUrl}/slack/events`, or an envelope over the app's Socket Mode connection. Measures whether
   * it was answered within Slack's 3 s.
   */
  private deliver(type: EnvelopeType, payload: Json): Promise<AppAnswer & { ms: number }> {
    const socket = this.opts.socket();
    if (socket) return this.deliverOverSocket(socket, type, payload);
    if (type === 'slash_commands')
      return this.post(formEncode(payload as Record<string, string>), 'application/x-www-form-urlencoded');
    if (type === 'interactive')
      return this.post(formEncode({ payload: JSON.stringify(payload) }), 'application/x-www-form-urlencoded');
    return this.post(JSON.stringify(payload), 'application/json');
  }

  private async deliverOverSocket(
    socket: SocketModeServer,
    type: EnvelopeType,
    payload: Json,
  ): Promise<AppAnswer & { ms: number }> {
    const answer = await socket.send(type, payload);
    // No ack is Slack's timeout, as an HTTP answer slower than 3 s.
    if (!answer.acknowledged) return { status: 408, body: '', ms: answer.ms };
    return { status: 200, body: answer.payload, ms: answer.ms };
  }

  private async post(
    body: string,
    contentType: 'application/x-www-form-urlencoded' | 'application/json',
  ): Promise<AppAnswer & { ms: number }> {
    const appUrl = this.opts.appUrl();
    if (!appUrl) throw new Error('simulator: the app URL is not set (setAppUrl)');
    const started = Date.now();
    const res = await fetch(`${appUrl.replace(/\/$/, '')}/slack/events`, {
      method: 'POST',
      headers: signedHeaders(this.opts.signingSecret, body, contentType, Date.now() / 1000),
      body,
    });
    const text = await res.text();
    const ms = Date.now() - started;
    let parsed: unknown = text;
    if (text !== '' && (res.headers.get('content-type') ?? '').includes('json')) {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = text;
      }
    }
    return { status: res.status, body: parsed, ms };
  }

  private sendPayload(payload: Json) {
    return this.deliver('interactive', payload);
  }

  private responseUrl(userId: string, channel: string, sourceTs?: string): ResponseUrl {
    return this.state.issueResponseUrl(userId, channel, sourceTs);
  }

  private responseUrlAddress(r: ResponseUrl): string {
    return `${this.opts.simulatorUrl()}/response/${r.id}`;
  }

  private slackbotSays(channel: string, userId: string, text: string): void {
    this.state.postMessage({ channel, user: SLACKBOT, text, ephemeral: true, visible_to: userId });
  }

  async slashCommand(userId: string, text: string, channelId = 'C_GENERAL'): Promise<AppAnswer> {
    const user = this.requireUser(userId);
    const channel = this.state.user(channelId) ? this.state.imFor(channelId) : channelId;
    const responseUrl = this.responseUrl(user.id, channel);
    const fields: Record<string, string> = {
      token: 'simulator-verification-token',
      team_id: this.state.actingTeam().id,
      team_domain: this.state.actingTeam().domain,
      ...(this.state.actingTeam().enterpriseId ? { enterprise_id: this.state.actingTeam().enterpriseId! } : {}),
      channel_id: channel,
      channel_name: this.channelName(channel),
      user_id: user.id,
      user_name: user.name,
      command: this.opts.command,
      text,
      api_app_id: this.ws.app.appId,
      is_enterprise_install: String(this.state.actingTeam().orgWide),
      response_url: this.responseUrlAddress(responseUrl),
      trigger_id: this.state.issueTrigger(user.id),
    };
    const answer = await this.deliver('slash_commands', fields);
    if (answer.ms > ACK_DEADLINE_MS) {
      this.slackbotSays(channel, user.id, `${this.opts.command} failed with the error "operation_timeout"`);
    } else if (answer.status !== 200) {
      this.slackbotSays(channel, user.id, `${this.opts.command} failed with the error "dispatch_failed"`);
    } else if (answer.body !== '' && answer.body !== null) {
      // A non-empty ack is shown as the command's response: ephemeral unless response_type is in_channel.
      const content: Json = typeof answer.body === 'string' ? { text: answer.body } : (answer.body as Json);
      this.applyResponse(responseUrl, content);
    }
    return { status: answer.status, body: answer.body };
  }

  /** Applies a response_url post or a slash-command ack body to the workspace. Returns an error code or undefined. */
  applyResponse(target: ResponseUrl, content: Json): string | undefined {
    const source = target.sourceTs ? this.state.findMessage(target.channel, target.sourceTs, target.team) : undefined;
    if (content.delete_original === true) {
      if (!source) return 'message_not_found';
      this.state.deleteMessage(source.channel, source.ts, source.team);
      return undefined;
    }
    const check = checkMessageContent(content, { requireContent: true });
    if (!check.ok) return check.error;
    const text = typeof content.text === 'string' ? content.text : '';
    const blocks = Array.isArray(content.blocks) ? withBlockIds(content.blocks as Json[]) : undefined;
    if (content.replace_original === true && source) {
      source.text = text;
      if (blocks) source.blocks = blocks;
      else delete source.blocks;
      source.edited = { ts: this.state.nextTs() };
      this.state.changed();
      return undefined;
    }
    const inChannel = content.response_type === 'in_channel';
    const posted = this.state.postMessage({
      ...(target.team ? { team: target.team } : {}),
      channel: target.channel,
      user: this.ws.app.botUserId,
      bot_id: this.ws.app.botId,
      text,
      ...(blocks ? { blocks } : {}),
      ...(typeof content.thread_ts === 'string' ? { thread_ts: content.thread_ts } : {}),
      ephemeral: !inChannel,
      ...(inChannel ? {} : { visible_to: target.userId }),
    });
    // A slash command's later replace_original / delete_original act on its previous answer.
    if (!target.sourceTs) target.sourceTs = posted.ts;
    return undefined;
  }

  /** A POST to a response_url: Slack allows 5 uses within 30 minutes. */
  postToResponseUrl(id: string, content: Json): { status: number; body: Json } {
    const r = this.state.responseUrls.get(id);
    if (!r) return { status: 404, body: { ok: false, error: 'invalid_url' } };
    if (this.state.now() - r.issuedAt > RESPONSE_URL_TTL_MS)
      return { status: 404, body: { ok: false, error: 'expired_url' } };
    if (r.uses >= RESPONSE_URL_MAX_USES) return { status: 404, body: { ok: false, error: 'used_url' } };
    r.uses++;
    const error = this.applyResponse(r, content);
    this.state.calls.push({ method: 'response_url', args: content, ok: !error, ...(error ? { error } : {}) });
    return error ? { status: 400, body: { ok: false, error } } : { status: 200, body: { ok: true } };
  }

  private viewFor(viewId: string, userId: string): View {
    const view = this.state.views.get(viewId);
    if (!view) throw new Error(`simulator: view ${viewId} is not open`);
    if (this.state.viewOwner.get(viewId) !== userId)
      throw new Error(`simulator: view ${viewId} is not shown to ${userId}`);
    return view;
  }

  async submitView(
    viewId: string,
    values: Record<string, Record<string, unknown>>,
    userId: string,
  ): Promise<AppAnswer> {
    const view = this.viewFor(viewId, userId);
    const stack = this.state.stackOf(userId);
    if (view.type !== 'modal' || stack[stack.length - 1] !== viewId) {
      throw new Error(`simulator: only the top modal of ${userId}'s stack can be submitted`);
    }
    const merged = { ...initialStateValues(view.blocks) };
    for (const [blockId, actions] of Object.entries(values))
      merged[blockId] = { ...merged[blockId], ...(actions as Record<string, Json>) };
    view.state = { values: merged };
    const payload: Json = {
      type: 'view_submission',
      team: this.teamRef(),
      user: this.userRef(userId),
      api_app_id: this.ws.app.appId,
      token: 'simulator-verification-token',
      trigger_id: this.state.issueTrigger(userId),
      view,
      response_urls: [],
      is_enterprise_install: this.state.actingTeam().orgWide,
      enterprise: this.enterpriseRef(),
    };
    const answer = await this.sendPayload(payload);
    this.applyViewAck(view, userId, answer);
    return { status: answer.status, body: answer.body };
  }

  private applyViewAck(view: View, userId: string, answer: AppAnswer & { ms: number }): void {
    const s = this.state;
    const problem = (msg: string) => {
      s.viewErrors.set(view.id, { '': msg });
      s.changed();
    };
    // A duplicate submission answered after the first one closed the view has nothing left to act on.
    if (!s.stackOf(userId).includes(view.id)) return;
    if (answer.status !== 200 || answer.ms > ACK_DEADLINE_MS)
      return problem('We had some trouble connecting. Try again?');
    if (answer.body === '' || answer.body === null) return s.closeModal(userId, view.id);
    const body = answer.body as Json;
    if (typeof body !== 'object') return problem('We had some trouble connecting. Try again?');
    switch (body.response_action) {
      case 'errors': {
        const errors = body.errors as Record<string, string> | undefined;
        const inputIds = new Set(view.blocks.filter((b) => b.type === 'input').map((b) => b.block_id as string));
        if (!errors || typeof errors !== 'object' || Object.keys(errors).some((k) => !inputIds.has(k))) {
          return problem('We had some trouble connecting. Try again?');
        }
        s.viewErrors.set(view.id, { ...errors });
        s.changed();
        return;
      }
      case 'update':
        if (checkView(body.view, 'modal').length > 0) return problem('We had some trouble connecting. Try again?');
        s.replaceView(view.id, body.view as Json);
        return;
      case 'push': {
        if (checkView(body.view, 'modal').length > 0) return problem('We had some trouble connecting. Try again?');
        if (s.stackOf(userId).length >= MAX_VIEW_STACK) return problem('We had some trouble connecting. Try again?');
        const pushed = s.materializeView(body.view as Json, {
          type: 'modal',
          rootId: view.root_view_id,
          previousId: view.id,
        });
        s.pushModal(userId, pushed);
        return;
      }
      case 'clear':
        return s.clearModals(userId);
      default:
        return problem('We had some trouble connecting. Try again?');
    }
  }

  /** The user closes the top modal (Cancel/Back) or all of them (the X); view_closed when notify_on_close. */
  async closeView(viewId: string, userId: string, all = false): Promise<AppAnswer | undefined> {
    const top = this.viewFor(viewId, userId);
    // The X closes the whole stack; Slack then reports the root view with is_cleared.
    const view = all ? (this.state.views.get(this.state.stackOf(userId)[0] ?? '') ?? top) : top;
    const notify = view.notify_on_close;
    const closed: View = { ...view, state: { values: {} } };
    if (all) this.state.clearModals(userId);
    else this.state.popModal(userId);
    if (!notify) return undefined;
    const answer = await this.sendPayload({
      type: 'view_closed',
      team: this.teamRef(),
      user: this.userRef(userId),
      api_app_id: this.ws.app.appId,
      token: 'simulator-verification-token',
      view: closed,
      is_cleared: all,
      is_enterprise_install: this.state.actingTeam().orgWide,
      enterprise: this.enterpriseRef(),
    });
    return { status: answer.status, body: answer.body };
  }

  async clickButton(where: ClickTarget, actionId: string, userId: string, value?: string): Promise<AppAnswer> {
    this.requireUser(userId);
    let blocks: Json[];
    let payloadWhere: Json;
    if ('viewId' in where) {
      const view = this.viewFor(where.viewId, userId);
      blocks = view.blocks;
      // Slack sends the view's current state: what the user entered over the initial values.
      view.state = { values: { ...initialStateValues(view.blocks), ...view.state.values } };
      payloadWhere = { container: { type: 'view', view_id: view.id }, view };
    } else {
      const m = this.state.findMessage(where.channel, where.ts);
      if (!m) throw new Error(`simulator: no message ${where.ts} in ${where.channel}`);
      if (m.ephemeral && m.visible_to !== userId)
        throw new Error(`simulator: ${userId} cannot see that ephemeral message`);
      blocks = m.blocks ?? [];
      payloadWhere = {
        container: { type: 'message', message_ts: m.ts, channel_id: m.channel, is_ephemeral: m.ephemeral },
        channel: { id: m.channel, name: this.channelName(m.channel) },
        // Slack sends the message itself only for non-ephemeral messages.
        ...(m.ephemeral ? {} : { message: messagePayload(m) }),
        response_url: this.responseUrlAddress(this.responseUrl(userId, m.channel, m.ts)),
        state: { values: {} },
      };
    }
    const found = findElement(blocks, actionId);
    if (!found) throw new Error(`simulator: no element with action_id ${actionId}`);
    const payload: Json = {
      type: 'block_actions',
      user: this.userRef(userId),
      api_app_id: this.ws.app.appId,
      token: 'simulator-verification-token',
      team: this.teamRef(),
      enterprise: this.enterpriseRef(),
      is_enterprise_install: this.state.actingTeam().orgWide,
      trigger_id: this.state.issueTrigger(userId),
      ...payloadWhere,
      actions: [actionFor(found.element, found.blockId, value, this.state.nextTs())],
    };
    const answer = await this.sendPayload(payload);
    return { status: answer.status, body: answer.body };
  }

  /** A global shortcut (the lightning menu / search). */
  async globalShortcut(userId: string, callbackId: string): Promise<AppAnswer> {
    this.requireUser(userId);
    const answer = await this.sendPayload({
      type: 'shortcut',
      callback_id: callbackId,
      trigger_id: this.state.issueTrigger(userId),
      user: this.userRef(userId),
      team: this.teamRef(),
      api_app_id: this.ws.app.appId,
      token: 'simulator-verification-token',
      action_ts: this.state.nextTs(),
      is_enterprise_install: this.state.actingTeam().orgWide,
      enterprise: this.enterpriseRef(),
    });
    return { status: answer.status, body: answer.body };
  }

  /** A message shortcut ("More actions" on a message). */
  async messageShortcut(
    userId: string,
    where: { channel: string; ts: string },
    callbackId: string,
  ): Promise<AppAnswer> {
    this.requireUser(userId);
    const m = this.state.findMessage(where.channel, where.ts);
    if (!m || m.ephemeral) throw new Error(`simulator: no message ${where.ts} in ${where.channel}`);
    const answer = await this.sendPayload({
      type: 'message_action',
      callback_id: callbackId,
      trigger_id: this.state.issueTrigger(userId),
      message_ts: m.ts,
      response_url: this.responseUrlAddress(this.responseUrl(userId, m.channel)),
      user: this.userRef(userId),
      team: this.teamRef(),
      channel: { id: m.channel, name: this.channelName(m.channel) },
      message: messagePayload(m),
      api_app_id: this.ws.app.appId,
      token: 'simulator-verification-token',
      action_ts: this.state.nextTs(),
      is_enterprise_install: this.state.actingTeam().orgWide,
      enterprise: this.enterpriseRef(),
    });
    return { status: answer.status, body: answer.body };
  }

  /**
   * A person clicks a reaction on a message: adds theirs (reaction_added) or, when they had it, takes
   * it back (reaction_removed), as Slack's reaction pill does.
   */
  async react(
    userId: string,
    where: { channel: string; ts: string },
    name: string,
  ): Promise<AppAnswer & { added: boolean }> {
    this.requireUser(userId);
    const m = this.state.findMessage(where.channel, where.ts);
    if (!m || m.ephemeral) throw new Error(`simulator: no message ${where.ts} in ${where.channel}`);
    const outcome = this.state.toggleReaction(m, userId, name);
    const answer = await this.sendEvent({
      type: outcome === 'added' ? 'reaction_added' : 'reaction_removed',
      user: userId,
      reaction: name,
      item_user: m.user,
      item: { type: 'message', channel: m.channel, ts: m.ts },
    });
    return { ...answer, added: outcome === 'added' };
  }

  async loadOptions(
    viewId: string,
    actionId: string,
    blockId: string,
    query: string,
    userId: string,
  ): Promise<AppAnswer> {
    const view = this.viewFor(viewId, userId);
    const answer = await this.sendPayload({
      type: 'block_suggestion',
      user: this.userRef(userId),
      container: { type: 'view', view_id: view.id },
      api_app_id: this.ws.app.appId,
      token: 'simulator-verification-token',
      action_id: actionId,
      block_id: blockId,
      value: query,
      team: this.teamRef(),
      enterprise: this.enterpriseRef(),
      is_enterprise_install: this.state.actingTeam().orgWide,
      view,
    });
    const body = answer.body as Json | undefined;
    if (answer.status === 200 && body && typeof body === 'object') {
      const options = Array.isArray(body.options)
        ? (body.options as Json[])
        : Array.isArray(body.option_groups)
          ? (body.option_groups as Json[]).flatMap((g) => (Array.isArray(g.options) ? (g.options as Json[]) : []))
          : [];
      this.state.loadedOptions.set(`${viewId}/${actionId}`, options);
    }
    return { status: answer.status, body: answer.body };
  }

  /**
   * Runs one Workflow Builder custom step of the app, as Slack does when a workflow reaches it: a
   * `function_executed` event with the inputs and a fresh workflow token (bot_access_token) with
   * which the app completes the step (functions.completeSuccess / completeError).
   */
  async runWorkflowStep(step: {
    callbackId: string;
    inputs: Json;
    title?: string;
    requiredOutputs?: string[];
    functionExecutionId?: string;
    startedBy?: string;
  }): Promise<{ run: WorkflowStepRun; answer: AppAnswer }> {
    const functionExecutionId = step.functionExecutionId ?? this.state.nextId('Fx');
    let run = this.state.workflowSteps.get(functionExecutionId);
    if (!run) {
      run = {
        functionExecutionId,
        workflowExecutionId: this.state.nextId('Wx'),
        callbackId: step.callbackId,
        token: `xwfp-${randomBytes(12).toString('hex')}`,
        inputs: step.inputs,
        requiredOutputs: step.requiredOutputs ?? [],
        state: 'running',
        ...(step.startedBy ? { startedBy: step.startedBy } : {}),
      };
      this.state.workflowSteps.set(functionExecutionId, run);
      this.state.changed();
    }
    const nowS = Math.floor(Date.now() / 1000);
    const answer = await this.sendEvent({
      type: 'function_executed',
      function: {
        id: `Fn${step.callbackId.toUpperCase().replace(/[^A-Z0-9]/g, '')}`.slice(0, 12),
        callback_id: step.callbackId,
        title: step.title ?? step.callbackId,
        description: '',
        type: 'app',
        input_parameters: Object.keys(step.inputs).map((name) => ({ type: 'string', name, is_required: false })),
        output_parameters: (step.requiredOutputs ?? []).map((name) => ({ type: 'string', name, is_required: true })),
        app_id: this.ws.app.appId,
        date_created: nowS,
        date_updated: nowS,
        date_deleted: 0,
      },
      inputs: run.inputs,
      function_execution_id: run.functionExecutionId,
      workflow_execution_id: run.workflowExecutionId,
      bot_access_token: run.token,
    });
    return { run, answer };
  }

  async sendEvent(event: Record<string, unknown>): Promise<AppAnswer> {
    const nowS = Math.floor(Date.now() / 1000);
    const envelope = {
      token: 'simulator-verification-token',
      team_id: this.state.actingTeam().id,
      ...(this.state.actingTeam().enterpriseId
        ? {
            enterprise_id: this.state.actingTeam().enterpriseId,
            is_enterprise_install: this.state.actingTeam().orgWide,
          }
        : {}),
      api_app_id: this.ws.app.appId,
      event: { event_ts: this.state.nextTs(), ...event },
      type: 'event_callback',
      event_id: `Ev${randomBytes(5).toString('hex').toUpperCase()}`,
      event_time: nowS,
      authorizations: [
        {
          enterprise_id: this.state.actingTeam().enterpriseId ?? null,
          team_id: this.state.actingTeam().orgWide ? null : this.state.actingTeam().id,
          user_id: this.ws.app.botUserId,
          is_bot: true,
          is_enterprise_install: this.state.actingTeam().orgWide,
        },
      ],
      is_ext_shared_channel: false,
      event_context: `4-${randomBytes(8).toString('hex')}`,
    };
    const answer = await this.deliver('events_api', envelope);
    return { status: answer.status, body: answer.body };
  }
}

function messagePayload(m: Message): Json {
  return {
    type: 'message',
    subtype: m.bot_id ? 'bot_message' : undefined,
    user: m.user,
    bot_id: m.bot_id,
    text: m.text,
    ts: m.ts,
    ...(m.blocks ? { blocks: m.blocks } : {}),
    ...(m.thread_ts ? { thread_ts: m.thread_ts } : {}),
  };
}

/** Finds an interactive element by action_id in actions blocks, section accessories and input blocks. */
export function findElement(blocks: Json[], actionId: string): { element: Json; blockId: string } | undefined {
  for (const b of blocks) {
    const blockId = String(b.block_id ?? '');
    const candidates: unknown[] = [];
    if (Array.isArray(b.elements)) candidates.push(...b.elements);
    if (b.accessory) candidates.push(b.accessory);
    if (b.element) candidates.push(b.element);
    for (const el of candidates) {
      if (el && typeof el === 'object' && (el as Json).action_id === actionId) return { element: el as Json, blockId };
    }
  }
  return undefined;
}

function allOptions(el: Json): Json[] {
  const direct = Array.isArray(el.options) ? (el.options as Json[]) : [];
  const grouped = Array.isArray(el.option_groups)
    ? (el.option_groups as Json[]).flatMap((g) => (Array.isArray(g.options) ? (g.options as Json[]) : []))
    : [];
  return [...direct, ...grouped];
}

/** The `actions[0]` entry Slack sends for a click on / choice in an element. */
export function actionFor(el: Json, blockId: string, value: string | undefined, actionTs: string): Json {
  const base: Json = { type: el.type, action_id: el.action_id, block_id: blockId, action_ts: actionTs };
  switch (el.type) {
    case 'button':
      return {
        ...base,
        text: el.text,
        ...((value ?? el.value) !== undefined ? { value: value ?? el.value } : {}),
        ...(el.style ? { style: el.style } : {}),
      };
    case 'static_select':
    case 'external_select':
    case 'radio_buttons':
    case 'overflow': {
      const opt =
        allOptions(el).find((o) => o.value === value) ??
        (value !== undefined ? { text: { type: 'plain_text', text: value }, value } : null);
      return { ...base, selected_option: opt };
    }
    case 'users_select':
      return { ...base, selected_user: value ?? null };
    case 'datepicker':
      return { ...base, selected_date: value ?? null };
    case 'timepicker':
      return { ...base, selected_time: value ?? null };
    default:
      return { ...base, ...(value !== undefined ? { value } : {}) };
  }
}
