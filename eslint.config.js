// Lint rules that carry architecture: the domain stays pure, workflows stay deterministic.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { builtinModules } from 'node:module';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((name) => `node:${name}`)];

/** Imports that make code non-deterministic or do I/O: banned in workflows and in the domain. */
const ioPackages = ['undici', 'pg', 'minio', 'cheerio', 'playwright-core', '@temporalio/activity', '@temporalio/client', '@temporalio/worker', '@temporalio/testing'];

const restrictedFor = (extra, message, { allowTypeImports = true } = {}) => ({
  '@typescript-eslint/no-restricted-imports': [
    'error',
    {
      paths: [...nodeBuiltins, ...ioPackages, ...extra.paths].map((name) => ({ name, message })),
      patterns: extra.patterns.map((group) => ({ group: [group], message, allowTypeImports })),
    },
  ],
});

const activityStoragePattern = { group: ['**/storage/**'], message: 'Activities reach storage through a service (src/services/), never directly.', allowTypeImports: false };
const activitySiblingPattern = {
  group: ['./*', '!./support', '!./support/**'],
  message: 'An activity does not import another activity file: move what they share into a service or src/activities/support/.',
  allowTypeImports: false,
};

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.tools/**', '.crawler-data/**', '.test-data/**', 'coverage/**', 'scratch/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
    },
  },
  {
    // Small modules with one job, functions a reader holds at once (CONTRIBUTING.md, "Style").
    files: ['src/**/*.ts'],
    rules: {
      'max-lines': ['warn', { max: 400, skipBlankLines: true, skipComments: true }],
      'max-lines-per-function': ['warn', { max: 80, skipBlankLines: true, skipComments: true, IIFEs: true }],
    },
  },
  {
    files: ['**/*.js', 'bin/**'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      parserOptions: { projectService: false, program: null },
      globals: { process: 'readonly', console: 'readonly', URL: 'readonly' },
    },
  },
  {
    // Workflow code is replayed: no I/O, no clocks or randomness outside the SDK, activities by type only.
    files: ['src/workflows/**/*.ts'],
    rules: restrictedFor(
      { paths: [], patterns: ['**/activities/**', '**/services/**', '**/storage/**', '**/http/**', '**/browser/**', '**/stack/**', '**/workers/**', '**/cli/**'] },
      'Workflow code must stay deterministic: no Node built-ins, no I/O clients, activities by type only.',
    ),
  },
  {
    // The domain is pure: workflows, activities and unit tests all call it.
    files: ['src/domain/**/*.ts'],
    rules: restrictedFor(
      { paths: ['@temporalio/workflow', '@temporalio/common'], patterns: ['**/activities/**', '**/workflows/**', '**/contracts/**', '**/services/**', '**/storage/**', '**/http/**', '**/browser/**', '**/stack/**', '**/workers/**', '**/cli/**', '**/config/**'] },
      'The domain is pure: no I/O, no Temporal, no Node built-ins.',
    ),
  },
  {
    // Contracts sit at the bottom, under workflows, activities and storage alike: no import runs upward.
    files: ['src/contracts/**/*.ts'],
    rules: restrictedFor(
      { paths: [], patterns: ['**/activities/**', '**/workflows/**', '**/services/**', '**/storage/**', '**/http/**', '**/browser/**', '**/stack/**', '**/workers/**', '**/cli/**'] },
      'Contracts are definitions shared by every layer: they import only the domain and config types.',
      { allowTypeImports: false },
    ),
  },
  {
    // Activities are adapters over services: storage is reached through a service, never from an
    // activity, and an activity does not call another activity's module (shared adapter helpers
    // live in src/activities/support/). index.ts composes the activities, so it imports them, and
    // the support helpers import each other.
    files: ['src/activities/**/*.ts'],
    ignores: ['src/activities/index.ts', 'src/activities/support/**'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', { patterns: [activityStoragePattern, activitySiblingPattern] }],
    },
  },
  {
    files: ['src/activities/index.ts', 'src/activities/support/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', { patterns: [activityStoragePattern] }],
    },
  },
  {
    // Services run inside activities without knowing Temporal's activity API: the adapter hands
    // them its scope (heartbeats, cancellation, logger) and maps their TypedFailures to Temporal's.
    files: ['src/services/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        { paths: [{ name: '@temporalio/activity', message: 'A service takes an ActivityScope (services/fetching/activity-scope.ts) and throws TypedFailure; the activity adapter talks to Temporal.', allowTypeImports: false }] },
      ],
    },
  },
  {
    // Storage is below the services and activities that call it.
    files: ['src/storage/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['**/activities/**', '**/workflows/**', '**/services/**', '**/browser/**', '**/workers/**', '**/cli/**'], message: 'Storage is called by services and activities, never the other way round.' }] },
      ],
    },
  },
);
