// The architecture's rules, checked by `npm run check:boundaries` (dependency-cruiser) in .ci/run.
// ARCHITECTURE.md has the picture; each part's README says what it may import.

/**
 * The domain's capabilities, lowest first (src/domain/README.md): each imports only those before it.
 * Type-only imports may point up (the notice union names the cases it carries).
 */
const DOMAIN_CAPABILITIES = [
  'common',
  'workspaces',
  'accounts',
  'branded',
  'pacing',
  'notices',
  'sending',
  'approvals',
  'finance',
  'reward-links',
  'orders',
  'automations',
  'recognition',
  'home',
];

const capabilityOrder = DOMAIN_CAPABILITIES.slice(0, -1).map((capability, i) => ({
  name: `domain-downward-from-${capability}`,
  severity: 'error',
  comment: `src/domain/${capability}/ imports only the capabilities below it (${DOMAIN_CAPABILITIES.slice(0, i).join(', ') || 'none'}) and itself.`,
  from: { path: `^src/domain/${capability}/` },
  to: { path: `^src/domain/(${DOMAIN_CAPABILITIES.slice(i + 1).join('|')})/`, dependencyTypesNot: ['type-only'] },
}));

/**
 * src/slack's folders: base folders that any feature may use (with ids.ts at the root), and feature
 * folders, each of which imports no other feature. Type-only imports may cross, as in the domain.
 */
const SLACK_BASE = ['listening', 'kit', 'web-api'];
const SLACK_FEATURES = [
  'install',
  'kudos-command',
  'sending',
  'approvals',
  'orders',
  'reward-links',
  'finance',
  'automations',
  'recognition',
  'home',
  'workspaces',
  'notices',
];

/**
 * The cross-feature imports that remain, by folder. A new one is a design decision: add it here with
 * its reason, or move what is shared into a base folder.
 */
const SLACK_FEATURE_EDGES = {
  // The router of `/kudos`: each subcommand's handler lives in its feature; the send form and the
  // "not connected" answer are sending's and workspaces'.
  'kudos-command': ['automations', 'finance', 'recognition', 'reward-links', 'sending', 'workspaces'],
  // The one presenter of every notice renders each with the builders of the feature it is about.
  notices: ['approvals', 'automations', 'orders', 'recognition', 'reward-links', 'sending'],
  // App Home shows a section of each feature and opens the settings form.
  home: ['automations', 'finance', 'recognition', 'sending', 'workspaces'],
  // The send form offers campaigns and their templates and the workspace's default design and group,
  // and says when the Rewards account is not connected; Say thanks posts through the notice presenter.
  sending: ['finance', 'workspaces', 'notices'],
  // The campaign form reuses the send form's design options; the ledger CSV is sent as the audit CSV is.
  finance: ['sending', 'workspaces'],
  // The automation forms reuse the settings form's input builder.
  automations: ['workspaces'],
  // The reward-link approval flow, a recipient's Say thanks and a bounce's resend are given the notice
  // presenter (what they tell goes through the notice outbox).
  'reward-links': ['notices'],
  orders: ['notices'],
};

const slackFeaturesApart = SLACK_FEATURES.map((feature) => {
  const allowed = SLACK_FEATURE_EDGES[feature] ?? [];
  const forbidden = SLACK_FEATURES.filter((other) => other !== feature && !allowed.includes(other));
  return {
    name: `slack-feature-apart-${feature}`,
    severity: 'error',
    comment:
      `src/slack/${feature}/ imports the base folders (${SLACK_BASE.join(', ')}, ids.ts) and itself; ` +
      `other features only as SLACK_FEATURE_EDGES allows (${allowed.join(', ') || 'none'}).`,
    from: { path: `^src/slack/${feature}/` },
    to: { path: `^src/slack/(${forbidden.join('|')})/`, dependencyTypesNot: ['type-only'] },
  };
});

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    ...capabilityOrder,
    ...slackFeaturesApart,
    {
      name: 'slack-base-knows-no-feature',
      severity: 'error',
      comment:
        `src/slack's base folders (${SLACK_BASE.join(', ')}) and ids.ts serve every feature and import none ` +
        '(type-only aside: the listener deps name the Home publisher).',
      from: { path: `^src/slack/((${SLACK_BASE.join('|')})/|ids\\.ts$)` },
      to: { path: `^src/slack/(${SLACK_FEATURES.join('|')})/`, dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No import cycles: a cycle means two modules are one, or one depends on a detail of the other.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'domain-speaks-no-slack',
      severity: 'error',
      comment:
        'src/domain decides and records; what must be told leaves it as plain data (notices.ts) through its ports (ports.ts). ' +
        "It may import config, db, rewards and itself, nothing that talks to Slack (our edge or Slack's SDKs) or serves HTTP.",
      from: { path: '^src/domain/' },
      to: {
        path: '^src/(slack|http|webhooks|observability|simulator|emulator|dev|app)/|^src/(app|main)\\.ts$|(^|/)node_modules/@slack/',
      },
    },
    {
      name: 'stands-alone',
      severity: 'error',
      comment:
        'src/rewards is a typed client of the Rewards API: it knows nothing of the app. ' +
        'src/emulator is written from the spec, not from our client: sharing code would hide the mistakes each should catch. ' +
        'src/simulator talks to the app only through signed HTTP, so tests exercise the real routing. ' +
        'src/secrets (the key ring) is used by config, db, the domain and the Slack installation store. ' +
        'Each imports nothing of src/ outside itself but src/lib (adapters of packages).',
      from: { path: '^src/(rewards|emulator|simulator|secrets)/' },
      to: { path: '^src/', pathNot: '^src/($1|lib)/' },
    },
    {
      name: 'lib-knows-no-app',
      severity: 'error',
      comment:
        'src/lib holds adapters of packages (e.g. date-fns-tz loaded on first use) that anything may import; they import nothing of src/ outside src/lib.',
      from: { path: '^src/lib/' },
      to: { path: '^src/', pathNot: '^src/lib/' },
    },
    {
      name: 'emulator-state-knows-no-routes',
      severity: 'error',
      comment: "The emulator's routes depend on its state, never the reverse.",
      from: { path: '^src/emulator/state/' },
      to: { path: '^src/emulator/(routes/|http/|app\\.ts|server\\.ts|main\\.ts)' },
    },
    {
      name: 'dev-tools-only-from-dev',
      severity: 'error',
      comment: 'The Slack simulator and the dev stack serve `npm run dev` and the tests; the app never imports them.',
      from: { path: '^src/', pathNot: '^src/(dev|simulator)/' },
      to: { path: '^src/(dev|simulator)/' },
    },
    {
      name: 'edges-call-inward',
      severity: 'error',
      comment:
        'src/slack (listeners, presenters) and src/webhooks (stored events, processed in the background) call the domain and its ports; ' +
        'the HTTP server, observability and the wiring call them, never the reverse, and neither imports the other.',
      from: { path: '^src/(slack|webhooks)/' },
      to: { path: '^src/(slack|webhooks|http|observability|app)/|^src/(app|main)\\.ts$', pathNot: '^src/$1/' },
    },
    {
      name: 'no-unresolvable',
      severity: 'error',
      comment: 'An import that resolves to nothing is a typo or a missing dependency.',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
    },
  },
};
