import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { describe, it } from 'node:test';

/** ltijs is contained in src/lti/: moving to another ltijs release must touch nothing else (PRODUCT.md). */
const IMPORTS_LTIJS = /(?:from\s+|import\s*\(\s*|require\s*\(\s*)['"]ltijs(?:\/[^'"]*)?['"]/;

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return /\.(?:ts|js|mjs|cjs)$/.test(name) ? [path] : [];
  });
}

describe('the ltijs boundary', () => {
  it('the pattern finds the ways ltijs can be imported', () => {
    for (const line of ["import ltijs from 'ltijs';", "import Auth from 'ltijs/dist/Utils/Auth.js';", "const l = await import('ltijs');", 'require("ltijs")', "import type { LtijsPlatform } from 'ltijs';"]) {
      assert.match(line, IMPORTS_LTIJS);
    }
    assert.doesNotMatch("import { x } from './ltijs-store.js';", IMPORTS_LTIJS);
  });

  it('nothing outside src/lti/ imports ltijs', () => {
    const offenders = sources('src')
      .filter((path) => !relative('src', path).startsWith(`lti${sep}`))
      .filter((path) => IMPORTS_LTIJS.test(readFileSync(path, 'utf8')));
    assert.deepEqual(offenders, []);
    assert.ok(sources(join('src', 'lti')).some((path) => IMPORTS_LTIJS.test(readFileSync(path, 'utf8'))), 'the adapter itself does import ltijs');
  });
});
