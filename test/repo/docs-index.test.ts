import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, it } from 'node:test';

const DOCS = 'docs';
const documents = readdirSync(DOCS).filter((name) => name.endsWith('.md'));
/** Folders of docs/ keep their own index, which the main one links. */
const folderIndexes = readdirSync(DOCS, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => `${entry.name}/README.md`);
const markdownFiles = ['README.md', ...documents.map((name) => join(DOCS, name))];

/** Relative link targets of a Markdown text (inline links; code spans and fenced blocks left out). */
function linksOf(text: string): string[] {
  const prose = text.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1]!).filter((target) => !/^[a-z]+:/i.test(target));
}

/** The anchors GitHub gives a document's headings. */
function anchorsOf(text: string): Set<string> {
  const headings = text.replace(/```[\s\S]*?```/g, '').match(/^#{1,6} .+$/gm) ?? [];
  return new Set(
    headings.map((heading) =>
      heading
        .replace(/^#+ /, '')
        .toLowerCase()
        .replace(/[^\p{L}\p{N} _-]/gu, '')
        .replace(/ /g, '-'),
    ),
  );
}

describe('the documentation', () => {
  it('docs/README.md links every document in docs/, and the index of each folder in it', () => {
    const linked = new Set(linksOf(readFileSync(join(DOCS, 'README.md'), 'utf8')).map((target) => target.split('#')[0]));
    const missing = [...documents, ...folderIndexes].filter((name) => name !== 'README.md' && !linked.has(name));
    assert.deepEqual(missing, [], 'add each to the index in docs/README.md');
  });

  it('every relative link of the README and the docs points at a file that exists, and at a heading it has', () => {
    const broken: string[] = [];
    for (const file of markdownFiles) {
      for (const target of linksOf(readFileSync(file, 'utf8'))) {
        const [path, anchor] = target.split('#') as [string, string | undefined];
        const resolved = path === '' ? file : normalize(join(dirname(file), path));
        if (!existsSync(resolved)) broken.push(`${file}: ${target}`);
        else if (anchor && resolved.endsWith('.md') && !anchorsOf(readFileSync(resolved, 'utf8')).has(anchor)) broken.push(`${file}: ${target} (no such heading)`);
      }
    }
    assert.deepEqual(broken, []);
  });

  it('the README stays a front door (at most 200 lines) and performance.md at most 300 lines', () => {
    assert.ok(readFileSync('README.md', 'utf8').split('\n').length <= 200, 'README.md: move detail into docs/');
    assert.ok(readFileSync(join(DOCS, 'performance.md'), 'utf8').split('\n').length <= 300, 'docs/performance.md: dated passes leave, git history keeps them');
  });
});
