import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { casts } from '../../scripts/count-casts.js';

/** The ceiling on type assertions in src/ (docs/architecture.md, "Parsed at the boundary"): lower it as casts go, never raise it. */
const MAX_CASTS = 30;

test('src/ keeps at most the allowed number of type assertions, none on request input or res.locals', () => {
  const found = casts('src');
  const boundary = found.filter((cast) => cast.boundary);
  assert.equal(boundary.length, 0, `casts on request input or res.locals:\n${boundary.map((cast) => `${cast.file}:${cast.line} ${cast.text}`).join('\n')}`);
  assert.ok(found.length <= MAX_CASTS, `${found.length} type assertions in src/, at most ${MAX_CASTS} allowed (npx tsx scripts/count-casts.ts src --list)`);
});

test('the counter counts each assertion, leaves out `as const`, and tells request input apart', () => {
  const dir = mkdtempSync(join(tmpdir(), 'casts-'));
  try {
    writeFileSync(
      join(dir, 'sample.ts'),
      [
        "const kinds = ['a', 'b'] as const;",
        'const n = JSON.parse("1") as number;',
        'const w = window as unknown as Record<string, unknown>;',
        'const body = req.body as Record<string, unknown>;',
        'const old = <string>value;',
        'const i18n = res.locals.i18n as Translator;',
      ].join('\n'),
    );
    const found = casts(dir);
    assert.deepEqual(
      found.map((cast) => [cast.line, cast.boundary]),
      [
        [2, false],
        [3, false],
        [3, false],
        [4, true],
        [5, false],
        [6, true],
      ],
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
