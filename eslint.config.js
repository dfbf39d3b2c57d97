// ESLint with typescript-eslint's type-checked rules (`npm run lint`, in .ci/run). Why this and not
// Biome: the rules that catch this codebase's real bugs (a promise nobody awaits in a worker loop, an
// async function where Bolt or node:http expects a plain callback, `any` from JSON or a Slack payload
// flowing into typed code) need TypeScript's own type checker, which only typescript-eslint uses.
// Formatting is Prettier's job (`npm run format`), so no stylistic rules here, except the order of
// imports, which Prettier leaves alone: simple-import-sort keeps it (`npx eslint --fix` sorts them).
import js from '@eslint/js';
import simpleImportSort from 'eslint-plugin-simple-import-sort';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'migrations/**', 'bench/results/**', '.data/**', '**/*.js', '**/*.cjs'] },
  {
    files: ['**/*.ts'],
    extends: [js.configs.recommended, ...tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { 'simple-import-sort': simpleImportSort },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      'simple-import-sort/imports': 'error',
      // Real bugs: a promise neither awaited nor handled loses its rejection; `void p` says "on purpose".
      '@typescript-eslint/no-floating-promises': ['error', { ignoreVoid: true }],
      '@typescript-eslint/no-misused-promises': 'error',
      // An async method implementing a Promise-returning interface (a Receiver's start, a fake port) has nothing to await.
      '@typescript-eslint/require-await': 'off',
      // Unused code; `_`-prefixed names are deliberate placeholders.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
      // All of recommended-type-checked is on. An assertion the types already guarantee hides the
      // next real one; `A | any` is `any`; a method passed on detached must not use `this` (ours are
      // closures: declare them as function properties, `now: () => Date`, and the rule is satisfied).
      '@typescript-eslint/consistent-type-imports': ['error', { disallowTypeAnnotations: false }],
      // Passing a caught `unknown` on unchanged is fine; inventing a non-Error reason is not.
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingUnknown: true }],
    },
  },
  {
    // The domain sees what the Messenger port says (ChatRefusal outcomes, domain/common/ports.ts), never
    // Slack's own error codes or error shapes: slack/web-api/gateway.ts translates them.
    files: ['src/domain/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector:
            'Literal[value=/^slack_webapi_|^(not_in_channel|channel_not_found|is_archived|no_such_subteam|subteam_not_found|user_not_found|message_not_found|ratelimited|invalid_auth|token_revoked|missing_scope)$/]',
          message:
            'A Slack error code in the domain: translate it in src/slack (toChatRefusal) and decide on the ChatRefusal outcome here.',
        },
        {
          selector: 'TSPropertySignature[key.name="data"] TSPropertySignature[key.name="error"]',
          message:
            "Reading Slack's error shape ({ data: { error } }) in the domain: decide on the ChatRefusal outcome instead.",
        },
      ],
    },
  },
  {
    // The simulator and the tests read Slack's and the API's loosely typed JSON on purpose.
    files: ['src/simulator/**/*.ts', 'test/**/*.ts', 'bench/**/*.ts', 'scripts/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-base-to-string': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/restrict-template-expressions': 'off',
    },
  },
);
