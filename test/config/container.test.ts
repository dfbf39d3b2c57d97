// The container files agree with the rest of the repository: the image starts what `npm start`
// starts, on the Node LTS line CI tests, and compose's demo emulator runs a file the build makes.
import { existsSync, readFileSync } from 'node:fs';

import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const dockerfile = readFileSync('Dockerfile', 'utf8');
const compose = parse(readFileSync('compose.yaml', 'utf8')) as {
  services: Record<string, { command?: string[]; environment?: Record<string, string> }>;
};
const startScript = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: { start: string } }).scripts.start;

describe('the container', () => {
  it("runs npm start's command (without its build step, done in the image)", () => {
    const cmd = /^CMD (\[.*\])$/m.exec(dockerfile)?.[1];
    expect(JSON.parse(cmd ?? '[]')).toEqual(startScript.replace(/^exec /, '').split(/\s+/));
  });

  it('defaults to the official Node image of the LTS line CI tests on', () => {
    const lts = /^LTS_NODE_VERSION=(\d+)\./m.exec(readFileSync('.ci/run', 'utf8'))?.[1];
    expect(lts).toBeDefined();
    expect(dockerfile).toMatch(new RegExp(`^ARG BASE_IMAGE=node:${lts}-bookworm-slim$`, 'm'));
  });

  it("compose's demo emulator runs the built emulator, reachable from the app's container", () => {
    const emulator = compose.services['rewards-emulator']!;
    const entry = emulator.command!.at(-1)!;
    expect(existsSync(entry.replace(/^dist\//, 'src/').replace(/\.js$/, '.ts'))).toBe(true);
    expect(emulator.environment?.SANDBOX_HOST).toBe('0.0.0.0');
  });
});
