// docs/reference.md is the one list of the outside faces: the README's command and configuration
// tables are rows of it, and it names every variable the app reads and every word `/kudos` knows.
import { readFileSync } from 'node:fs';

import { describe, expect, it } from 'vitest';

import { CONFIG_VARIABLES } from '../../src/config/index.js';
import { HTTP_ROUTE_NAMES } from '../../src/http/server.js';
import { SUBCOMMAND_WORDS } from '../../src/slack/kudos-command/subcommands.js';

const readme = readFileSync('README.md', 'utf8');
const reference = readFileSync('docs/reference.md', 'utf8');
const scripts = Object.keys((JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: object }).scripts);

/** The rows (header and rule left out) of the first table under the heading `heading`. */
function tableRows(markdown: string, heading: string): string[] {
  const lines = markdown.split('\n');
  const start = lines.indexOf(heading);
  expect(start, `heading ${heading}`).toBeGreaterThanOrEqual(0);
  const first = lines.findIndex((line, i) => i > start && line.startsWith('|'));
  const rows: string[] = [];
  for (let i = first; i < lines.length && lines[i]!.startsWith('|'); i++) rows.push(lines[i]!);
  return rows.slice(2);
}

/** The names in backticks in a row's first cell. */
const namesIn = (row: string) => [...row.split('|')[1]!.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);

describe('docs/reference.md', () => {
  it("has every row of the README's command and configuration tables, as written there", () => {
    const commands = tableRows(reference, '## Commands');
    for (const row of tableRows(readme, '## Commands')) expect(commands).toContain(row);
    const environment = tableRows(reference, '## Environment');
    for (const row of tableRows(readme, '## Configuration (`npm start`)')) expect(environment).toContain(row);
  });

  it('names every variable the app reads, and only those', () => {
    const named = tableRows(reference, '## Environment').flatMap(namesIn);
    expect(new Set(named)).toEqual(new Set([...CONFIG_VARIABLES, 'LOG_LEVEL']));
  });

  it('names only scripts package.json has', () => {
    const commands = tableRows(reference, '## Commands')
      .flatMap(namesIn)
      .filter((name) => name.startsWith('npm '));
    expect(commands.length).toBeGreaterThan(5);
    for (const command of commands) {
      const script = /^npm (?:run )?([\w:-]+)/.exec(command)?.[1] ?? '';
      expect(scripts.includes(script) || script === 'ci', command).toBe(true);
    }
  });

  it('lists every HTTP route the server knows, and only those', () => {
    const listed = tableRows(reference, '## HTTP routes').flatMap(namesIn);
    expect(new Set(listed)).toEqual(new Set(HTTP_ROUTE_NAMES));
  });

  it('lists every word /kudos knows', () => {
    const listed = tableRows(reference, '## The `/kudos` command').join(' ');
    for (const word of SUBCOMMAND_WORDS) expect(listed, word).toMatch(new RegExp(`\\b${word}\\b`));
  });
});
