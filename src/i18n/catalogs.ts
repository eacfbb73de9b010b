import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Locale } from './locales.js';

/** A namespace's messages: nested objects whose leaves are ICU MessageFormat strings. */
export interface MessageTree {
  [key: string]: string | MessageTree;
}

/** Every language's namespaces, as read from `locales/<locale>/<namespace>.json`. */
export type Catalogs = Record<Locale, Record<string, MessageTree>>;

/** `locales/` at the repository root, from src/i18n/ as from dist/src/i18n/. */
export const LOCALES_DIR = fileURLToPath(new URL('../../locales', import.meta.url)).replace(/dist\/locales$/, 'locales');

/** The namespaces are the files of the English folder: English is the source of every key. */
export function namespacesIn(dir: string): string[] {
  return readdirSync(join(dir, 'en'))
    .filter((name) => name.endsWith('.json'))
    .map((name) => name.slice(0, -'.json'.length))
    .sort();
}

/**
 * Reads every catalog once (at start-up). A missing or malformed file stops the tool with its path: a
 * language without its messages would show keys to users.
 */
export function loadCatalogs(dir: string = LOCALES_DIR): Catalogs {
  const namespaces = namespacesIn(dir);
  const load = (locale: Locale): Record<string, MessageTree> =>
    Object.fromEntries(namespaces.map((namespace) => [namespace, readTree(join(dir, locale, `${namespace}.json`))]));
  // Every supported locale by name, in SUPPORTED_LOCALES' order: the type checker refuses a locale left out.
  return { en: load('en'), es: load('es'), fr: load('fr'), de: load('de'), 'pt-BR': load('pt-BR'), ar: load('ar'), 'zh-Hans': load('zh-Hans') };
}

function readTree(path: string): MessageTree {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new Error(`message catalog ${path} could not be read: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  if (!isTree(parsed)) throw new Error(`message catalog ${path} must be an object of strings and nested objects`);
  return parsed;
}

function isTree(value: unknown): value is MessageTree {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  return Object.values(value).every((child) => typeof child === 'string' || isTree(child));
}

/** Every message of a tree by its dotted key. */
export function flatten(tree: MessageTree, prefix = ''): Map<string, string> {
  const messages = new Map<string, string>();
  for (const [key, value] of Object.entries(tree)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (typeof value === 'string') messages.set(path, value);
    else for (const [childKey, message] of flatten(value, path)) messages.set(childKey, message);
  }
  return messages;
}
