// The boundary rules (.dependency-cruiser.cjs, `npm run check:boundaries` in .ci/run) hold on src/,
// and each rule broken on purpose in a scratch tree fails the check: the rules are not vacuous.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

import { cruise, type IConfiguration, type ICruiseOptions } from 'dependency-cruiser';
import { afterAll, describe, expect, it } from 'vitest';

const config = createRequire(import.meta.url)('../../.dependency-cruiser.cjs') as IConfiguration;
const scratchDirs: string[] = [];
afterAll(async () => {
  await Promise.all(scratchDirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

async function violations(
  baseDir: string,
  options: { [K in keyof ICruiseOptions]?: ICruiseOptions[K] | undefined } = {},
): Promise<string[]> {
  const result = await cruise(['src'], {
    ...config.options,
    ...(options as ICruiseOptions),
    ruleSet: { forbidden: config.forbidden ?? [] },
    validate: true,
    baseDir,
  });
  if (typeof result.output === 'string') throw new Error('dependency-cruiser gave text, not a result');
  return result.output.summary.violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`).sort();
}

/** A tree of `files` (path -> the modules it imports) under a fresh directory. */
async function scratchTree(files: Record<string, string[]>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'kudos-boundaries-'));
  scratchDirs.push(dir);
  for (const [path, imports] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(
      join(dir, path),
      `${imports.map((i) => `import '${i}';`).join('\n')}\nexport const here = ${JSON.stringify(path)};\n`,
    );
  }
  return dir;
}

describe('boundaries', () => {
  it('src/ keeps every rule', async () => {
    expect(await violations(process.cwd())).toEqual([]);
  });

  it('each rule, broken on purpose, fails the check', async () => {
    const dir = await scratchTree({
      'src/domain/send.ts': ['../slack/blocks.ts', './cycle-a.ts'],
      'src/domain/cycle-a.ts': ['./cycle-b.ts'],
      'src/domain/cycle-b.ts': ['./cycle-a.ts'],
      // A capability importing one above it; the one above importing down is allowed.
      'src/domain/common/money.ts': ['../sending/kudos-store.ts'],
      'src/domain/sending/kudos-store.ts': [],
      'src/domain/home/home-data.ts': ['../sending/kudos-store.ts', '../common/money.ts'],
      'src/slack/blocks.ts': ['../http/server.ts', '../webhooks/loop.ts'],
      'src/http/server.ts': [],
      'src/webhooks/loop.ts': ['../slack/blocks.ts'],
      'src/rewards/client.ts': ['../db/client.ts'],
      'src/db/client.ts': [],
      'src/emulator/state/orders.ts': ['../routes/orders.ts', '../../rewards/client.ts'],
      'src/emulator/routes/orders.ts': [],
      'src/config/index.ts': ['../simulator/driver.ts'],
      'src/simulator/driver.ts': ['../config/index.ts'],
      // A Slack feature importing another; a base folder importing a feature; an allowed edge.
      'src/slack/orders/resend.ts': ['../approvals/approve.ts', '../kit/mrkdwn.ts', '../ids.ts'],
      'src/slack/approvals/approve.ts': [],
      'src/slack/kit/mrkdwn.ts': ['../approvals/approve.ts'],
      'src/slack/ids.ts': [],
      'src/slack/sending/send-form.ts': ['../finance/campaigns.ts', '../kit/mrkdwn.ts'],
      'src/slack/finance/campaigns.ts': [],
    });
    const found = await violations(dir, { tsConfig: undefined, tsPreCompilationDeps: false });
    const rules = new Set(found.map((v) => v.split(':')[0]));
    expect([...rules].sort()).toEqual([
      'dev-tools-only-from-dev',
      'domain-downward-from-common',
      'domain-speaks-no-slack',
      'edges-call-inward',
      'emulator-state-knows-no-routes',
      'no-circular',
      'slack-base-knows-no-feature',
      'slack-feature-apart-orders',
      'stands-alone',
    ]);
    expect(found).toContain('domain-speaks-no-slack: src/domain/send.ts -> src/slack/blocks.ts');
    expect(found).toContain('stands-alone: src/rewards/client.ts -> src/db/client.ts');
    expect(found).toContain(
      'domain-downward-from-common: src/domain/common/money.ts -> src/domain/sending/kudos-store.ts',
    );
    expect(found.filter((v) => v.includes('src/domain/home/'))).toEqual([]);
    expect(found).toContain('edges-call-inward: src/slack/blocks.ts -> src/http/server.ts');
    expect(found).toContain('slack-feature-apart-orders: src/slack/orders/resend.ts -> src/slack/approvals/approve.ts');
    expect(found).toContain('slack-base-knows-no-feature: src/slack/kit/mrkdwn.ts -> src/slack/approvals/approve.ts');
    expect(found.filter((v) => v.includes('src/slack/sending/'))).toEqual([]);
  });
});
