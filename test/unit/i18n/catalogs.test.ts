import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { IntlMessageFormat } from 'intl-messageformat';
import { flatten, loadCatalogs, namespacesIn, LOCALES_DIR } from '../../../src/i18n/catalogs.js';
import { SUPPORTED_LOCALES } from '../../../src/i18n/locales.js';

/**
 * Every language has exactly English's keys, every message parses as ICU MessageFormat with English's
 * arguments, and none is left in English. Messages that are the same in a language by nature (brand names,
 * codes, a word the language borrows) are listed here, by language and key.
 */
const SAME_AS_ENGLISH_ALLOWED: Readonly<Record<`${string}:${string}`, readonly string[]>> = {
  // The unit symbol "ms" is international.
  'es:hub': ['launches.milliseconds'],
  'de:hub': ['launches.milliseconds'],
  'pt-BR:hub': ['launches.milliseconds'],
  // French shares these words with English.
  'fr:hub': ['launches.milliseconds', 'launches.incident', 'results.suspicion', 'attempts.test', 'summary.quiz'],
  // French writes minutes as English does; hours and minutes side by side, as in English.
  'fr:settings': ['duration.minutes', 'duration.hoursMinutes'],
  'de:settings': ['duration.hoursMinutes'],
  // "Label: value" is punctuated the same way in these languages.
  'es:accommodations': ['list.setting'],
  'de:accommodations': ['list.setting'],
  'pt-BR:accommodations': ['list.setting'],
  'ar:accommodations': ['list.setting'],
  'fr:accommodations': ['hub.actions'],
};

type Node = { type: number; value?: string; options?: Record<string, { value: Node[] }>; children?: Node[] };

/**
 * Argument names of a parsed message (ICU AST: 1 argument, 2 number, 3 date, 4 time, 5 select, 6 plural,
 * 8 tag). Only names: a language without plural forms rightly writes `{count, number}` for English's plural.
 */
function argumentsOf(nodes: readonly Node[], into = new Set<string>()): Set<string> {
  for (const node of nodes) {
    if ([1, 2, 3, 4, 5, 6, 8].includes(node.type) && node.value !== undefined) into.add(node.value);
    for (const option of Object.values(node.options ?? {})) argumentsOf(option.value, into);
    if (node.children) argumentsOf(node.children, into);
  }
  return into;
}

function pluralsWithoutOther(nodes: readonly Node[]): boolean {
  return nodes.some((node) => ((node.type === 5 || node.type === 6) && !('other' in (node.options ?? {}))) || Object.values(node.options ?? {}).some((option) => pluralsWithoutOther(option.value)));
}

const catalogs = loadCatalogs();
const namespaces = namespacesIn(LOCALES_DIR);

describe('message catalogs', () => {
  it('has the namespaces every page needs, in every language', () => {
    for (const namespace of ['common', 'hub', 'registration', 'cookies']) assert.ok(namespaces.includes(namespace), namespace);
  });

  for (const namespace of namespaces) {
    const english = flatten(catalogs.en[namespace] ?? {});
    describe(`${namespace}`, () => {
      it('English messages parse and their plurals and selects have an "other" case', () => {
        for (const [key, message] of english) {
          const ast = new IntlMessageFormat(message, 'en').getAst() as unknown as Node[];
          assert.ok(!pluralsWithoutOther(ast), `en ${namespace}:${key}: a plural or select without "other"`);
        }
      });

      for (const locale of SUPPORTED_LOCALES.filter((l) => l !== 'en')) {
        it(`${locale}: the same keys as English, parsing, with English's arguments, translated`, () => {
          const messages = flatten(catalogs[locale][namespace] ?? {});
          const missing = [...english.keys()].filter((key) => !messages.has(key));
          const extra = [...messages.keys()].filter((key) => !english.has(key));
          assert.deepEqual(missing, [], `${locale} ${namespace}: missing keys`);
          assert.deepEqual(extra, [], `${locale} ${namespace}: keys English does not have`);
          const allowed = new Set(SAME_AS_ENGLISH_ALLOWED[`${locale}:${namespace}`] ?? []);
          for (const [key, message] of messages) {
            const source = english.get(key) ?? '';
            let ast: Node[];
            try {
              ast = new IntlMessageFormat(message, locale).getAst() as unknown as Node[];
            } catch (error) {
              assert.fail(`${locale} ${namespace}:${key} does not parse: ${String(error)}`);
            }
            const sourceAst = new IntlMessageFormat(source, 'en').getAst() as unknown as Node[];
            assert.deepEqual([...argumentsOf(ast)].sort(), [...argumentsOf(sourceAst)].sort(), `${locale} ${namespace}:${key}: arguments differ from English`);
            assert.ok(!pluralsWithoutOther(ast), `${locale} ${namespace}:${key}: a plural or select without "other"`);
            assert.ok(message.trim() !== '', `${locale} ${namespace}:${key} is empty`);
            if (!allowed.has(key)) assert.notEqual(message, source, `${locale} ${namespace}:${key} is still the English text`);
          }
        });
      }
    });
  }
});
