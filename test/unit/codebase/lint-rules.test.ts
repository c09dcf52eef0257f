// The lint rules carry architecture: prove they bite. Each case lints a snippet as if it lived in
// src/workflows or src/domain and expects the rule that bans it.
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

// The probes are not files of the TypeScript project, so type-aware parsing and rules are off for them.
const eslint = new ESLint({
  cwd: process.cwd(),
  overrideConfig: {
    languageOptions: { parserOptions: { projectService: false, program: null } },
    rules: { '@typescript-eslint/no-floating-promises': 'off', '@typescript-eslint/no-misused-promises': 'off' },
  },
});

async function restrictedImportMessages(code: string, filePath: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? []).filter((message) => message.ruleId === '@typescript-eslint/no-restricted-imports').map((message) => message.message);
}

describe('lint rules', () => {

  it.each([
    ["import { getFetch } from '../storage/postgres/fetch-repository.js';", 'storage'],
    ["import type { Pool } from '../storage/postgres/pool.js';", 'a storage type'],
    ["import { createUrlFetcher } from './fetch-activity.js';", 'another activity file'],
  ])('bans %s in an activity (%s)', async (code) => {
    const messages = await restrictedImportMessages(`${code}\nexport const x = 1;\n`, 'src/activities/lint-probe.ts');
    expect(messages.join('\n')).toMatch(/Activities reach storage through a service|does not import another activity file/);
  });

  it('bans storage, not the activities it composes, in src/activities/index.ts', async () => {
    expect((await restrictedImportMessages("import { getFetch } from '../storage/postgres/fetch-repository.js';\nexport const x = getFetch;\n", 'src/activities/index.ts')).join('\n')).toMatch(/through a service/);
    expect(await restrictedImportMessages("import { createHostActivities } from './host-activities.js';\nexport const x = createHostActivities;\n", 'src/activities/index.ts')).toEqual([]);
  });

  it('bans Temporal\'s activity API in a service', async () => {
    const messages = await restrictedImportMessages("import { log } from '@temporalio/activity';\nexport const x = log;\n", 'src/services/fetching/lint-probe.ts');
    expect(messages.join('\n')).toMatch(/ActivityScope/);
  });

  it('allows services and the shared adapter helpers in an activity', async () => {
    const code = "import { activityCallToken } from './support/activity-call-token.js';\nimport { registerSources } from '../services/frontier/link-registration.js';\nexport const x = [activityCallToken, registerSources];\n";
    expect(await restrictedImportMessages(code, 'src/activities/lint-probe.ts')).toEqual([]);
  });
  it.each([
    ["import { readFile } from 'node:fs/promises';", 'node built-in'],
    ["import crypto from 'crypto';", 'bare built-in'],
    ["import { request } from 'undici';", 'undici'],
    ["import { Context } from '@temporalio/activity';", 'activity package'],
    ["import { createActivities } from '../../activities/index.js';", 'activity implementation'],
    ["import { chromium } from 'playwright-core';", 'the browser driver'],
    ["import { BrowserPool } from '../../browser/index.js';", 'the browser pool'],
  ])('bans %s in workflow code (%s)', async (code) => {
    const messages = await restrictedImportMessages(`${code}\nexport const x = 1;\n`, 'src/workflows/lint-probe.ts');
    expect(messages.join('\n')).toMatch(/deterministic/);
  });

  it('allows the pure render domain in workflow code', async () => {
    const messages = await restrictedImportMessages("import { decideRender } from '../../domain/render/index.js';\nexport const d = decideRender;\n", 'src/workflows/lint-probe.ts');
    expect(messages).toEqual([]);
  });

  it('allows type-only imports of activities in workflow code', async () => {
    const messages = await restrictedImportMessages("import type { createActivities } from '../../activities/index.js';\nexport type A = ReturnType<typeof createActivities>;\n", 'src/workflows/lint-probe.ts');
    expect(messages).toEqual([]);
  });

  it.each([
    ["import { proxyActivities } from '@temporalio/workflow';", 'Temporal'],
    ["import pg from 'pg';", 'pg'],
    ["import { setTimeout } from 'node:timers/promises';", 'node built-in'],
    ["import { renderPage } from '../../browser/index.js';", 'the browser layer'],
  ])('bans %s in the domain (%s)', async (code) => {
    const messages = await restrictedImportMessages(`${code}\nexport const x = 1;\n`, 'src/domain/lint-probe.ts');
    expect(messages.join('\n')).toMatch(/pure/);
  });

  it.each([
    ["import type { WakeHostInput } from '../../workflows/host-loop.js';", 'a workflow module'],
    ["import { recordAnalyzedPages } from '../../services/documents/record-pages.js';", 'a service'],
    ["import { getFetch } from '../../storage/postgres/fetch-repository.js';", 'storage'],
  ])('bans %s in the contracts (%s)', async (code) => {
    const messages = await restrictedImportMessages(`${code}\nexport const x = 1;\n`, 'src/contracts/lint-probe.ts');
    expect(messages.join('\n')).toMatch(/Contracts are definitions/);
  });

  it('bans imports of activities and services in storage', async () => {
    const [result] = await eslint.lintText("import type { ActivityDeps } from '../../../services/deps.js';\nexport type D = ActivityDeps;\n", { filePath: 'src/storage/postgres/lint-probe.ts' });
    expect((result?.messages ?? []).map((message) => message.message).join('\n')).toMatch(/Storage is called by services/);
  });
});
