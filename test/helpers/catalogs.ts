import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

export type Catalog = { readonly [key: string]: string | Catalog };

/** A message catalog as shipped: locales/<locale>/<namespace>.json. */
export function loadCatalog(locale: string, namespace: string): Catalog {
  return JSON.parse(readFileSync(new URL(`../../locales/${locale}/${namespace}.json`, import.meta.url), 'utf8')) as Catalog;
}

/** The plain message at a dotted key, or undefined where the key is missing or names a group. */
export function lookup(catalog: Catalog, key: string): string | undefined {
  let node: string | Catalog | undefined = catalog;
  for (const part of key.split('.')) node = typeof node === 'object' ? node[part] : undefined;
  return typeof node === 'string' ? node : undefined;
}

/** The message at a dotted key with its {placeholders} filled; fails the test where the key is missing. */
export function message(catalog: Catalog, key: string, values: Readonly<Record<string, string>> = {}): string {
  const text = lookup(catalog, key);
  assert.ok(text !== undefined, `no message at ${key}`);
  return text.replace(/\{(\w+)\}/g, (whole, name: string) => values[name] ?? whole);
}
