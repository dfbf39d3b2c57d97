// Every relative link in the docs leads to a file of the repository: a reader of a clone (or of the
// repository's pages) never meets a dead link or one into a folder beside it. A link starting with `/`
// is taken from the repository's root, as GitHub does; the README's table rows repeated in
// docs/reference.md use that form so that one text reads right in both places.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function markdownFilesUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return markdownFilesUnder(path);
    return entry.name.endsWith('.md') ? [path] : [];
  });
}

const DOCS = ['README.md', 'ARCHITECTURE.md', 'CHANGELOG.md', ...markdownFilesUnder('docs')].filter((file) =>
  existsSync(join(ROOT, file)),
);

/** The targets of inline links and images, code spans and fenced blocks left out. */
function linkTargets(markdown: string): string[] {
  const prose = markdown.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  return [...prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]!);
}

const isExternal = (target: string) => /^[a-z][a-z0-9+.-]*:/i.test(target);

describe('links in the docs', () => {
  it.each(DOCS)('%s: every relative link resolves to a file in the repository', (file) => {
    const broken: string[] = [];
    for (const target of linkTargets(readFileSync(join(ROOT, file), 'utf8'))) {
      if (isExternal(target) || target.startsWith('#')) continue;
      const path = decodeURIComponent(target.split('#')[0]!);
      const absolute = path.startsWith('/') ? join(ROOT, path) : resolve(ROOT, dirname(file), path);
      const inside = !relative(ROOT, absolute).startsWith('..') && !relative(ROOT, absolute).startsWith(sep);
      if (!inside || !existsSync(absolute)) broken.push(target);
    }
    expect(broken).toEqual([]);
  });
});
