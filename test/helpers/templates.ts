import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Where tests keep what they make once and reuse: database templates, key pairs (npm ci starts it afresh). */
export const TEST_CACHE = join('node_modules', '.cache', 'proctor-lti-tests');

/** A key of the PGlite version and, for a migrated database, the migrations' source: a template of another key is stale. */
export function databaseTemplateKey(migrated: boolean): string {
  let key = templateKeys.get(migrated);
  if (key === undefined) {
    key = computedTemplateKey(migrated);
    templateKeys.set(migrated, key);
  }
  return key;
}

/** The migrations do not change while a test process runs: each key is read from their files once. */
const templateKeys = new Map<boolean, string>();

function computedTemplateKey(migrated: boolean): string {
  const pglite = JSON.parse(readFileSync(join('node_modules', '@electric-sql', 'pglite', 'package.json'), 'utf8')) as { version: string };
  const key = createHash('sha256').update(pglite.version);
  if (migrated) {
    const folder = join('src', 'db', 'migrations');
    const files = readdirSync(folder, { withFileTypes: true }).filter((entry) => entry.isFile()).map((entry) => entry.name).sort();
    for (const name of files) key.update(name).update(readFileSync(join(folder, name)));
    key.update(readFileSync(join('src', 'db', 'migrate.ts')));
  }
  return `${migrated ? 'migrated' : 'empty'}-${key.digest('hex').slice(0, 16)}`;
}
