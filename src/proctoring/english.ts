import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LOCALES_DIR } from '../i18n/catalogs.js';
import { translator } from '../i18n/index.js';
import { isRecord } from '../values.js';

/**
 * The English `settings` catalog (locales/en/settings.json), the one source of every exam setting's words,
 * for the code that speaks English whatever the reader's language: the contract's violation sentences
 * (API clients, logs), the emulator's pages and the sandbox. Pages for people use the reader's translator.
 */
const catalog: unknown = JSON.parse(readFileSync(join(LOCALES_DIR, 'en', 'settings.json'), 'utf8'));

/** The message at a dotted path of the catalog, or undefined. */
function lookup(path: string): string | undefined {
  let node = catalog;
  for (const part of path.split('.')) {
    if (!isRecord(node)) return undefined;
    node = node[part];
  }
  return typeof node === 'string' ? node : undefined;
}

/**
 * `settings:<dotted.path>` in English (the English translator, src/i18n). Throws for a key the catalog
 * lacks: a setting row without its words is a bug, caught by the first test that loads the table.
 */
export function english(key: string, values: Readonly<Record<string, string | number>> = {}): string {
  const full = key.startsWith('settings:') ? key : `settings:${key}`;
  if (lookup(full.slice('settings:'.length)) === undefined) throw new Error(`the English settings catalog has no message ${full}`);
  return translator('en').t(full, values);
}

/** True when the English catalog has this key (for names looked up by stored values, such as a preset's id). */
english.has = (key: string): boolean => lookup(key.replace(/^settings:/, '')) !== undefined;
