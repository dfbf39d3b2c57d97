// An id of one workspace, carried by a signed request of another, reads nothing and changes nothing.
// Two workspaces, each with its own Rewards account (A: the emulator's seeded organization, B: one of
// its own), on one database. Every action, view and options handler the app registers is in one of
// two tables: ID_HANDLERS (it reads an id, or a name, from the payload) or NO_ID (it acts on the
// clicker's own workspace only, and why); a handler in neither fails the first test, so a new one
// cannot be added without saying which it is. Each ID_HANDLERS row sends, as B's admin (an admin and
// approver of B, signed as Slack would), each of A's ids in the place the app's own builders put it,
// and then a made-up id of the same shape, and expects:
// - the answer for A's id to be the answer for the made-up id (nothing of A's state: "already
//   rejected by @someone", A's amounts, names or notes);
// - nothing of A's in anything the app sent to Slack, and no Slack call beyond the one answer;
// - A's rows unchanged, no audit row anywhere, and no Rewards API call with A's credentials (the
//   app reaches the Rewards API through a recording proxy, which tells the accounts by their tokens).
// The app is closed (every listener finished) before the last checks. Runs on PGlite and PostgreSQL.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { App } from '@slack/bolt';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import {
  approvalRequests,
  auditEvents,
  automationOccurrences,
  bouncedRecipients,
  campaigns,
  celebrationRules,
  companyValues,
  kudos,
  notifications,
  recurringSeries,
  rewardLinkRequests,
  topUpRequests,
} from '../../src/db/schema/index.js';
import { generateKey } from '../../src/secrets/key-ring.js';
import {
  Approval,
  BounceFix,
  Campaigns,
  Celebrations,
  CompanyValues,
  Finance,
  Home,
  LinkApproval,
  OneLine,
  PeopleCountries,
  Recurring,
  RewardsConnect,
  SayThanks,
  ScheduledList,
  SendBrand,
  SendModal,
  SendModalMore,
  SettingsModal,
  Templates,
} from '../../src/slack/ids.js';
import { registerListeners } from '../../src/slack/index.js';
import type { ListenerDeps } from '../../src/slack/listening/listener-deps.js';
import {
  blockActionPayload,
  eventually,
  postSignedPayload,
  sendModalValues,
  useAppPerTest,
  viewSubmissionPayload,
} from '../support/app.js';
import { pendingKudosValues } from '../support/kudos-row.js';

const A = { teamId: 'T0KUDOS', enterpriseId: null };
const B = { teamId: 'T0BETA', enterpriseId: null };
/** An admin and approver of B only (a seeded Slack user, so Slack knows their e-mail and time zone). */
const B_ADMIN = 'U_EMP2';
const BETA = {
  orgId: 'beta',
  productionClientId: 'beta-client',
  productionClientSecret: 'beta-secret',
  signingSecret: 'beta-signing-secret',
};
/**
 * Text that only A's data holds: none of it may reach B. A's amount ($4,321) is matched as a whole
 * number, in dollars or cents: random ids (a response URL's UUID) hold any run of hex digits.
 */
const A_MARKERS = [
  ...['ALPHA', 'U_MANAGER', 'U_APPROVER', '4,321', 'C_APPROVALS'].map((text) => new RegExp(text)),
  /(?<![\w-])4321(?:00)?(?![\w-])/,
];

// ---------------------------------------------------------------------------------------------------
// What the app registers (a recording App given to registerListeners), and the two tables.

type HandlerKind = 'action' | 'view' | 'options';
interface Registered {
  kind: HandlerKind;
  constraint: string | RegExp;
}

function registeredHandlers(): Registered[] {
  const found: Registered[] = [];
  const recorder = new Proxy(
    {},
    {
      get: (_target, method) => (constraint: unknown) => {
        if (method !== 'action' && method !== 'view' && method !== 'options') return;
        // A constraint object ({ callback_id, type: 'view_closed' }, { action_id, block_id }) is known by its id.
        const named =
          typeof constraint === 'object' && constraint !== null && !(constraint instanceof RegExp)
            ? ((constraint as { callback_id?: unknown; action_id?: unknown }).callback_id ??
              (constraint as { action_id?: unknown }).action_id)
            : constraint;
        if (typeof named !== 'string' && !(named instanceof RegExp))
          throw new Error(
            `a ${method} handler registered by ${JSON.stringify(constraint)}: teach this test to read it`,
          );
        found.push({ kind: method, constraint: named });
      },
    },
  ) as App;
  // Registration reads deps only to decide what to register (the Rewards connect form: distribution mode).
  const deps = { rewardsSetup: {} } as unknown as ListenerDeps;
  registerListeners(recorder, deps);
  return found;
}

const handles = (r: Registered, kind: HandlerKind, id: string) =>
  r.kind === kind && (typeof r.constraint === 'string' ? r.constraint === id : r.constraint.test(id));

/** Handlers that take no id: what each acts on. */
const NO_ID: Array<{ kind: HandlerKind; id: string; why: string }> = [
  { kind: 'action', id: Home.actions.openSendModal, why: "opens the send form in the clicker's workspace" },
  { kind: 'action', id: `${Home.actions.page}_sent`, why: "a page of the clicker's own Home list (`list:page`)" },
  { kind: 'action', id: Home.actions.openSettings, why: "the clicker's workspace's settings" },
  { kind: 'action', id: Home.actions.statsOptOut, why: "the clicker's own leaderboard choice" },
  { kind: 'action', id: Home.actions.statsOptIn, why: "the clicker's own leaderboard choice" },
  { kind: 'action', id: Finance.actions.openTopUp, why: "a new top-up for the clicker's workspace" },
  { kind: 'action', id: Finance.actions.openLimits, why: "the clicker's workspace's limits" },
  { kind: 'action', id: Templates.actions.create, why: "a new template in the clicker's workspace's account" },
  { kind: 'action', id: Campaigns.actions.create, why: "a new campaign in the clicker's workspace" },
  { kind: 'action', id: Celebrations.actions.editBirthday, why: "the clicker's workspace's rule, named by its kind" },
  {
    kind: 'action',
    id: Celebrations.actions.editAnniversary,
    why: "the clicker's workspace's rule, named by its kind",
  },
  { kind: 'action', id: Celebrations.actions.uploadCsv, why: "dates for the clicker's workspace" },
  { kind: 'action', id: Celebrations.actions.optOut, why: "the clicker's own choice" },
  { kind: 'action', id: Celebrations.actions.noPublicPost, why: "the clicker's own choice" },
  { kind: 'action', id: SettingsModal.actions.deleteData, why: "the clicker's workspace's data" },
  { kind: 'action', id: CompanyValues.actions.manage, why: "the clicker's workspace's company values" },
  { kind: 'action', id: CompanyValues.actions.add, why: "a new company value in the clicker's workspace" },
  {
    kind: 'view',
    id: CompanyValues.formModal.callbackId,
    why: "a company value of the clicker's workspace: the id in private_metadata is looked up with the clicker's team_id (saveCompanyValue)",
  },
  { kind: 'options', id: SettingsModal.actions.senderGroup, why: "the clicker's workspace's Slack user groups" },
  { kind: 'options', id: SettingsModal.actions.allowanceGroup, why: "the clicker's workspace's Slack user groups" },
  { kind: 'action', id: Finance.actions.changeBilling, why: "the clicker's workspace's remembered billing details" },
  { kind: 'action', id: RewardsConnect.actions.open, why: "the clicker's workspace's Rewards connection" },
  { kind: 'view', id: SettingsModal.callbackId, why: "the clicker's workspace's settings" },
  { kind: 'view', id: Finance.topUpModal.callbackId, why: "a new top-up for the clicker's workspace" },
  { kind: 'view', id: Finance.limitsModal.callbackId, why: "the clicker's workspace's limits" },
  {
    kind: 'view',
    id: Celebrations.ruleModal.callbackId,
    why: "the clicker's workspace's rule, named by its kind (private_metadata)",
  },
  { kind: 'view', id: Celebrations.csvModal.callbackId, why: "dates for the clicker's workspace" },
  { kind: 'action', id: PeopleCountries.actions.uploadCsv, why: "countries for the clicker's workspace" },
  { kind: 'view', id: PeopleCountries.csvModal.callbackId, why: "countries for the clicker's workspace" },
  {
    kind: 'options',
    id: Celebrations.ruleModal.actions.brand,
    why: "the brand catalog of the clicker's workspace's account (its own Rewards client)",
  },
  { kind: 'view', id: Recurring.modal.callbackId, why: "a new series of the clicker's" },
  { kind: 'action', id: Recurring.actions.page, why: "a page number of the clicker's own list of series" },
  {
    kind: 'view',
    id: RewardsConnect.callbackId,
    why: "the clicker's workspace's Rewards connection (no connection id in the form)",
  },
  { kind: 'view', id: Templates.modal.callbackId, why: "a new template in the clicker's workspace's account" },
  { kind: 'options', id: SendModal.actions.design, why: 'the catalog (the same for every account)' },
  { kind: 'action', id: SendModalMore.action, why: "the clicker's own open send form, shown with more fields" },
  { kind: 'action', id: SendModal.actions.timing, why: "the clicker's own open send form, with or without the date" },
  { kind: 'action', id: SendModal.actions.cardType, why: "the clicker's own open send form, a choice card or a brand" },
  {
    kind: 'options',
    id: SendBrand.actions.brand,
    why: "the brand catalog of the clicker's workspace's account (its own Rewards client)",
  },
  {
    kind: 'action',
    id: SendBrand.actions.brand,
    why: "a product id read in the brand catalog of the clicker's workspace's account, into the clicker's own form",
  },
  { kind: 'action', id: SendBrand.actions.face, why: "the clicker's own open send form, an amount of its brand" },
  {
    kind: 'action',
    id: SendBrand.actions.terms,
    why: "a product id read in the brand catalog of the clicker's workspace's account (terms shown to the clicker)",
  },
  {
    kind: 'action',
    id: OneLine.actions.send,
    why: "the clicker's own confirmation: people and a design checked again in the clicker's workspace, recorded under a fresh key scoped by it",
  },
  { kind: 'action', id: OneLine.actions.edit, why: "the clicker's own confirmation, opened as a send form" },
  {
    kind: 'options',
    id: SettingsModal.actions.approverGroup,
    why: "the clicker's workspace's Slack user groups (its own token)",
  },
  { kind: 'options', id: SettingsModal.actions.defaultDesign, why: 'the catalog (the same for every account)' },
  { kind: 'options', id: Campaigns.modal.designAction, why: 'the catalog (the same for every account)' },
  {
    kind: 'options',
    id: Campaigns.modal.templateAction,
    why: "the clicker's workspace's account's templates (the same handler as the send form's, in ID_HANDLERS)",
  },
];

/** A's rows and Rewards objects that B's requests aim at. */
interface Alpha {
  kudosAwaiting: string;
  kudosRejected: string;
  kudosScheduled: string;
  kudosCanceled: string;
  bounceOpen: string;
  bounceResent: string;
  topUpAwaiting: string;
  topUpApproved: string;
  linksAwaiting: string;
  linksRejected: string;
  campaignActive: string;
  campaignArchived: string;
  seriesActive: string;
  seriesPaused: string;
  occurrenceSeries: string;
  occurrenceBirthday: string;
  occurrenceSkipped: string;
  templateId: string;
  groupId: string;
  valueId: string;
}

/** How the answer reaches the clicker: the request's own answer (views, options), or one message after it. */
type AnswerBy = 'ack' | 'message';

interface IdHandler {
  kind: HandlerKind;
  /** The action_id, callback_id or options action as the app's builders write it. */
  id: string;
  what: string;
  ids(a: Alpha): string[];
  /** A made-up id of the same shape as A's. */
  madeUp?(aId: string): string;
  answer: AnswerBy;
  payload(id: string): Record<string, unknown>;
}

const RESPONSE_PATH = '/respond/';
let sink: Sink;

function click(actionId: string, value: string) {
  return blockActionPayload({
    teamId: B.teamId,
    userId: B_ADMIN,
    actionId,
    value,
    channel: 'C_GENERAL',
    responseUrl: `${sink.url}${RESPONSE_PATH}${randomUUID()}`,
  });
}

/** The same click on App Home: no response_url, no channel; answered on the clicker's Home. */
function homeClick(actionId: string, value: string) {
  const { response_url: _r, channel: _c, ...rest } = click(actionId, value) as Record<string, unknown>;
  return {
    ...rest,
    container: { type: 'view', view_id: 'V_HOME_B' },
    view: { id: 'V_HOME_B', type: 'home', hash: 'h' },
  };
}

function submit(callbackId: string, privateMetadata: unknown, values: Record<string, Record<string, unknown>>) {
  const view = {
    id: `V_${randomUUID().slice(0, 8).toUpperCase()}`,
    callback_id: callbackId,
    private_metadata: JSON.stringify(privateMetadata),
    blocks: [],
  };
  return viewSubmissionPayload(view, values, B_ADMIN, B.teamId);
}

function optionsLoad(actionId: string, value: string) {
  return {
    type: 'block_suggestion',
    team: { id: B.teamId, domain: 'beta' },
    user: { id: B_ADMIN, team_id: B.teamId },
    api_app_id: 'A0KUDOS',
    action_id: actionId,
    block_id: 'b',
    value,
    view: { id: 'V_FORM_B', type: 'modal', callback_id: SendModal.callbackId },
  };
}

const text = (value: string) => ({ type: 'plain_text_input', value });
const option = (value: string) => ({ selected_option: { text: { type: 'plain_text', text: value }, value } });
const sendValues = (extra: Record<string, Record<string, unknown>> = {}) => ({
  ...sendModalValues({ users: ['U_EMP1'], design: 'CC-THANK-YOU', amount: '25' }),
  ...extra,
});
const campaignForm = {
  [Campaigns.modal.blocks.name]: { [Campaigns.modal.action]: text('Beta promo') },
  [Campaigns.modal.blocks.design]: {
    [Campaigns.modal.designAction]: { type: 'external_select', ...option('CC-THANK-YOU') },
  },
  [Campaigns.modal.blocks.min]: { [Campaigns.modal.action]: { type: 'number_input', value: '10' } },
  [Campaigns.modal.blocks.max]: { [Campaigns.modal.action]: { type: 'number_input', value: '50' } },
  [Campaigns.modal.blocks.default]: { [Campaigns.modal.action]: { type: 'number_input', value: '25' } },
};
/** The emulator's template ids: a made-up one of the same shape. */
const otherTemplateId = (id: string) =>
  id.replace(/[0-9A-Za-z]/g, (c, i: number) =>
    i % 2
      ? c
      : /\d/.test(c)
        ? String((Number(c) + 1) % 10)
        : c === 'Z'
          ? 'A'
          : c === 'z'
            ? 'a'
            : String.fromCharCode(c.charCodeAt(0) + 1),
  );

const ID_HANDLERS: IdHandler[] = [
  {
    kind: 'action',
    id: ScheduledList.actions.cancel,
    what: 'Cancel on the scheduled list (kudos)',
    ids: (a) => [a.kudosScheduled, a.kudosCanceled, a.kudosAwaiting],
    answer: 'message',
    payload: (id) => click(ScheduledList.actions.cancel, id),
  },
  {
    kind: 'action',
    id: Home.actions.cancel,
    what: 'Cancel on App Home (kudos)',
    ids: (a) => [a.kudosScheduled, a.kudosCanceled],
    answer: 'message',
    payload: (id) => homeClick(Home.actions.cancel, id),
  },
  {
    kind: 'action',
    id: BounceFix.actions.open,
    what: 'Fix address on a bounced card (bounce)',
    ids: (a) => [a.bounceOpen, a.bounceResent],
    answer: 'message',
    payload: (id) => click(BounceFix.actions.open, id),
  },
  {
    kind: 'action',
    id: Approval.actions.approve,
    what: 'Approve (approval request)',
    ids: (a) => [a.kudosAwaiting, a.kudosRejected],
    answer: 'message',
    payload: (id) => click(Approval.actions.approve, id),
  },
  {
    kind: 'action',
    id: Approval.actions.reject,
    what: 'Reject (approval request)',
    ids: (a) => [a.kudosAwaiting, a.kudosRejected],
    answer: 'message',
    payload: (id) => click(Approval.actions.reject, id),
  },
  {
    kind: 'action',
    id: Finance.actions.approveTopUp,
    what: 'Approve (top-up)',
    ids: (a) => [a.topUpAwaiting, a.topUpApproved],
    answer: 'message',
    payload: (id) => click(Finance.actions.approveTopUp, id),
  },
  {
    kind: 'action',
    id: Finance.actions.rejectTopUp,
    what: 'Reject (top-up)',
    ids: (a) => [a.topUpAwaiting, a.topUpApproved],
    answer: 'message',
    payload: (id) => click(Finance.actions.rejectTopUp, id),
  },
  {
    kind: 'action',
    id: LinkApproval.actions.approve,
    what: 'Approve (reward-link request)',
    ids: (a) => [a.linksAwaiting, a.linksRejected],
    answer: 'message',
    payload: (id) => click(LinkApproval.actions.approve, id),
  },
  {
    kind: 'action',
    id: LinkApproval.actions.reject,
    what: 'Reject (reward-link request)',
    ids: (a) => [a.linksAwaiting, a.linksRejected],
    answer: 'message',
    payload: (id) => click(LinkApproval.actions.reject, id),
  },
  {
    kind: 'action',
    id: Templates.actions.edit,
    what: 'Edit (e-mail template)',
    ids: (a) => [a.templateId],
    madeUp: otherTemplateId,
    answer: 'message',
    payload: (id) => click(Templates.actions.edit, id),
  },
  {
    kind: 'action',
    id: Templates.actions.testEmail,
    what: 'Send me a test e-mail (e-mail template)',
    ids: (a) => [a.templateId],
    madeUp: otherTemplateId,
    answer: 'message',
    payload: (id) => click(Templates.actions.testEmail, id),
  },
  {
    kind: 'action',
    id: CompanyValues.actions.edit,
    what: 'Edit (company value)',
    ids: (a) => [a.valueId],
    answer: 'ack',
    payload: (id) => click(CompanyValues.actions.edit, id),
  },
  {
    kind: 'action',
    id: CompanyValues.actions.remove,
    what: 'Remove (company value)',
    ids: (a) => [a.valueId],
    answer: 'ack',
    payload: (id) => click(CompanyValues.actions.remove, id),
  },
  {
    kind: 'action',
    id: Campaigns.actions.edit,
    what: 'Edit (campaign)',
    ids: (a) => [a.campaignActive, a.campaignArchived],
    answer: 'message',
    payload: (id) => click(Campaigns.actions.edit, id),
  },
  {
    kind: 'action',
    id: Campaigns.actions.archive,
    what: 'Archive (campaign)',
    ids: (a) => [a.campaignActive, a.campaignArchived],
    answer: 'message',
    payload: (id) => click(Campaigns.actions.archive, id),
  },
  {
    kind: 'action',
    id: SendModal.actions.campaign,
    what: "the send form's campaign pick (campaign)",
    ids: (a) => [a.campaignActive, a.campaignArchived],
    answer: 'message',
    payload: (id) => ({
      type: 'block_actions',
      team: { id: B.teamId, domain: 'beta' },
      user: { id: B_ADMIN, team_id: B.teamId },
      api_app_id: 'A0KUDOS',
      trigger_id: '1.2.abc',
      container: { type: 'view', view_id: 'V_SEND_B' },
      view: {
        id: 'V_SEND_B',
        type: 'modal',
        callback_id: SendModal.callbackId,
        hash: 'h',
        private_metadata: '{}',
        state: { values: {} },
      },
      actions: [
        {
          type: 'external_select',
          action_id: SendModal.actions.campaign,
          block_id: SendModal.blocks.campaign,
          ...option(id),
          action_ts: '1.2',
        },
      ],
    }),
  },
  {
    kind: 'action',
    id: `${Celebrations.actions.skip}:x`,
    what: 'Skip (celebration occurrence)',
    ids: (a) => [a.occurrenceBirthday, a.occurrenceSkipped],
    answer: 'message',
    payload: (id) => click(`${Celebrations.actions.skip}:${id}`, id),
  },
  ...(['pause', 'resume', 'delete'] as const).map((verb): IdHandler => ({
    kind: 'action',
    id: `${Recurring.actions[verb]}:x`,
    what: `${verb} (recurring series)`,
    ids: (a) => [a.seriesActive, a.seriesPaused],
    answer: 'message',
    payload: (id) => click(`${Recurring.actions[verb]}:${id}`, id),
  })),
  {
    kind: 'action',
    id: `${Recurring.actions.skip}:x`,
    what: 'Skip (recurring occurrence)',
    ids: (a) => [a.occurrenceSeries, a.occurrenceSkipped],
    answer: 'message',
    payload: (id) => click(`${Recurring.actions.skip}:${id}`, id),
  },
  {
    kind: 'view',
    id: Approval.rejectModal.callbackId,
    what: 'the reject-reason form (approval request)',
    ids: (a) => [a.kudosAwaiting, a.kudosRejected],
    answer: 'ack',
    payload: (id) =>
      submit(
        Approval.rejectModal.callbackId,
        { kudosId: id },
        { [Approval.rejectModal.blocks.reason]: { [Approval.rejectModal.actions.reason]: text('no') } },
      ),
  },
  {
    kind: 'action',
    id: SayThanks.actions.open,
    what: 'Say thanks on a recipient DM (kudos)',
    ids: (a) => [a.kudosScheduled, a.kudosCanceled],
    answer: 'message',
    payload: (id) => click(SayThanks.actions.open, id),
  },
  {
    kind: 'view',
    id: SayThanks.callbackId,
    what: 'the Say thanks form (kudos)',
    ids: (a) => [a.kudosScheduled, a.kudosCanceled],
    answer: 'ack',
    payload: (id) =>
      submit(
        SayThanks.callbackId,
        { kudosId: id },
        { [SayThanks.blocks.words]: { [SayThanks.actions.words]: text('thanks') } },
      ),
  },
  {
    kind: 'view',
    id: BounceFix.callbackId,
    what: 'the fix-address form (bounce)',
    ids: (a) => [a.bounceOpen, a.bounceResent],
    answer: 'ack',
    payload: (id) =>
      submit(
        BounceFix.callbackId,
        { bounceId: id },
        { [BounceFix.blocks.email]: { [BounceFix.actions.email]: text('erin.fixed@example.com') } },
      ),
  },
  {
    kind: 'view',
    id: Campaigns.modal.callbackId,
    what: 'the campaign form, editing (campaign)',
    ids: (a) => [a.campaignActive, a.campaignArchived],
    answer: 'ack',
    payload: (id) => submit(Campaigns.modal.callbackId, { campaignId: id }, campaignForm),
  },
  {
    kind: 'view',
    id: SendModal.callbackId,
    what: 'the send form with a campaign (campaign)',
    ids: (a) => [a.campaignActive, a.campaignArchived],
    answer: 'ack',
    payload: (id) =>
      submit(
        SendModal.callbackId,
        {},
        sendValues({
          [SendModal.blocks.campaign]: { [SendModal.actions.campaign]: { type: 'external_select', ...option(id) } },
        }),
      ),
  },
  {
    kind: 'view',
    id: SendModal.callbackId,
    what: 'the send form with an address-book group (group)',
    ids: (a) => [a.groupId],
    madeUp: otherTemplateId,
    answer: 'ack',
    payload: (id) =>
      submit(
        SendModal.callbackId,
        {},
        {
          ...sendValues(),
          [SendModal.blocks.group]: { [SendModal.actions.group]: { type: 'external_select', ...option(`book:${id}`) } },
        },
      ),
  },
  {
    kind: 'view',
    id: SendModal.callbackId,
    what: 'the send form with an e-mail template (template)',
    ids: (a) => [a.templateId],
    madeUp: otherTemplateId,
    answer: 'ack',
    payload: (id) =>
      submit(
        SendModal.callbackId,
        {},
        sendValues({
          [SendModal.blocks.template]: { [SendModal.actions.template]: { type: 'external_select', ...option(id) } },
        }),
      ),
  },
  {
    kind: 'options',
    id: SendModal.actions.campaign,
    what: "the send form's campaigns, searched by A's campaign's name",
    ids: () => ['ALPHA launch'],
    madeUp: () => 'GAMMA launch',
    answer: 'ack',
    payload: (name) => optionsLoad(SendModal.actions.campaign, name),
  },
  {
    kind: 'options',
    id: SendModal.actions.template,
    what: "the send form's templates, searched by A's template's name",
    ids: () => ['ALPHA template'],
    madeUp: () => 'GAMMA template',
    answer: 'ack',
    payload: (name) => optionsLoad(SendModal.actions.template, name),
  },
  {
    kind: 'options',
    id: SendModal.actions.group,
    what: "the send form's groups, searched by A's group's name",
    ids: () => ['ALPHA group'],
    madeUp: () => 'GAMMA group',
    answer: 'ack',
    payload: (name) => optionsLoad(SendModal.actions.group, name),
  },
];

// ---------------------------------------------------------------------------------------------------
// The Rewards API behind a recording proxy, and a response_url sink, on one local server.

interface Sink {
  url: string;
  /** Every response_url post, in order. */
  responses: Array<{ path: string; body: unknown }>;
  /** Every request to the Rewards API: which account made it (by its client id or token). */
  rewards: Array<{ method: string; path: string; account: string }>;
  target: string;
  close(): Promise<void>;
}

async function readAll(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function startSink(): Promise<Sink> {
  const tokens = new Map<string, string>();
  const state: Omit<Sink, 'url' | 'close'> = { responses: [], rewards: [], target: '' };
  const server: Server = createServer((req, res) => {
    void (async () => {
      const body = await readAll(req);
      const path = req.url ?? '/';
      if (path.startsWith(RESPONSE_PATH)) {
        state.responses.push({ path, body: JSON.parse(body.toString('utf8') || 'null') as unknown });
        res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"ok":true}');
        return;
      }
      const clientId = path.startsWith('/oauth2/token')
        ? new URLSearchParams(body.toString('utf8')).get('client_id')
        : null;
      const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
      const headers = Object.fromEntries(
        Object.entries(req.headers).filter(([k]) => !['host', 'connection', 'content-length'].includes(k)) as Array<
          [string, string]
        >,
      );
      const answer = await fetch(`${state.target}${path}`, {
        method: req.method ?? 'GET',
        headers,
        ...(body.length > 0 ? { body } : {}),
      });
      const raw = Buffer.from(await answer.arrayBuffer());
      if (clientId) {
        const token = (JSON.parse(raw.toString('utf8') || '{}') as { access_token?: string }).access_token;
        if (token) tokens.set(token, clientId);
      }
      state.rewards.push({
        method: req.method ?? 'GET',
        path,
        account: clientId ?? (bearer ? (tokens.get(bearer) ?? 'unknown-token') : 'none'),
      });
      res
        .writeHead(answer.status, { 'Content-Type': answer.headers.get('content-type') ?? 'application/json' })
        .end(raw);
    })().catch((error: unknown) => res.writeHead(502).end(String(error)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(state, {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}

// ---------------------------------------------------------------------------------------------------

const e2e = useAppPerTest({ startEach: false });

beforeAll(async () => {
  sink = await startSink();
});
afterAll(async () => {
  await sink?.close();
});

async function control(path: string, method: string, body?: unknown): Promise<void> {
  const res = await fetch(`${e2e.emulator.url}/_emulator${path}`, {
    method,
    headers: { 'Content-Type': 'application/json' },
    body: body === undefined ? null : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
}

let alpha: Alpha;

beforeEach(async () => {
  sink.target = e2e.emulator.url;
  sink.responses.length = 0;
  sink.rewards.length = 0;
  await e2e.start({
    env: {
      KUDOS_ENCRYPTION_KEY: generateKey('k1'),
      KUDOS_ADMINS: 'U_ADMIN',
      KUDOS_APPROVERS: 'U_APPROVER',
      KUDOS_APPROVAL_CHANNEL: 'C_APPROVALS',
      REWARDS_API_URL: sink.url,
    },
    // Nothing runs on a timer: every Slack and Rewards call of the test is an answer to its requests.
    app: {
      tuning: {
        rewardsPerWorkspace: true,
        approvalsSweepMs: 0,
        automationsMs: 0,
        financeSweepMs: 0,
        digestMs: 0,
        purgeMs: 0,
        webhooks: { enabled: false },
      },
    },
  });
  await control('/orgs', 'POST', BETA);
  const store = e2e.stack.app.rewardsConnections!;
  await store.save(
    A,
    { clientId: 'production-client', clientSecret: 'production-secret', webhookSecret: 'emulator-signing-secret' },
    'U_ADMIN',
  );
  await store.save(
    B,
    { clientId: BETA.productionClientId, clientSecret: BETA.productionClientSecret, webhookSecret: BETA.signingSecret },
    B_ADMIN,
  );
  await e2e.stack.app.settings.update(B, B_ADMIN, {
    adminUserIds: [B_ADMIN],
    approverUserIds: [B_ADMIN],
    approvalChannel: null,
  });
  alpha = await seedAlpha();
});

/** A's data, in every state a refusal could describe (waiting, decided by someone, archived, skipped). */
async function seedAlpha(): Promise<Alpha> {
  const db = e2e.db;
  const rewardsA = await e2e.stack.app.rewardsAccounts.for(A);
  const later = new Date(Date.now() + 3 * 86_400_000);
  const decidedAt = new Date(Date.now() - 3_600_000);
  const send = (overrides: Parameters<typeof pendingKudosValues>[0]) =>
    pendingKudosValues({
      senderUserId: 'U_MANAGER',
      senderName: 'Maya ALPHA',
      recipients: [{ slackUserId: 'U_EMP1', recipientId: null, email: 'alpha-eli@example.com', name: 'Eli ALPHA' }],
      amountCents: 432_100,
      totalCents: 432_100,
      message: 'ALPHA thanks',
      nextAttemptAt: later,
      ...overrides,
    });
  const [awaiting, rejected, scheduled, canceled] = await db
    .insert(kudos)
    .values([
      send({ status: 'awaiting_approval' }),
      send({ status: 'rejected', notifiedAt: decidedAt }),
      send({
        status: 'scheduled',
        orderId: 'ORDALPHA0001',
        orderIds: ['ORDALPHA0001'],
        scheduledAt: later,
        scheduleTimezone: 'UTC',
        scheduleLocal: later.toISOString(),
      }),
      send({
        status: 'canceled',
        orderId: 'ORDALPHA0002',
        orderIds: ['ORDALPHA0002'],
        canceledBy: 'U_MANAGER',
        canceledAt: decidedAt,
      }),
    ])
    .returning();
  const approval = {
    teamId: A.teamId,
    senderUserId: 'U_MANAGER',
    reason: 'above the ALPHA threshold of $4,321',
    expiresAt: later,
    postedAt: decidedAt,
    messages: [{ channel: 'C_APPROVALS', ts: '1.000100' }],
  };
  await db.insert(approvalRequests).values([
    { ...approval, kudosId: awaiting!.id },
    {
      ...approval,
      kudosId: rejected!.id,
      status: 'rejected',
      decidedBy: 'U_APPROVER',
      decidedAt,
      rejectReason: 'ALPHA reason',
    },
  ]);
  const bounce = {
    teamId: A.teamId,
    kudosId: scheduled!.id,
    senderUserId: 'U_MANAGER',
    name: 'Eli ALPHA',
    dmChannel: 'D_ALPHA',
    dmTs: '1.000200',
  };
  const [bounceOpen, bounceResent] = await db
    .insert(bouncedRecipients)
    .values([
      { ...bounce, orderId: 'ORDALPHA0003', email: 'alpha-bounce@example.com' },
      {
        ...bounce,
        orderId: 'ORDALPHA0004',
        email: 'alpha-old@example.com',
        status: 'resent',
        correctedEmail: 'alpha-fixed@example.com',
        resentBy: 'U_APPROVER',
        resentAt: decidedAt,
      },
    ])
    .returning();
  const billing = {
    companyName: 'ALPHA Inc',
    phoneNumber: '1',
    billingAddress: '1 ALPHA St',
    city: 'X',
    state: 'IL',
    country: 'US',
    zipCode: '1',
    ein: '1',
  };
  const [topUpAwaiting, topUpApproved] = await db
    .insert(topUpRequests)
    .values([
      {
        teamId: A.teamId,
        requesterUserId: 'U_MANAGER',
        amountCents: 432_100,
        note: 'ALPHA note',
        billing,
        messages: [{ channel: 'C_APPROVALS', ts: '1.000300' }],
      },
      {
        teamId: A.teamId,
        requesterUserId: 'U_MANAGER',
        amountCents: 432_100,
        note: 'ALPHA note',
        billing,
        status: 'submitted',
        deciderUserId: 'U_APPROVER',
        decidedAt,
        fundingNo: 'FALPHA',
      },
    ])
    .returning();
  const links = {
    teamId: A.teamId,
    requesterUserId: 'U_MANAGER',
    productId: 'CC-THANK-YOU',
    designName: 'Thank You',
    quantity: 3,
    amountCents: 432_100,
    approvalReason: 'ALPHA budget',
    approvalMessages: [{ channel: 'C_APPROVALS', ts: '1.000400' }],
  };
  const [linksAwaiting, linksRejected] = await db
    .insert(rewardLinkRequests)
    .values([
      { ...links, status: 'awaiting_approval' },
      { ...links, status: 'rejected', decidedBy: 'U_APPROVER', decidedAt },
    ])
    .returning();
  const campaign = {
    teamId: A.teamId,
    productId: 'CC-THANK-YOU',
    designName: 'Thank You',
    minCents: 1000,
    maxCents: 432_100,
    defaultCents: 2500,
    subject: 'ALPHA subject',
    createdBy: 'U_MANAGER',
  };
  const [value] = await db
    .insert(companyValues)
    .values({ teamId: A.teamId, name: 'ALPHA teamwork', emoji: 'handshake', createdBy: 'U_ADMIN' })
    .returning();
  const [campaignActive, campaignArchived] = await db
    .insert(campaigns)
    .values([
      { ...campaign, name: 'ALPHA launch', apiName: 'ALPHA launch [a1]', apiCampaignId: 'CMPALPHA1', status: 'active' },
      {
        ...campaign,
        name: 'ALPHA old',
        apiName: 'ALPHA old [a2]',
        apiCampaignId: 'CMPALPHA2',
        status: 'archived',
        archivedBy: 'U_APPROVER',
        archivedAt: decidedAt,
      },
    ])
    .returning();
  const series = {
    teamId: A.teamId,
    senderUserId: 'U_MANAGER',
    recipientUserIds: ['U_EMP1'],
    productId: 'CC-THANK-YOU',
    amountCents: 432_100,
    message: 'ALPHA weekly',
    cadence: 'weekly' as const,
    weekday: 1,
    timeOfDay: '09:00',
    timezone: 'UTC',
    startsAt: decidedAt,
  };
  const [seriesActive, seriesPaused] = await db
    .insert(recurringSeries)
    .values([series, { ...series, status: 'paused' }])
    .returning();
  const occurrence = { teamId: A.teamId, localDate: '2031-01-06', dueAt: later };
  const [occurrenceSeries, occurrenceBirthday, occurrenceSkipped] = await db
    .insert(automationOccurrences)
    .values([
      { ...occurrence, key: `series:${seriesActive!.id}:2031-01-06`, source: 'recurring', seriesId: seriesActive!.id },
      { ...occurrence, key: 'birthday:U_MANAGER:2031-01-06', source: 'birthday', subjectUserId: 'U_MANAGER' },
      {
        ...occurrence,
        key: `series:${seriesActive!.id}:2031-01-13`,
        source: 'recurring',
        seriesId: seriesActive!.id,
        status: 'skipped',
        skippedBy: 'U_APPROVER',
      },
    ])
    .returning();
  await db.insert(celebrationRules).values({
    teamId: A.teamId,
    kind: 'birthday',
    enabled: true,
    amountCents: 432_100,
    productId: 'CC-THANK-YOU',
    messageTemplate: 'ALPHA happy {name}',
    senderUserId: 'U_MANAGER',
  });
  const template = await rewardsA.templates.create({
    name: 'ALPHA template',
    senderName: 'ALPHA sender',
    message: 'ALPHA message',
  });
  const group = await rewardsA.groups.create('ALPHA group');
  return {
    kudosAwaiting: awaiting!.id,
    kudosRejected: rejected!.id,
    kudosScheduled: scheduled!.id,
    kudosCanceled: canceled!.id,
    bounceOpen: bounceOpen!.id,
    bounceResent: bounceResent!.id,
    topUpAwaiting: topUpAwaiting!.id,
    topUpApproved: topUpApproved!.id,
    linksAwaiting: linksAwaiting!.id,
    linksRejected: linksRejected!.id,
    campaignActive: campaignActive!.id,
    campaignArchived: campaignArchived!.id,
    seriesActive: seriesActive!.id,
    seriesPaused: seriesPaused!.id,
    occurrenceSeries: occurrenceSeries!.id,
    occurrenceBirthday: occurrenceBirthday!.id,
    occurrenceSkipped: occurrenceSkipped!.id,
    templateId: template.templateId,
    groupId: group.groupId,
    valueId: value!.id,
  };
}

/** Every row of A's in the tables B's requests aim at, and the whole audit trail. */
async function snapshotOfA(): Promise<string> {
  const db = e2e.db;
  const ofA = <T extends { teamId: unknown }>(table: T) => eq(table.teamId as never, A.teamId);
  const parts = await Promise.all([
    db.select().from(kudos).where(ofA(kudos)).orderBy(kudos.id),
    db.select().from(approvalRequests).where(ofA(approvalRequests)).orderBy(approvalRequests.id),
    db.select().from(bouncedRecipients).where(ofA(bouncedRecipients)).orderBy(bouncedRecipients.id),
    db.select().from(topUpRequests).where(ofA(topUpRequests)).orderBy(topUpRequests.id),
    db.select().from(rewardLinkRequests).where(ofA(rewardLinkRequests)).orderBy(rewardLinkRequests.id),
    db.select().from(campaigns).where(ofA(campaigns)).orderBy(campaigns.id),
    db.select().from(companyValues).where(ofA(companyValues)).orderBy(companyValues.id),
    db.select().from(recurringSeries).where(ofA(recurringSeries)).orderBy(recurringSeries.id),
    db.select().from(automationOccurrences).where(ofA(automationOccurrences)).orderBy(automationOccurrences.id),
    db.select().from(celebrationRules).where(ofA(celebrationRules)),
    db.select().from(notifications).where(ofA(notifications)),
    db.select().from(auditEvents),
  ]);
  return JSON.stringify(parts.map((rows) => rows.map((r) => JSON.stringify(r)).sort()));
}

/** What the clicker was told, without what differs between two requests (trigger ids, view ids, ts). */
const VOLATILE = new Set([
  'trigger_id',
  'view_id',
  'hash',
  'ts',
  'message_ts',
  'token',
  'external_id',
  'response_url',
  'id',
  'fill',
]);
/** The send form's refilled blocks are named after the time of the fill (sending/send-modal-blocks.ts filledBlockId). */
const FILL = /^(send_\w+?_)[0-9a-z]{6,12}$/;
function normalized(value: unknown, id: string): unknown {
  if (typeof value === 'string') {
    if (/^[[{]/.test(value)) {
      try {
        return normalized(JSON.parse(value), id);
      } catch {
        // not JSON: plain text
      }
    }
    return value.split(id).join('<id>').replace(FILL, '$1<fill>');
  }
  if (Array.isArray(value)) return value.map((v) => normalized(v, id));
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value)
        .filter(([k]) => !VOLATILE.has(k))
        .map(([k, v]) => [k, normalized(v, id)]),
    );
  return value;
}

/** Slack calls that tell someone something (a message, a modal, a Home). */
const TELLING = new Set([
  'chat.postMessage',
  'chat.postEphemeral',
  'chat.update',
  'views.open',
  'views.update',
  'views.push',
  'views.publish',
]);

interface Answer {
  status: number;
  told: unknown;
  raw: string;
}

/** Sends `payload` as B's admin and returns its answer: the request's own, or the one message after it. */
async function ask(row: IdHandler, id: string): Promise<Answer> {
  const sim = e2e.stack.sim;
  const before = { calls: sim.calls.length, responses: sink.responses.length };
  const answer = await postSignedPayload(e2e.stack.app.url, row.payload(id));
  if (row.answer === 'ack') return { status: answer.status, told: normalized(answer.text, id), raw: answer.text };
  const told = await eventually(() => {
    const messages = [
      ...sim.calls
        .slice(before.calls)
        .filter((c) => TELLING.has(c.method))
        .map((c) => ({ method: c.method, args: c.args })),
      ...sink.responses.slice(before.responses).map((r) => ({ method: 'response_url', args: r.body })),
    ];
    return messages.length > 0 ? messages : undefined;
  });
  return { status: answer.status, told: normalized({ ack: answer.text, told }, id), raw: JSON.stringify(told) };
}

describe('ids of one workspace in requests of another', () => {
  it('every registered action, view and options handler is in the table, and the table names only what is registered', () => {
    const registered = registeredHandlers();
    expect(registered.length).toBeGreaterThan(40);
    const table = [...ID_HANDLERS.map((r) => ({ kind: r.kind, id: r.id })), ...NO_ID];
    const missing = registered
      .filter((r) => !table.some((t) => handles(r, t.kind, t.id)))
      .map((r) => `${r.kind} ${String(r.constraint)}`);
    expect(missing, 'handlers with no row in ID_HANDLERS or NO_ID').toEqual([]);
    const stale = table
      .filter((t) => !registered.some((r) => handles(r, t.kind, t.id)))
      .map((t) => `${t.kind} ${t.id}`);
    expect(stale, 'rows naming no registered handler').toEqual([]);
    const both = NO_ID.filter((n) => ID_HANDLERS.some((r) => r.kind === n.kind && r.id === n.id)).map((n) => n.id);
    expect(both).toEqual([]);
  });

  for (const row of ID_HANDLERS) {
    it(`${row.kind} ${row.id}: ${row.what}`, async () => {
      const before = await snapshotOfA();
      const rewardsCallsBefore = sink.rewards.length;
      const callsBefore = e2e.stack.sim.calls.length;
      let asked = 0;
      for (const id of row.ids(alpha)) {
        const madeUp = row.madeUp?.(id) ?? randomUUID();
        expect(madeUp).not.toBe(id);
        const forA = await ask(row, id);
        const forNobody = await ask(row, madeUp);
        asked += 2;
        expect(forA.status).toBe(200);
        // Told exactly what an id that never existed is told.
        expect(forA.told, `A's ${id}`).toEqual(forNobody.told);
        for (const marker of A_MARKERS) expect(forA.raw, `A's ${id}`).not.toMatch(marker);
      }
      // Every listener has finished once the app is closed: nothing more can happen after these checks.
      await e2e.stack.close();
      const calls = e2e.stack.sim.calls.slice(callsBefore);
      const everything = JSON.stringify(calls) + JSON.stringify(sink.responses);
      for (const marker of A_MARKERS) expect(everything).not.toMatch(marker);
      // One answer per request, and nothing else told to anyone.
      const told = calls.filter((c) => TELLING.has(c.method)).length + sink.responses.length;
      expect(told).toBe(row.answer === 'ack' ? 0 : asked);
      expect(
        sink.rewards
          .slice(rewardsCallsBefore)
          .filter((r) => r.account === 'production-client' || r.account === 'unknown-token'),
      ).toEqual([]);
      expect(await snapshotOfA()).toBe(before);
    });
  }
});
