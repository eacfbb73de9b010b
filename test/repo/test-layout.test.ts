import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';

/** The test layout of docs/testing.md: where each kind of test lives, so that a reader finds it. */
const TEST_ROOT = join(import.meta.dirname, '..');
const ROOT = join(TEST_ROOT, '..');
const PLACES = ['unit', 'e2e', 'browser', 'repo'] as const;

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'helpers' && dir === TEST_ROOT ? [] : testFiles(path);
    return entry.name.endsWith('.test.ts') ? [relative(TEST_ROOT, path)] : [];
  });
}

const files = testFiles(TEST_ROOT);
const drivesBrowser = (source: string) => /from 'playwright-core'|\bwithBrowser\(/.test(source);
const bootsApp = (source: string) => /helpers\/(app|running-tool|lti-flow|http-launch)\.js'|src\/app\.js'/.test(source);

describe('the test layout', () => {
  it('every test file is under test/unit, test/e2e, test/browser or test/repo', () => {
    const elsewhere = files.filter((file) => !PLACES.some((place) => file.startsWith(`${place}/`)));
    assert.deepEqual(elsewhere, []);
  });

  it('browser tests are under test/browser, and nothing else is', () => {
    for (const file of files.filter((f) => f !== 'repo/test-layout.test.ts')) {
      const inBrowserFolder = file.startsWith('browser/');
      assert.equal(drivesBrowser(readFileSync(join(TEST_ROOT, file), 'utf8')), inBrowserFolder, `${file}: ${inBrowserFolder ? 'drives no browser' : 'drives a browser outside test/browser'}`);
    }
  });

  it('unit tests boot no app and sit in the folder of the source they test', () => {
    for (const file of files.filter((f) => f.startsWith('unit/'))) {
      assert.equal(bootsApp(readFileSync(join(TEST_ROOT, file), 'utf8')), false, `${file}: boots the app, so it belongs in test/e2e`);
      const mirrored = file.slice('unit/'.length).replace(/\.test\.ts$/, '');
      const folder = mirrored.includes('/') ? mirrored.slice(0, mirrored.lastIndexOf('/')) : '';
      const mirrors = existsSync(join(ROOT, 'src', `${mirrored}.ts`)) || existsSync(join(ROOT, 'src', mirrored)) || (folder !== '' && (existsSync(join(ROOT, 'src', folder)) || existsSync(join(ROOT, 'src', `${folder}.ts`))));
      assert.ok(mirrors, `${file}: no src/${mirrored}.ts and no src/${folder || '<folder>'}/`);
    }
  });

  it('the check notices a misplaced file', () => {
    assert.equal(drivesBrowser("import { chromium } from 'playwright-core';"), true);
    assert.equal(bootsApp("import { startTestApp } from '../../helpers/app.js';"), true);
  });
});
