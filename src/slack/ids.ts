// Every callback_id, action_id and block_id of the app, so builders and listeners cannot drift apart.
export const COMMAND = '/kudos';

export const SendModal = {
  callbackId: 'kudos_send',
  blocks: {
    recipients: 'send_recipients',
    group: 'send_group',
    campaign: 'send_campaign',
    cardType: 'send_card_type',
    design: 'send_design',
    amount: 'send_amount',
    template: 'send_template',
    message: 'send_message',
    value: 'send_value',
    refund: 'send_refund',
    timing: 'send_timing',
    date: 'send_date',
    time: 'send_time',
  },
  actions: {
    recipients: 'recipients',
    group: 'group',
    campaign: 'campaign',
    cardType: 'card_type',
    design: 'design',
    amount: 'amount',
    template: 'email_template',
    message: 'message',
    value: 'company_value',
    refund: 'refund',
    timing: 'timing',
    date: 'date',
    time: 'time',
  },
} as const;

/**
 * The send form's brand fields, shown in place of design and amount once "A brand" is picked (the
 * face amount's block id carries the form's fill: a new brand shows its own amounts afresh).
 */
export const SendBrand = {
  blocks: { category: 'send_brand_category', brand: 'send_brand', face: 'send_face', info: 'send_brand_info' },
  actions: { category: 'brand_category', brand: 'brand', face: 'face_amount', terms: 'brand_terms' },
} as const;

/** `/kudos @a 25 Thanks`: the ephemeral confirmation's buttons (value: the confirmation, one-line-token.ts). */
export const OneLine = {
  actions: { send: 'one_line_send', edit: 'one_line_edit' },
} as const;

/** The send form's "More options" button (campaign, e-mail template, refund). */
export const SendModalMore = { block: 'send_more', action: 'send_more_options' } as const;

export const ScheduledList = {
  blockPrefix: 'scheduled_',
  actions: {
    cancel: 'scheduled_cancel',
  },
} as const;

export const Home = {
  actions: {
    openSendModal: 'home_open_send',
    /** Cancel a scheduled send from Home (value: kudos id). */
    cancel: 'home_cancel',
    /** Another page of a list (value: `list:page`). */
    page: 'home_page',
    /** Admins: open the settings modal. */
    openSettings: 'home_open_settings',
    /** The stats section: leave or rejoin the leaderboard. */
    statsOptOut: 'home_stats_optout',
    statsOptIn: 'home_stats_optin',
  },
} as const;

/** Shortcuts (manifest.yml): "Give kudos for this" on a message, and "Give kudos" from anywhere. */
export const Shortcut = {
  message: 'give_kudos_for_message',
  global: 'give_kudos',
} as const;

/** Values of the send modal's choices. */
export const CardChoice = { choice: 'choice', brand: 'brand' } as const;
/** The brand picker's category option meaning every category. */
export const ANY_CATEGORY = 'any';
export const TimingChoice = { now: 'now', schedule: 'schedule' } as const;
export const RefundChoice = { none: 'none', d30: '30', d60: '60', d90: '90' } as const;
/** Group option values are prefixed by their kind. */
export const GroupValuePrefix = { slack: 'slack:', addressBook: 'book:' } as const;

/** "Fix address and resend" on a bounced card (webhooks issue): button in the sender's DM, then a modal. */
export const BounceFix = {
  callbackId: 'bounce_fix',
  blocks: { email: 'bounce_fix_email' },
  actions: { open: 'bounce_fix_open', email: 'email' },
} as const;

/** A recipient's "Say thanks" (src/slack/sending/say-thanks.ts): the button carries the kudos id. */
export const SayThanks = {
  callbackId: 'say_thanks',
  blocks: { words: 'say_thanks_words' },
  actions: { open: 'say_thanks_open', words: 'words' },
} as const;

/** Approval requests (src/slack/approvals/approval-blocks.ts): buttons carry the kudos id as their value. */
export const Approval = {
  blockPrefix: 'approval_',
  actions: {
    approve: 'approval_approve',
    reject: 'approval_reject',
  },
  rejectModal: {
    callbackId: 'approval_reject_modal',
    blocks: { reason: 'approval_reject_reason' },
    actions: { reason: 'reason' },
  },
} as const;

/** Reward-link requests waiting for approval: buttons carry the request id as their value. */
export const LinkApproval = {
  blockPrefix: 'links_approval_',
  actions: {
    approve: 'links_approve',
    reject: 'links_reject',
  },
} as const;

/** The admins' settings modal (/kudos settings). */
export const SettingsModal = {
  callbackId: 'kudos_settings',
  blocks: {
    notifyChannel: 'settings_notify_channel',
    approvalChannel: 'settings_approval_channel',
    approvers: 'settings_approvers',
    approverGroup: 'settings_approver_group',
    threshold: 'settings_threshold',
    budget: 'settings_budget',
    defaultDesign: 'settings_default_design',
    defaultAmount: 'settings_default_amount',
    admins: 'settings_admins',
    expiryHours: 'settings_expiry_hours',
    adminChannel: 'settings_admin_channel',
    lowBalance: 'settings_low_balance',
    reaction: 'settings_reaction',
    seriesPerPerson: 'settings_series_per_person',
    seriesPerWorkspace: 'settings_series_per_workspace',
    recognition: 'settings_recognition',
    cardRecipients: 'settings_card_recipients',
    valuesRequired: 'settings_values_required',
    requireMessage: 'settings_require_message',
    deleteData: 'settings_delete_data',
    /** Who may spend: who sends cards, what over an allowance means, allowances of people and groups. */
    cardSenders: 'settings_card_senders',
    senderGroup: 'settings_sender_group',
    overAllowance: 'settings_over_allowance',
    allowancePerson: 'settings_allowance_person',
    allowanceGroup: 'settings_allowance_group',
    allowanceAmount: 'settings_allowance_amount',
    allowanceRemove: 'settings_allowance_remove',
    /** Where people are: the workspace's default country, the profile field holding each person's. */
    defaultCountry: 'settings_default_country',
    countryField: 'settings_country_field',
  },
  actions: {
    notifyChannel: 'notify_channel',
    approvalChannel: 'approval_channel',
    approvers: 'approvers',
    approverGroup: 'approver_group',
    threshold: 'threshold',
    budget: 'budget',
    defaultDesign: 'default_design',
    defaultAmount: 'default_amount',
    admins: 'admins',
    expiryHours: 'expiry_hours',
    adminChannel: 'admin_channel',
    lowBalance: 'low_balance',
    reaction: 'reaction',
    seriesPerPerson: 'series_per_person',
    seriesPerWorkspace: 'series_per_workspace',
    recognition: 'recognition',
    cardRecipients: 'card_recipients',
    valuesRequired: 'values_required',
    requireMessage: 'require_message',
    /** Distribution mode: "Delete our data" (with Slack's confirmation dialog). */
    deleteData: 'delete_workspace_data',
    cardSenders: 'card_senders',
    senderGroup: 'sender_group',
    overAllowance: 'over_allowance',
    allowancePerson: 'allowance_person',
    allowanceGroup: 'allowance_group',
    allowanceAmount: 'allowance_amount',
    allowanceRemove: 'allowance_remove',
    defaultCountry: 'default_country',
    countryField: 'country_field',
  },
  /** Values of the recognition checkboxes. */
  recognition: { amounts: 'amounts', digest: 'weekly_digest' },
  /** Value of the "senders must pick a value" checkbox. */
  valuesRequired: 'required',
  /** Value of the "require a message" checkbox. */
  requireMessage: 'require',
  /** Value of the "none" option of the optional selects. */
  none: 'none',
} as const;

/** People's countries (admins, from the settings modal): the CSV upload pushed over it, and its report. */
export const PeopleCountries = {
  actions: {
    /** In the settings modal: pushes the upload modal. */
    uploadCsv: 'countries_upload_csv',
  },
  csvModal: {
    callbackId: 'countries_csv',
    blocks: { csv: 'countries_csv_text', file: 'countries_csv_file' },
    actions: { csv: 'csv', file: 'file' },
  },
  reportCallbackId: 'countries_csv_report',
} as const;

/** Company values (admins, from the settings modal): the list (Add / Edit / Remove) and the form. */
export const CompanyValues = {
  actions: {
    /** In the settings modal: pushes the list. */
    manage: 'values_manage',
    add: 'value_add',
    /** value: the value's id. */
    edit: 'value_edit',
    remove: 'value_remove',
  },
  listModal: { callbackId: 'values_list' },
  formModal: {
    callbackId: 'value_form',
    blocks: { name: 'value_name', emoji: 'value_emoji', description: 'value_description' },
    action: 'value',
  },
} as const;

/** Workflow Builder custom step (manifest.yml `functions`, docs/automations.md, the Workflow Builder step). */
export const WorkflowStep = {
  sendKudos: 'send_kudos',
} as const;

/** The money side for admins (src/slack/finance/finance-blocks.ts): alerts, top-ups, limits. */
export const Finance = {
  blockPrefix: 'finance_',
  actions: {
    /** Opens the top-up request modal (alert messages, /kudos balance, App Home). */
    openTopUp: 'finance_topup_open',
    /** In the short top-up form (billing details remembered): show them to change them. */
    changeBilling: 'finance_topup_change_billing',
    approveTopUp: 'finance_topup_approve',
    rejectTopUp: 'finance_topup_reject',
    /** Opens the limit-increase modal (/kudos limits, App Home). */
    openLimits: 'finance_limits_open',
  },
  topUpModal: {
    callbackId: 'finance_topup',
    blocks: {
      amount: 'topup_amount',
      note: 'topup_note',
      companyName: 'topup_company',
      phoneNumber: 'topup_phone',
      billingAddress: 'topup_address',
      city: 'topup_city',
      state: 'topup_state',
      country: 'topup_country',
      zipCode: 'topup_zip',
      ein: 'topup_ein',
      companyWebsite: 'topup_website',
      /** The short form's line of the remembered billing details, with Change billing details. */
      rememberedBilling: 'topup_billing_remembered',
    },
    /** Every input's action id is `value`. */
    action: 'value',
  },
  limitsModal: {
    callbackId: 'finance_limits',
    blocks: {
      currentDaily: 'limits_current_daily',
      currentMonthly: 'limits_current_monthly',
      requestedDaily: 'limits_requested_daily',
      requestedMonthly: 'limits_requested_monthly',
    },
    action: 'value',
  },
} as const;

/** `/kudos templates` (admins): e-mail templates and test e-mails (src/slack/finance/email-templates.ts). */
export const Templates = {
  actions: {
    /** Opens the form for a new template. */
    create: 'template_new',
    /** Opens the form filled from a template (value: its id); saving makes a new template. */
    edit: 'template_edit',
    /** Sends the clicker a test e-mail with the template (value: its id). */
    testEmail: 'template_test_email',
  },
  modal: {
    callbackId: 'template_form',
    blocks: {
      name: 'template_name',
      senderName: 'template_sender',
      message: 'template_message',
      borderColor: 'template_border',
      buttonColor: 'template_button',
      buttonFontColor: 'template_button_font',
    },
    action: 'value',
  },
} as const;

/** `/kudos campaigns` for admins: the list (New / Edit / Archive) and the form. */
export const Campaigns = {
  actions: {
    create: 'campaign_new',
    /** value: the campaign's id. */
    edit: 'campaign_edit',
    archive: 'campaign_archive',
  },
  modal: {
    callbackId: 'campaign_form',
    blocks: {
      name: 'campaign_name',
      design: 'campaign_design',
      min: 'campaign_min',
      max: 'campaign_max',
      default: 'campaign_default',
      template: 'campaign_template',
      senderName: 'campaign_sender',
      subject: 'campaign_subject',
    },
    /** Text and number fields; the two selects have action ids of their own (options loads route by them). */
    action: 'value',
    designAction: 'campaign_design_pick',
    templateAction: 'campaign_template_pick',
  },
} as const;

/** The value of "no template" (the account's default) in the template selects. */
export const NO_TEMPLATE = 'none';

/** `/kudos celebrations` and `/kudos recurring`: lists, rule and CSV modals, the recurring form. */
export const Celebrations = {
  actions: {
    skip: 'celebration_skip',
    editBirthday: 'celebration_rule_birthday',
    editAnniversary: 'celebration_rule_anniversary',
    uploadCsv: 'celebration_upload_csv',
    optOut: 'celebration_opt_out',
    noPublicPost: 'celebration_no_public_post',
  },
  ruleModal: {
    callbackId: 'celebration_rule',
    blocks: {
      enabled: 'rule_enabled',
      amount: 'rule_amount',
      design: 'rule_design',
      brand: 'rule_brand',
      template: 'rule_template',
      sender: 'rule_sender',
      channel: 'rule_channel',
      profileField: 'rule_profile_field',
    },
    actions: {
      enabled: 'enabled',
      amount: 'amount',
      design: 'design',
      brand: 'automation_brand',
      template: 'template',
      sender: 'sender',
      channel: 'channel',
      profileField: 'profile_field',
    },
  },
  csvModal: {
    callbackId: 'celebration_csv',
    blocks: { csv: 'csv_text', file: 'csv_file' },
    actions: { csv: 'csv', file: 'file' },
  },
} as const;

export const Recurring = {
  actions: {
    pause: 'recurring_pause',
    resume: 'recurring_resume',
    delete: 'recurring_delete',
    skip: 'recurring_skip',
    create: 'recurring_create',
    page: 'recurring_page',
  },
  modal: {
    callbackId: 'recurring_new',
    blocks: {
      recipients: 'rec_recipients',
      design: 'rec_design',
      brand: 'rec_brand',
      amount: 'rec_amount',
      message: 'rec_message',
      cadence: 'rec_cadence',
      weekday: 'rec_weekday',
      day: 'rec_day',
      time: 'rec_time',
    },
    actions: {
      recipients: 'recipients',
      design: 'design',
      brand: 'automation_brand',
      amount: 'amount',
      message: 'message',
      cadence: 'cadence',
      weekday: 'weekday',
      day: 'day',
      time: 'time',
    },
  },
} as const;

/** Distribution mode: an admin connects the workspace's own Rewards account from App Home. */
export const RewardsConnect = {
  callbackId: 'rewards_connect',
  blocks: {
    clientId: 'rewards_client_id',
    clientSecret: 'rewards_client_secret',
    webhookSecret: 'rewards_webhook_secret',
  },
  actions: { open: 'rewards_connect_open', value: 'value' },
} as const;
