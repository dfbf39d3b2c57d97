// The seeded Slack workspace the simulator serves: fixed ids so tests and the dev UI can name people.
// Shapes follow Slack's user / conversation / usergroup objects closely enough for the Web API answers.

export interface WorkspaceUser {
  id: string;
  /** Slack's `name` (handle, deprecated but still sent as `user_name` in slash commands). */
  name: string;
  realName: string;
  displayName: string;
  /** Absent: the profile has no e-mail (Slack omits the field). */
  email?: string;
  /** IANA zone, as Slack's `tz`; '' for a profile without one (users.info then has no tz fields). */
  tz: string;
  isAdmin: boolean;
  isOwner: boolean;
  isBot: boolean;
  deleted: boolean;
  /** A guest: `multi` (Slack's is_restricted) or `single` (is_ultra_restricted, which Slack sends with is_restricted too). */
  guest?: 'multi' | 'single';
  /** Invited but not yet joined (Slack's is_invited_user). */
  invited?: boolean;
  /** One-line role shown in the simulator's "who am I" switch. */
  role: string;
  /** Turned off the app's Messages tab: the app's DMs to them are refused (`messages_tab_disabled`). */
  closedDms?: boolean;
  /** Values of the workspace's custom profile fields (users.profile.get `fields`), by field id. */
  profileFields?: Record<string, string>;
}

/** A custom profile field an admin defined (team.profile.get). Date fields hold `YYYY-MM-DD`. */
export interface WorkspaceProfileField {
  id: string;
  label: string;
  type: 'text' | 'date' | 'options_list' | 'link' | 'user';
}

export interface WorkspaceChannel {
  id: string;
  name: string;
  isPrivate: boolean;
  topic: string;
  members: string[];
}

export interface WorkspaceUsergroup {
  id: string;
  handle: string;
  name: string;
  users: string[];
}

export interface Workspace {
  team: { id: string; name: string; domain: string };
  /** The Kudos app itself, as installed in this workspace. */
  app: {
    appId: string;
    botId: string;
    botUserId: string;
    botName: string;
    /** Its message shortcuts (the manifest's `shortcuts` of type message): "More actions" on a message. */
    messageShortcuts?: Array<{ name: string; callbackId: string }>;
    /** Its Workflow Builder steps (the manifest's `functions`), for the web UI's "Run a workflow step". */
    workflowSteps?: WorkflowStepDefinition[];
  };
  users: WorkspaceUser[];
  channels: WorkspaceChannel[];
  usergroups: WorkspaceUsergroup[];
  /** Custom profile fields (team.profile.get); absent: none. */
  profileFields?: WorkspaceProfileField[];
}

/** A custom step of the app as Workflow Builder shows it: its inputs and the outputs it must return. */
export interface WorkflowStepDefinition {
  callbackId: string;
  title: string;
  inputs: Array<{ name: string; title: string; type: 'user' | 'users' | 'number' | 'string'; required: boolean }>;
  requiredOutputs: string[];
}

export const TEAM_ID = 'T0KUDOS';
export const APP_ID = 'A0KUDOS';
export const BOT_ID = 'B0KUDOS';
export const BOT_USER_ID = 'U_KUDOSBOT';

/** A full member of the workspace (`name@example.com`, New York time unless `extra` says otherwise). */
export function workspacePerson(
  id: string,
  name: string,
  realName: string,
  role: string,
  extra: Partial<WorkspaceUser> = {},
): WorkspaceUser {
  return {
    id,
    name,
    realName,
    displayName: realName.split(' ')[0] ?? realName,
    email: `${name}@example.com`,
    tz: 'America/New_York',
    isAdmin: false,
    isOwner: false,
    isBot: false,
    deleted: false,
    role,
    ...extra,
  };
}

/** A fresh copy of the seeded workspace (callers may mutate it). */
export function seedWorkspace(): Workspace {
  const users: WorkspaceUser[] = [
    workspacePerson('U_MANAGER', 'maya', 'Maya Manager', 'manager', { tz: 'America/New_York' }),
    workspacePerson('U_APPROVER', 'arjun', 'Arjun Approver', 'approver', { tz: 'Europe/London' }),
    workspacePerson('U_ADMIN', 'ada', 'Ada Admin', 'workspace admin', { tz: 'America/Los_Angeles', isAdmin: true }),
    workspacePerson('U_EMP1', 'eli', 'Eli Engineer', 'employee', { tz: 'America/Chicago' }),
    workspacePerson('U_EMP2', 'erin', 'Erin Designer', 'employee', { tz: 'America/New_York' }),
    workspacePerson('U_EMP3', 'omar', 'Omar Operations', 'employee', { tz: 'Europe/Berlin' }),
    workspacePerson('U_EMP4', 'sofia', 'Sofia Sales', 'employee', {
      tz: 'America/Denver',
      profileFields: { Xf0BIRTHDAY: '1991-07-04', Xf0STARTDATE: '2022-09-01', Xf0TEAM: 'Sales' },
    }),
    (() => {
      const u = workspacePerson('U_NOEMAIL', 'nora', 'Nora Noemail', 'no e-mail in profile', {
        tz: 'America/New_York',
      });
      delete u.email;
      return u;
    })(),
    workspacePerson('U_TOKYO', 'taro', 'Taro Tokyo', 'employee in Tokyo', { tz: 'Asia/Tokyo' }),
    // The Rewards emulator bounces every address at bounce.test: a card to Bruno shows the bounce repair.
    workspacePerson('U_BOUNCE', 'bruno', 'Bruno Bounce', 'e-mail bounces', {
      tz: 'America/New_York',
      email: 'bruno@bounce.test',
    }),
    (() => {
      const u = workspacePerson('U_BOT', 'buildbot', 'Build Bot', 'a bot', { isBot: true, tz: 'America/Los_Angeles' });
      delete u.email;
      return u;
    })(),
    workspacePerson('U_GONE', 'greg', 'Greg Gone', 'deactivated', { deleted: true }),
    (() => {
      const u = workspacePerson(BOT_USER_ID, 'kudos', 'Kudos', 'the Kudos app', {
        isBot: true,
        tz: 'America/Los_Angeles',
      });
      delete u.email;
      return u;
    })(),
  ];
  const everyone = users.filter((u) => !u.deleted).map((u) => u.id);
  return {
    team: { id: TEAM_ID, name: 'Kudos Demo', domain: 'kudos-demo' },
    app: {
      appId: APP_ID,
      botId: BOT_ID,
      botUserId: BOT_USER_ID,
      botName: 'kudos',
      // As manifest.yml declares them.
      messageShortcuts: [{ name: 'Give kudos for this', callbackId: 'give_kudos_for_message' }],
      workflowSteps: [
        {
          callbackId: 'send_kudos',
          title: 'Send kudos',
          inputs: [
            { name: 'sender', title: 'From', type: 'user', required: true },
            { name: 'recipients', title: 'To', type: 'users', required: true },
            { name: 'amount', title: 'Amount per person', type: 'number', required: true },
            { name: 'message', title: 'Message', type: 'string', required: false },
            { name: 'design', title: 'Design (catalog product id)', type: 'string', required: false },
          ],
          requiredOutputs: ['kudos_id', 'status'],
        },
      ],
    },
    users,
    profileFields: [
      { id: 'Xf0TEAM', label: 'Team', type: 'text' },
      { id: 'Xf0BIRTHDAY', label: 'Birthday', type: 'date' },
      { id: 'Xf0STARTDATE', label: 'Start date', type: 'date' },
    ],
    channels: [
      {
        id: 'C_GENERAL',
        name: 'general',
        isPrivate: false,
        topic: 'Company-wide announcements',
        members: [...everyone],
      },
      { id: 'C_KUDOS', name: 'kudos', isPrivate: false, topic: 'Thank-yous, in public', members: [...everyone] },
      {
        id: 'C_APPROVALS',
        name: 'approvals',
        isPrivate: true,
        topic: 'Kudos waiting for a second pair of eyes',
        members: ['U_MANAGER', 'U_APPROVER', 'U_ADMIN', BOT_USER_ID],
      },
      {
        id: 'C_ADMIN',
        name: 'kudos-admins',
        isPrivate: true,
        topic: 'Low-balance alerts and top-up requests',
        members: ['U_APPROVER', 'U_ADMIN', BOT_USER_ID],
      },
    ],
    usergroups: [{ id: 'S_TEAM', handle: 'team', name: 'The Team', users: ['U_EMP1', 'U_EMP2'] }],
  };
}
