// Source comments cite what a clone of the repository has: docs/design.md's sections, not the
// seed documents outside it (`000 §5.2`), and say why without issue numbers. Every section a
// comment names in docs/design.md must exist, so a renamed heading cannot leave citations dangling.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.(ts|js|mjs|cjs)$/.test(entry.name) ? [full] : [];
  });
}

const sources = sourceFiles('src').map((file) => ({ file, text: readFileSync(file, 'utf8') }));

function linesMatching(pattern: RegExp): string[] {
  return sources.flatMap(({ file, text }) =>
    text.split('\n').flatMap((line, i) => (pattern.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])),
  );
}

/** Section names of docs/design.md: each `## ` heading up to its colon. */
function designSections(): Set<string> {
  const headings = readFileSync('docs/design.md', 'utf8').split('\n').filter((line) => line.startsWith('## '));
  return new Set(headings.map((heading) => heading.slice(3).split(':')[0]!.trim()));
}

describe('source comments', () => {
  it('cite no section of the seed documents (000 §x, seed 001): docs/design.md instead', () => {
    expect(linesMatching(/\b00[0-9] §|\bseed 00[0-9]\b/)).toEqual([]);
  });

  it('carry no issue numbers', () => {
    expect(linesMatching(/\bissue #?[0-9]+/i)).toEqual([]);
  });

  it('name only sections docs/design.md has', () => {
    const sections = designSections();
    expect(sections.size).toBeGreaterThan(10);
    const unknown = sources.flatMap(({ file, text }) =>
      [...text.matchAll(/docs\/design\.md, ((?:"[^"\n]+"(?: and )?)+)/g)].flatMap((match) =>
        [...match[1]!.matchAll(/"([^"]+)"/g)].map((name) => name[1]!).filter((name) => !sections.has(name)).map((name) => `${file}: ${name}`),
      ),
    );
    expect(unknown).toEqual([]);
  });
});
